// Failures of an app under test (docs/apps.md): an `exec:` target that could not run or exited
// non-zero, an `http:` target that did not answer 2xx (or not JSON for `output_jq`), or either
// running past its timeout. The run says nothing about the model then: `lait test` and `lait eval`
// count it an ERROR, not a FAIL. Also `lait proxy`'s own, which an exec target's run proxy shares:
// it could not listen.
import { ReasonError, type TaggedUnion } from "../core/reasonError.ts"

interface Reasons {
  /** `cause`: the process layer's failure (the exit status and the end of its stderr). */
  ExecFailed: { target: string; cause: unknown }
  HttpFailed: { target: string; detail: string }
  TimedOut: { target: string; seconds: number }
  /** `address` as asked for (`--listen`); `detail` is the OS's reason. */
  ListenFailed: { address: string; detail: string }
}
export type AppErrorReason = TaggedUnion<Reasons>

const describe = (reason: AppErrorReason): string => {
  switch (reason._tag) {
    case "ExecFailed":
      return `exec target '${reason.target}' failed`
    case "HttpFailed":
      return `http target '${reason.target}' failed`
    case "TimedOut":
      return `target '${reason.target}' did not finish within ${reason.seconds} s`
    case "ListenFailed":
      return `failed to listen on ${reason.address}`
  }
}

export class AppError extends ReasonError("AppError", { describe }) {}

declare module "../core/errors.ts" {
  interface DomainErrors {
    readonly AppError: AppError
  }
}
