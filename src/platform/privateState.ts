// lait's own files in the project: `.lait/` under the current directory — sessions
// (`.lait/sessions/*.jsonl`), checkpoints (`.lait/runs/*.json`) and cache entries
// (`.lait/cache/*.json`). Every read, write, listing and delete of them goes through here.
//
// They hold prompts, answers and input values, so they are private like the history file
// (docs/history.md): files 0600, and the directories lait makes 0700. And no symbolic link is followed
// on the way to one: a `.lait` (or `.lait/sessions`, a session file, ...) that a checkout or another
// program made a link would have lait read, append to or delete files elsewhere — a dangling link
// even creates its target. Every component below the current directory is checked with lstat first
// (files.ts's symlinkOnPath) and the final open refuses a link itself (O_NOFOLLOW, O_EXCL). Node has
// no openat(2), so a link swapped in between the check and the use of a parent directory is not
// caught; that needs another local user racing lait in the project directory.
import { Effect } from "effect"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { FileError } from "../core/fileErrors.ts"
import { errnoOf } from "../core/osError.ts"
import { describeOsError, FileLoader, writeAtomicSync } from "./FileLoader.ts"
import * as Files from "./files.ts"

export { SymlinkRefused } from "./files.ts"

/** Where lait keeps a project's state, relative to the current directory. */
export const STATE_DIR = ".lait"

const FILE_MODE = 0o600
const DIR_MODE = 0o700

/** Makes `dir` and its missing parents (0700 each), after refusing a symlink on the way. */
export const makePrivateDirs = (dir: string): void => {
  Files.refuseSymlinks(dir)
  fs.mkdirSync(dir, { recursive: true, mode: DIR_MODE })
}

/**
 * Replaces `path` whole (temp file + rename, as FileLoader's writes), as a 0600 file. Synchronous,
 * so that a checkpoint written while Ctrl-C stops a run is never cut off half-way. Throws the OS error,
 * or SymlinkRefused.
 */
export const writePrivateFile = (path: string, data: string | Uint8Array): void => {
  makePrivateDirs(nodePath.dirname(path))
  Files.refuseSymlinks(path)
  writeAtomicSync(path, data, { createDirs: false, mode: FILE_MODE })
}

/** More bytes than an append may grow a file to; `size` is what the file held. */
export class SizeLimitExceeded extends Error {
  readonly code = "ESIZELIMIT"
  constructor(readonly path: string, readonly size: number, readonly limit: number) {
    super(`'${path}' would grow past ${limit} bytes`)
  }
}

const notRegular = (path: string) =>
  Object.assign(new Error(`'${path}' is not a regular file`), { code: "ENOTREGULAR" })

/**
 * Appends `text` with one write(2) on an O_APPEND descriptor, so concurrent appenders never interleave
 * inside a record and a crash leaves whole records. The file is created 0600 (an older, wider one is
 * narrowed to 0600), its directories 0700. Refused: a symlink anywhere on the path, anything but a
 * regular file (a FIFO would block the open), and an append that would make the file longer than
 * `maxSize` (SizeLimitExceeded: the file stays as it was). Throws the OS error otherwise.
 */
export const appendPrivate = (path: string, text: string, maxSize?: number): void => {
  makePrivateDirs(nodePath.dirname(path))
  Files.refuseSymlinks(path)
  let fd: number
  try {
    const { O_WRONLY, O_APPEND, O_CREAT, O_NOFOLLOW, O_NONBLOCK } = fs.constants
    fd = fs.openSync(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK, FILE_MODE)
  } catch (e) {
    // ELOOP: a link appeared since the check; ENXIO: a FIFO nobody reads.
    if (errnoOf(e) === "ELOOP") throw new Files.SymlinkRefused(path)
    if (errnoOf(e) === "ENXIO") throw notRegular(path)
    throw e
  }
  try {
    const st = fs.fstatSync(fd)
    if (!st.isFile()) throw notRegular(path)
    const bytes = Buffer.from(text, "utf8")
    if (maxSize !== undefined && st.size + bytes.length > maxSize) {
      throw new SizeLimitExceeded(path, st.size, maxSize)
    }
    if ((st.mode & 0o077) !== 0) fs.fchmodSync(fd, FILE_MODE)
    const n = fs.writeSync(fd, bytes)
    if (n !== bytes.length) throw Object.assign(new Error("short write"), { code: "EIO" })
  } finally {
    fs.closeSync(fd)
  }
}

const readRefused = (path: string, e: unknown) =>
  new FileError({ reason: { _tag: "ReadFailed", path, detail: describeOsError(e) } })

/**
 * The file's text through FileLoader (capped, UTF-8-checked), refusing a symlink on the way and never
 * waiting on a FIFO: lait wrote these files itself, so a FIFO there has no writer to wait for.
 */
export const readPrivateText = (path: string): Effect.Effect<string, FileError, FileLoader> =>
  refuseLinkedPath(path).pipe(
    Effect.andThen(FileLoader.use((loader) => loader.readText(path, { waitForWriter: false, noFollow: true })))
  )

/**
 * Fails as a read of `path` would (`failed to read '<path>': refusing to follow symbolic link '...'`)
 * when a symlink lies on the way to it, the file included; for a caller that must fail on a link even
 * where it treats other read problems as nothing found (the response cache).
 */
export const refuseLinkedPath = (path: string): Effect.Effect<void, FileError> =>
  Effect.try({ try: () => Files.refuseSymlinks(path), catch: (e) => readRefused(path, e) })

/**
 * Whether `path` exists, not following a symlink (a dangling link exists); throws SymlinkRefused for
 * a link on the way to it, and the OS error of a failed lstat.
 */
export const privateEntryExists = (path: string): boolean => {
  Files.refuseSymlinks(path)
  try {
    Files.lstat(path)
    return true
  } catch (e) {
    if (errnoOf(e) === "ENOENT" || errnoOf(e) === "ENOTDIR") return false
    throw e
  }
}

/**
 * The size of the file at `path` (a symlink is not followed), or 0 when there is none; throws like
 * privateEntryExists.
 */
export const privateEntrySize = (path: string): number => (privateEntryExists(path) ? Files.lstat(path).size : 0)

/**
 * The entries of directory `dir` with their types (symlinks not followed), or undefined when it does
 * not exist. Throws SymlinkRefused for a link on the way (`dir` included), and the OS error.
 */
export const listPrivateDir = (dir: string): Array<Files.DirEntry> | undefined =>
  privateEntryExists(dir) ? Files.listEntries(dir) : undefined

/** Deletes one file, refusing a symlink on the way (the file included). Throws the OS error. */
export const removePrivateFile = (path: string): void => {
  Files.refuseSymlinks(path)
  Files.removeFile(path)
}
