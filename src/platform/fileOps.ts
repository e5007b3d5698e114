// FileLoader's metadata and housekeeping operations (stat, listings, real paths, removal, ...): the
// synchronous calls of files.ts as effects that fail with a FileError whose reason says what the OS
// refused (NotFound, PermissionDenied, OsFailed) and keeps the OS error (`FileError.os`), so that a
// caller words it as it always has. The service is src/platform/FileLoader.ts.
import { Effect } from "effect"
import { FileError, type FileOp } from "../core/fileErrors.ts"
import { errnoOf } from "../core/osError.ts"
import * as Files from "./files.ts"

export const describeOsError = (e: unknown): string => {
  switch (errnoOf(e)) {
    case "ENOENT":
      return "no such file or directory"
    case "EACCES":
    case "EPERM":
      return "permission denied"
    case "EISDIR":
      return "is a directory"
    case "ENOTDIR":
      return "a component of the path is not a directory"
    case "ENXIO":
      return "not a readable file (a socket or a device with nothing attached)"
    case "ELOOP":
      return "too many levels of symbolic links"
    case "ENAMETOOLONG":
      return "file name too long"
    default:
      return e instanceof Error ? e.message : String(e)
  }
}

const WRITES: ReadonlySet<FileOp> = new Set(["write", "remove"])

/** The FileError for an OS error `e` met by operation `op` on `path`. */
export const osFailure = (path: string, op: FileOp, e: unknown): FileError => {
  const os = { code: errnoOf(e), message: e instanceof Error ? e.message : String(e) }
  if (os.code === "ENOENT") return new FileError({ reason: { _tag: "NotFound", path, op, os } })
  if (os.code === "EACCES" || os.code === "EPERM") {
    return new FileError({ reason: { _tag: "PermissionDenied", path, access: WRITES.has(op) ? "write" : "read", os } })
  }
  return new FileError({ reason: { _tag: "OsFailed", path, op, detail: describeOsError(e), os } })
}

const call = <A>(path: string, op: FileOp, f: () => A): Effect.Effect<A, FileError> =>
  Effect.try({ try: f, catch: (e) => osFailure(path, op, e) })

export interface FileOps {
  /** Metadata, following symlinks. */
  readonly stat: (path: string) => Effect.Effect<Files.Stats, FileError>
  /** Metadata of the path itself: a symlink is described, not followed. */
  readonly lstat: (path: string) => Effect.Effect<Files.Stats, FileError>
  /** The canonical absolute path, symlinks resolved. */
  readonly realPath: (path: string) => Effect.Effect<string, FileError>
  /** A directory's entries with their types (symlinks not followed), in the order the OS gives them. */
  readonly list: (dir: string) => Effect.Effect<Array<Files.DirEntry>, FileError>
  /** A directory's names, in the order the OS gives them. */
  readonly listNames: (dir: string) => Effect.Effect<Array<string>, FileError>
  /** Whether the path names anything (a dangling symlink does not). */
  readonly exists: (path: string) => Effect.Effect<boolean>
  /** Metadata, following symlinks, or undefined when it cannot be had (nothing there, no access). */
  readonly statIfAny: (path: string) => Effect.Effect<Files.Stats | undefined>
  /** The first `length` bytes (fewer when the file is shorter). */
  readonly readHead: (path: string, length: number) => Effect.Effect<Uint8Array, FileError>
  /**
   * A file lait itself wrote (a cassette, the history), whole and with invalid UTF-8 replaced, not
   * refused: user files go through the capped, checked `readText`. `noFollow`: a symbolic link in its
   * place is refused.
   */
  readonly readOwnText: (path: string, options?: { readonly noFollow?: boolean }) => Effect.Effect<string, FileError>
  /**
   * Appends `text` in one write, making a missing file 0600 and its directory 0700, and refusing a
   * symbolic link in the file's place (files.ts appendWhole).
   */
  readonly append: (path: string, text: string) => Effect.Effect<void, FileError>
  /** One file (never a directory). */
  readonly removeFile: (path: string) => Effect.Effect<void, FileError>
  /** `rm -rf`: a missing path is fine. */
  readonly removeTree: (path: string) => Effect.Effect<void, FileError>
  /** A new empty directory under the system's temp directory, named `<prefix>XXXXXX`, as a real path. */
  readonly makeTempDirectory: (prefix: string) => Effect.Effect<string, FileError>
  /** Copies a file or a directory tree to `target`, which must not exist; symlinks are copied as links. */
  readonly copyTree: (source: string, target: string) => Effect.Effect<void, FileError>
  /** The first symlinked component of `path`, as files.ts's symlinkOnPath finds it, or undefined. */
  readonly symlinkOnPath: (path: string) => Effect.Effect<string | undefined, FileError>
}

export const fileOps: FileOps = {
  stat: (path) => call(path, "stat", () => Files.stat(path)),
  lstat: (path) => call(path, "stat", () => Files.lstat(path)),
  realPath: (path) => call(path, "realPath", () => Files.realPath(path)),
  list: (dir) => call(dir, "list", () => Files.listEntries(dir)),
  listNames: (dir) => call(dir, "list", () => Files.list(dir)),
  exists: (path) => Effect.sync(() => Files.exists(path)),
  statIfAny: (path) => Effect.sync(() => Files.statOrUndefined(path)),
  readHead: (path, length) => call(path, "read", () => Files.readHead(path, length)),
  readOwnText: (path, options) => call(path, "read", () => Files.readOwnText(path, options)),
  append: (path, text) => call(path, "write", () => Files.appendWhole(path, text)),
  removeFile: (path) => call(path, "remove", () => Files.removeFile(path)),
  removeTree: (path) => call(path, "remove", () => Files.removeTree(path)),
  makeTempDirectory: (prefix) => call(prefix, "write", () => Files.makeTempDirectory(prefix)),
  copyTree: (source, target) => call(target, "write", () => Files.copyTree(source, target)),
  symlinkOnPath: (path) => call(path, "symlinks", () => Files.symlinkOnPath(path))
}
