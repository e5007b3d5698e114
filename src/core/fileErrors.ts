// Failures of reading a user's file or writing one for the user, as one error class with a `reason`.
// The text is the one lait has always printed (`failed to read 'p': <why>`); every reason exits 1.
import { ReasonError, type TaggedUnion } from "./reasonError.ts"

interface Reasons {
  /** The OS refused (missing file, not a directory, ...); `detail` is its description. */
  ReadFailed: { path: string; detail: string }
  PermissionDenied: { path: string; access: "read" | "write" }
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
}

declare module "./errors.ts" {
  interface DomainErrors {
    readonly FileError: FileError
  }
}
