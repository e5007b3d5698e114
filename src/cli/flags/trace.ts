// The trace group (docs/traces.md): `--trace-file PATH` for a command that runs once, `--trace-dir DIR`
// for `lait test` and `lait eval` (a file per test file or run), and what the trace also holds
// (`--trace-spans`, `--trace-content`). Declared once here; each command composes the flags it takes.
import { Flag } from "effect/cli"
import { valueFlag, type ValueFlagMaker } from "./make.ts"

// The check is its own module so that the lean `lait eval` path loads it without effect/cli.
export { checkTraceDirFlags } from "../traceDirCheck.ts"

/** `--trace-file PATH`; `description` says what the command writes and when. */
export const traceFileFlag = (description: string, make: ValueFlagMaker = valueFlag) =>
  make("trace-file", "PATH", description)

/** Optional booleans: given, they override the config's `default.trace_spans` / `default.trace_content`. */
export const traceSpansFlag = (description: string) =>
  Flag.Boolean("trace-spans").pipe(Flag.withDescription(description), Flag.optional)

export const traceContentFlag = (description: string) =>
  Flag.Boolean("trace-content").pipe(Flag.withDescription(description), Flag.optional)

/** `--trace-dir DIR` with `--trace-spans`/`--trace-content`; `where`: what each file holds and is named. */
export const traceDirFlags = (where: string) => ({
  traceDir: valueFlag("trace-dir", "DIR", where),
  traceSpans: traceSpansFlag("With --trace-dir: also the runs and steps as spans (overrides default.trace_spans)"),
  traceContent: traceContentFlag("With --trace-dir: also prompts, answers and tool results, secrets masked")
})
