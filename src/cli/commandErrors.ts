// Failures that belong to one command's own job (`run`'s prompt and `-o` file, `init`, `cache clear`)
// as one error class with a `reason`. `message` is the text lait has always printed; every reason
// exits 1 (core/errors.ts's table).
import { ReasonError, type TaggedUnion } from "../core/reasonError.ts"

interface Reasons {
  /** `lait run` got neither a PROMPT nor piped input, and the workflow declares no `inputs:`. */
  PromptRequired: {}
  /** `lait agent run` got neither an INPUT nor piped input. */
  InputRequired: {}
  /** `detail` is the OS's reason. */
  ResponseWriteFailed: { path: string; detail: string }
  /** `lait init` would overwrite `path`. */
  InitExists: { path: string }
  /** `lait cache clear` would delete through the symbolic link at `path`. */
  CacheSymlink: { path: string }
}
export type CommandErrorReason = TaggedUnion<Reasons>

export const PROMPT_REQUIRED = "a PROMPT is required; provide one or pipe input via stdin " +
  "(a workflow that declares 'inputs:' may be run without one)"

const describe = (reason: CommandErrorReason): string => {
  switch (reason._tag) {
    case "PromptRequired":
      return PROMPT_REQUIRED
    case "InputRequired":
      return "an INPUT is required; provide one or pipe input via stdin"
    case "ResponseWriteFailed":
      return `failed to write the response to '${reason.path}'`
    case "InitExists":
      return `'${reason.path}' already exists; refusing to overwrite it (move it aside or pass another PATH)`
    case "CacheSymlink":
      return `refusing to clear the cache: '${reason.path}' is a symbolic link, and nothing is deleted through one`
  }
}

export class CommandError extends ReasonError("CommandError", { describe }) {}

declare module "../core/errors.ts" {
  interface DomainErrors {
    readonly CommandError: CommandError
  }
}
