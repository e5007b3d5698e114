// The file-system calls lait makes outside FileLoader's reads and writes: metadata, directory
// listings, path resolution. Synchronous, throwing the OS error, for the platform's own modules;
// the rest of lait reaches them as FileLoader's effects with typed errors (./fileOps.ts).
import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"
import { errnoOf } from "../core/osError.ts"

export type Stats = fs.Stats
export type DirEntry = fs.Dirent

/** stat(2), following symlinks; throws the OS error. */
export const stat = (path: string): Stats => fs.statSync(path)

/**
 * All of stdin (at most `limit + 1` bytes) when fd 0 is a regular file or /dev/null, where a read
 * cannot block: `</dev/null` (cron, CI) and `< file` are read at once, not through Node's stdin
 * stream (reading it cost about 10 ms). Undefined for pipes, terminals and other devices, which need
 * the stream (its reads can wait, and must stay interruptible). The OS error of a failed read as `error`.
 */
export const readPlainStdin = (
  limit: number
): { readonly bytes: Uint8Array } | { readonly error: unknown } | undefined => {
  let plain: boolean
  try {
    const st = fs.fstatSync(0)
    plain = st.isFile() || (st.isCharacterDevice() && isDevNull(st))
  } catch {
    return undefined
  }
  if (!plain) return undefined
  const chunks: Array<Uint8Array> = []
  let total = 0
  try {
    const buffer = Buffer.allocUnsafe(64 * 1024)
    for (;;) {
      const n = fs.readSync(0, buffer, 0, buffer.length, null)
      if (n === 0) break
      chunks.push(Buffer.from(buffer.subarray(0, n)))
      total += n
      if (total > limit) break
    }
  } catch (error) {
    return { error }
  }
  return { bytes: Buffer.concat(chunks) }
}

const isDevNull = (st: fs.Stats): boolean => {
  try {
    const devNull = fs.statSync("/dev/null")
    return devNull.isCharacterDevice() && devNull.rdev === st.rdev
  } catch {
    return false
  }
}

/** lstat(2): a symlink is described, not followed; throws the OS error. */
export const lstat = (path: string): Stats => fs.lstatSync(path)

/** What lait refuses to go through (upstream's wording); `code` lets callers tell it from OS errors. */
export class SymlinkRefused extends Error {
  readonly code = "ESYMLINK"
  constructor(readonly path: string) {
    super(`refusing to follow symbolic link '${path}'`)
  }
}

/**
 * The first component of `path` that is a symbolic link (dangling or not), as `path` spells it, or
 * undefined. Only the components below the current directory count when `path` lies inside it (the
 * project's own place, reached however the user reached it); otherwise only the last one. A missing
 * component ends the walk: nothing below it exists. Throws the OS error of a failed lstat.
 */
export const symlinkOnPath = (path: string): string | undefined => {
  const cwd = process.cwd()
  const relative = nodePath.relative(cwd, nodePath.resolve(cwd, path))
  const inside = relative !== "" && !relative.startsWith("..") && !nodePath.isAbsolute(relative)
  const parts = inside ? relative.split(nodePath.sep) : [path]
  const base = !inside ? "" : nodePath.isAbsolute(path) ? cwd : ""
  let current = base
  for (const part of parts) {
    current = current === "" ? part : nodePath.join(current, part)
    let st: Stats
    try {
      st = fs.lstatSync(current)
    } catch (e) {
      if (errnoOf(e) === "ENOENT" || errnoOf(e) === "ENOTDIR") return undefined
      throw e
    }
    if (st.isSymbolicLink()) return current
  }
  return undefined
}

/** Throws SymlinkRefused for the first symlinked component of `path` (symlinkOnPath). */
export const refuseSymlinks = (path: string): void => {
  const link = symlinkOnPath(path)
  if (link !== undefined) throw new SymlinkRefused(link)
}

export const statOrUndefined = (path: string): Stats | undefined => {
  try {
    // No exception (and its stack) for the usual absence.
    return fs.statSync(path, { throwIfNoEntry: false })
  } catch {
    return undefined
  }
}

/** Whether the path names anything (a dangling symlink does not). */
export const exists = (path: string): boolean => fs.existsSync(path)

/** The canonical absolute path: symlinks resolved; throws the OS error. */
export const realPath = (path: string): string => fs.realpathSync(path)

/** The names in a directory, in the order the OS gives them; throws the OS error. */
export const list = (dir: string): Array<string> => fs.readdirSync(dir)

/** A directory's entries with their types (not following symlinks); throws the OS error. */
export const listEntries = (dir: string): Array<DirEntry> => fs.readdirSync(dir, { withFileTypes: true })

/** The first `length` bytes (fewer if the file is shorter); throws the OS error. */
export const readHead = (path: string, length: number): Uint8Array => {
  const fd = fs.openSync(path, "r")
  try {
    const buffer = new Uint8Array(length)
    const n = fs.readSync(fd, buffer, 0, length, 0)
    return buffer.subarray(0, n)
  } finally {
    fs.closeSync(fd)
  }
}

/**
 * open(2) refusing a symbolic link as the last component (O_NOFOLLOW): SymlinkRefused instead of the
 * ELOOP the OS reports for one.
 */
const openNoFollow = (path: string, flags: number, mode?: number): number => {
  try {
    return fs.openSync(path, flags | fs.constants.O_NOFOLLOW, mode)
  } catch (e) {
    if (errnoOf(e) === "ELOOP") throw new SymlinkRefused(path)
    throw e
  }
}

/**
 * A small file lait itself wrote (a cassette entry, the history), whole and unchecked; throws the OS
 * error. With `noFollow`, a symbolic link in its place is refused (SymlinkRefused). User files go
 * through FileLoader's capped, UTF-8-checked reads instead.
 */
export const readOwnText = (path: string, options: { readonly noFollow?: boolean } = {}): string => {
  if (options.noFollow !== true) return fs.readFileSync(path, "utf8")
  const fd = openNoFollow(path, fs.constants.O_RDONLY)
  try {
    return fs.readFileSync(fd, "utf8")
  } finally {
    fs.closeSync(fd)
  }
}

/**
 * Appends `text` to `path` with one write(2) on a descriptor opened O_APPEND, so that concurrent
 * appenders (other lait processes) never interleave or overwrite each other's lines: the kernel puts
 * each write whole at the end of the file. The file (mode 0600: it may hold private text) and its
 * directory (0700) are created when missing. A symbolic link in the file's place is refused
 * (SymlinkRefused), never appended through: the file holds prompts and answers, and a link would send
 * them wherever it points. Throws the OS error.
 */
export const appendWhole = (path: string, text: string): void => {
  fs.mkdirSync(nodePath.dirname(path), { recursive: true, mode: 0o700 })
  const bytes = new TextEncoder().encode(text)
  const { O_WRONLY, O_APPEND, O_CREAT } = fs.constants
  const fd = openNoFollow(path, O_WRONLY | O_APPEND | O_CREAT, 0o600)
  try {
    // A regular file takes the whole buffer in one call; only a full disk or a signal makes it
    // short, and then the rest follows rather than being lost.
    let written = 0
    while (written < bytes.length) written += fs.writeSync(fd, bytes, written, bytes.length - written)
  } finally {
    fs.closeSync(fd)
  }
}

/** unlink(2): one file (never a directory); throws the OS error. */
export const removeFile = (path: string): void => fs.unlinkSync(path)

/** `rm -rf`: a missing path is fine; throws the OS error otherwise. */
export const removeTree = (path: string): void => fs.rmSync(path, { recursive: true, force: true })

/** A new empty directory under the system's temp directory, named `<prefix>XXXXXX`; throws the OS error. */
export const makeTempDirectory = (prefix: string): string =>
  fs.realpathSync(fs.mkdtempSync(nodePath.join(os.tmpdir(), prefix)))

/**
 * Copies a file or a whole directory to `target`, which must not exist yet; symlinks are copied as
 * links, not followed. Throws the OS error.
 */
export const copyTree = (source: string, target: string): void =>
  fs.cpSync(source, target, { recursive: true, errorOnExist: true, force: false, verbatimSymlinks: true })

const O_CLOEXEC = 0o2000000

/**
 * Whether fd `fd` (0, 1 or 2) was closed when lait started (`lait ... >&-`). The runtime then opens
 * /dev/null on it with close-on-exec set, which an inherited descriptor cannot have (it survived an
 * exec). Only Linux shows a descriptor's flags (/proc/self/fdinfo); elsewhere such output goes to
 * /dev/null unnoticed.
 */
export const standardStreamWasClosed = (fd: 0 | 1 | 2): boolean => {
  try {
    if (!fs.fstatSync(fd).isCharacterDevice()) return false
    const flags = /^flags:\s*([0-7]+)$/m.exec(fs.readFileSync(`/proc/self/fdinfo/${fd}`, "utf8"))?.[1]
    return flags !== undefined && (parseInt(flags, 8) & O_CLOEXEC) !== 0
  } catch {
    return false
  }
}

export const stdoutWasClosed = (): boolean => standardStreamWasClosed(1)
