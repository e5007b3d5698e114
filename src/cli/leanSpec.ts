// What the lean reader (src/cli/leanArgs.ts) knows of a command's flags and arguments: the data of
// src/cli/leanSpec.generated.json, taken from the command tree by scripts/gen-lean-spec.ts (run by
// build.ts; do not edit the file; test/cli/leanSpec.test.ts fails when it is stale). Plain data, so
// that src/main.ts can read a command line before Effect or effect/cli is loaded.
import generated from "./leanSpec.generated.json" with { type: "json" }

/** How effect/cli reads a flag's value: `integer` is Flag.Int, `number` Flag.Finite, `choice` Flag.Literals. */
export type LeanFlagType = "string" | "boolean" | "integer" | "number" | "choice"

export interface LeanFlagSpec {
  /** The key of the command's input (or the global flag's setting id). */
  readonly key: string
  readonly name: string
  readonly aliases?: ReadonlyArray<string>
  readonly type: LeanFlagType
  readonly choices?: ReadonlyArray<string>
  /** A boolean that `--no-NAME` sets to false. */
  readonly negatable?: boolean
  /** An absent optional flag is Option.none(), a given one Option.some(value). */
  readonly option?: boolean
  /** Given any number of times; the value is the array of every value in order. */
  readonly repeated?: boolean
  /** The value when the flag is absent (undefined for an optional one). */
  readonly default?: unknown
}

export interface LeanArgumentSpec {
  readonly key: string
  /** An absent optional argument is Option.none(). */
  readonly optional: boolean
}

export type LeanCommandName = "run" | "eval"

export interface LeanCommandSpec {
  readonly name: LeanCommandName
  readonly arguments: ReadonlyArray<LeanArgumentSpec>
  readonly flags: ReadonlyArray<LeanFlagSpec>
  readonly subcommands: ReadonlyArray<string>
}

export interface LeanSpec {
  readonly commands: ReadonlyArray<LeanCommandSpec>
  readonly globals: ReadonlyArray<LeanFlagSpec>
  /** What the lean reader leaves to effect/cli. */
  readonly leftToCli: {
    /** Flags whose handling is effect/cli's own (a terminal prompt). */
    readonly flags: ReadonlyArray<string>
    /** Environment variables that, set, send every command line through the command tree. */
    readonly environment: ReadonlyArray<string>
    /** Pairs of global flags that conflict: src/cli/app.ts reports them. */
    readonly conflicts: ReadonlyArray<readonly [string, string]>
  }
}

/** The generated spec; its shape is checked by test/cli/leanSpec.test.ts against the generator's. */
export const LEAN_SPEC = generated as unknown as LeanSpec
