// Command lines lait cannot act on, beyond what the CLI parser rejects itself, as one error class with
// a `reason`. The text is upstream's (clap-style for flag conflicts); every reason exits 2.
import { ReasonError, type TaggedUnion } from "./reasonError.ts"

interface Reasons {
  /** Two flags that exclude each other were both given; `flag`/`other` as shown (`--config <PATH>`). */
  Conflict: { flag: string; other: string }
  /** `flag` is meaningful only with `needs`. */
  Requires: { flag: string; needs: string }
  InvalidValue: { flag: string; value: string; expected: string }
  /** An environment variable that must hold an integer in a range. */
  EnvOutOfRange: { name: string; raw: string; min: number; max: number }
  /** `--input` that is not `KEY=VALUE`, or whose key is empty. */
  BadInputFlag: { arg: string; problem: "no-equals" | "empty-key" }
  /** `--header` that cannot be sent; `problem` never quotes the value (it may be a secret). */
  BadHeaderFlag: { problem: string }
  /** Neither of the arguments one of which the command needs; `expected` names them. */
  Missing: { expected: string }
}
export type ArgumentErrorReason = TaggedUnion<Reasons>

const describe = (reason: ArgumentErrorReason): string => {
  switch (reason._tag) {
    case "Conflict":
      return `the argument '${reason.flag}' cannot be used with '${reason.other}'`
    case "Requires":
      return `the argument '${reason.flag}' requires '${reason.needs}'`
    case "InvalidValue":
      return `invalid value '${reason.value}' for '${reason.flag}': expected ${reason.expected}`
    case "EnvOutOfRange":
      return `invalid ${reason.name} "${reason.raw}": expected an integer from ${reason.min} to ${reason.max}`
    case "BadInputFlag":
      return `invalid --input ${JSON.stringify(reason.arg)}: ` +
        (reason.problem === "no-equals" ? "expected KEY=VALUE" : "the key is empty")
    case "BadHeaderFlag":
      return `invalid --header: ${reason.problem}`
    case "Missing":
      return `${reason.expected} is required`
  }
}

/** Exit 2, as the parser's own usage errors. */
export class ArgumentError extends ReasonError("ArgumentError", { describe }) {}

declare module "./errors.ts" {
  interface DomainErrors {
    readonly ArgumentError: ArgumentError
  }
}
