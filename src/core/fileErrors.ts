// Failures of reading a user's file or writing one for the user, as one error class with a `reason`.
// The text is the one lait has always printed (`failed to read 'p': <why>`); every reason exits 1.
import { ReasonError, type TaggedUnion } from "./reasonError.ts"

/**
 * The OS error behind a failed file-system call: its errno code (`ENOENT`) and its text, kept so that
 * a caller can word it as it always has (`describeOsError`, `osReason`, a test of the code).
 */
export interface OsError {
  readonly code: string | undefined
  readonly message: string
}

/** The calls of FileLoader's metadata and housekeeping operations, for the message's verb. */
export type FileOp = "stat" | "read" | "list" | "realPath" | "symlinks" | "write" | "remove"

interface Reasons {
  /** Nothing at the path (ENOENT). */
  NotFound: { path: string; op: FileOp; os: OsError }
  /** Any other refusal of a metadata or housekeeping call; `detail` is its description. */
  OsFailed: { path: string; op: FileOp; detail: string; os: OsError }
  /** The OS refused (missing file, not a directory, ...); `detail` is its description. */
  ReadFailed: { path: string; detail: string }
  PermissionDenied: { path: string; access: "read" | "write"; os?: OsError }
  IsDirectory: { path: string }
  IsSocket: { path: string }
  /** A FIFO no one writes to, read by a command that does not wait for a writer. */
  FifoNoWriter: { path: string }
  TooLarge: { path: string; limit: number }
  NotUtf8: { path: string }
  WriteFailed: { path: string; detail: string }
  /** Standard input could not be read, or held more or other than text lait accepts. */
  StdinFailed: { detail: string }
  /** A path's real path could not be found; `what` names it (`directory`, `test file`). */
  ResolveFailed: { path: string; what: string; detail: string }
  /** `what`: the directory's role when it has one (`cassette directory`). */
  ListFailed: { path: string; detail: string; what?: string }
  RemoveFailed: { path: string; detail: string }
}
export type FileErrorReason = TaggedUnion<Reasons>

const detailOf = (reason: FileErrorReason): string => {
  switch (reason._tag) {
    case "NotFound":
      return "no such file or directory"
    case "OsFailed":
    case "ReadFailed":
    case "WriteFailed":
    case "StdinFailed":
    case "ResolveFailed":
    case "ListFailed":
    case "RemoveFailed":
      return reason.detail
    case "PermissionDenied":
      return "permission denied"
    case "IsDirectory":
      return "is a directory"
    case "IsSocket":
      return "not a readable file (a socket)"
    case "FifoNoWriter":
      return "it is a FIFO with no writer"
    case "TooLarge":
      return `file contents exceed the configured read limit of ${reason.limit} bytes`
    case "NotUtf8":
      return "file contents were not valid UTF-8"
  }
}

const VERBS: Record<FileOp, string> = {
  stat: "read",
  read: "read",
  list: "read directory",
  realPath: "resolve",
  symlinks: "read",
  write: "write",
  remove: "remove"
}

const describe = (reason: FileErrorReason): string => {
  switch (reason._tag) {
    case "StdinFailed":
      return "failed to read from stdin"
    case "ResolveFailed":
      return `failed to resolve ${reason.what} '${reason.path}'`
    case "ListFailed":
      return `failed to read ${reason.what ?? "directory"} '${reason.path}'`
    case "RemoveFailed":
      return `failed to remove '${reason.path}'`
    case "NotFound":
    case "OsFailed":
      return `failed to ${VERBS[reason.op]} '${reason.path}'`
  }
  const write = reason._tag === "WriteFailed" || (reason._tag === "PermissionDenied" && reason.access === "write")
  return `failed to ${write ? "write" : "read"} '${reason.path}'`
}

/** `renderChain` prints why the file could not be used after the message. */
export class FileError extends ReasonError("FileError", { describe, cause: detailOf }) {
  /** Why the file could not be used. */
  get detail(): string {
    return detailOf(this.reason)
  }

  /**
   * The OS error behind the failure, shaped as the call threw it (an Error with its `code`), for the
   * callers that word OS errors themselves; a reason without one gives its detail.
   */
  get os(): Error & { readonly code?: string | undefined } {
    const os = "os" in this.reason ? this.reason.os : undefined
    return os === undefined ? new Error(this.detail) : Object.assign(new Error(os.message), { code: os.code })
  }
}

declare module "./errors.ts" {
  interface DomainErrors {
    readonly FileError: FileError
  }
}
