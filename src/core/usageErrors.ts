// Command lines lait cannot act on, beyond what the CLI parser rejects itself, as one error class with
// a `reason`. The text is upstream's (clap-style for flag conflicts); every reason exits 2.
import { Schema } from "effect"

// Suspended: the members are built when the first such error is made rather than in every process that
// loads this module, `lait --version` included (bench/README.md, start-up).
const Reason = Schema.suspend(() => Schema.Union([
  /** Two flags that exclude each other were both given; `flag`/`other` as shown (`--config <PATH>`). */
  Schema.TaggedStruct("Conflict", { flag: Schema.String, other: Schema.String }),
  /** `flag` is meaningful only with `needs`. */
  Schema.TaggedStruct("Requires", { flag: Schema.String, needs: Schema.String }),
  Schema.TaggedStruct("InvalidValue", { flag: Schema.String, value: Schema.String, expected: Schema.String }),
  /** An environment variable that must hold an integer in a range. */
  Schema.TaggedStruct("EnvOutOfRange", {
    name: Schema.String,
    raw: Schema.String,
    min: Schema.Number,
    max: Schema.Number
  }),
  /** `--input` that is not `KEY=VALUE`, or whose key is empty. */
  Schema.TaggedStruct("BadInputFlag", { arg: Schema.String, problem: Schema.Literals(["no-equals", "empty-key"]) })
]))
export type ArgumentErrorReason = typeof Reason.Type

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
  }
}

/** Exit 2, as the parser's own usage errors. */
export class ArgumentError extends Schema.TaggedError<ArgumentError>()("ArgumentError", { reason: Reason }) {
  override get message(): string {
    return describe(this.reason)
  }
}

declare module "./errors.ts" {
  interface DomainErrors {
    readonly ArgumentError: ArgumentError
  }
}
