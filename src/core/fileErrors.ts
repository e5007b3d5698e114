// Failures of reading a user's file or writing one for the user, as one error class with a `reason`.
// The text is the one lait has always printed (`failed to read 'p': <why>`); every reason exits 1.
import { Schema } from "effect"

const path = Schema.String

// Suspended: the members are built when the first such error is made rather than in every process that
// loads this module, `lait --version` included (bench/README.md, start-up).
const Reason = Schema.suspend(() => Schema.Union([
  /** The OS refused (missing file, not a directory, ...); `detail` is its description. */
  Schema.TaggedStruct("ReadFailed", { path, detail: Schema.String }),
  Schema.TaggedStruct("PermissionDenied", { path, access: Schema.Literals(["read", "write"]) }),
  Schema.TaggedStruct("IsDirectory", { path }),
  Schema.TaggedStruct("IsSocket", { path }),
  /** A FIFO no one writes to, read by a command that does not wait for a writer. */
  Schema.TaggedStruct("FifoNoWriter", { path }),
  Schema.TaggedStruct("TooLarge", { path, limit: Schema.Number }),
  Schema.TaggedStruct("NotUtf8", { path }),
  Schema.TaggedStruct("WriteFailed", { path, detail: Schema.String }),
  /** Standard input could not be read, or held more or other than text lait accepts. */
  Schema.TaggedStruct("StdinFailed", { detail: Schema.String }),
  /** A path's real path could not be found; `what` names it (`directory`, `test file`). */
  Schema.TaggedStruct("ResolveFailed", { path, what: Schema.String, detail: Schema.String }),
  /** `what`: the directory's role when it has one (`cassette directory`). */
  Schema.TaggedStruct("ListFailed", { path, detail: Schema.String, what: Schema.optionalKey(Schema.String) }),
  Schema.TaggedStruct("RemoveFailed", { path, detail: Schema.String })
]))
export type FileErrorReason = typeof Reason.Type

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

export class FileError extends Schema.TaggedError<FileError>()("FileError", { reason: Reason }) {
  override get message(): string {
    switch (this.reason._tag) {
      case "StdinFailed":
        return "failed to read from stdin"
      case "ResolveFailed":
        return `failed to resolve ${this.reason.what} '${this.reason.path}'`
      case "ListFailed":
        return `failed to read ${this.reason.what ?? "directory"} '${this.reason.path}'`
      case "RemoveFailed":
        return `failed to remove '${this.reason.path}'`
    }
    const write = this.reason._tag === "WriteFailed" ||
      (this.reason._tag === "PermissionDenied" && this.reason.access === "write")
    return `failed to ${write ? "write" : "read"} '${this.reason.path}'`
  }

  /** Why the file could not be used. */
  get detail(): string {
    return detailOf(this.reason)
  }

  /** What `renderChain` prints after the message. */
  override get cause(): unknown {
    return this.detail
  }
}

declare module "./errors.ts" {
  interface DomainErrors {
    readonly FileError: FileError
  }
}
