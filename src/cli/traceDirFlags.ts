// `--trace-dir DIR` with `--trace-spans`/`--trace-content` (docs/traces.md#tests-and-evals): the flags
// `lait test` and `lait eval` share, and the rule that the two options need the directory.
import { Flag } from "effect/cli"

// The check is its own module so that the lean `lait eval` path loads it without effect/cli.
export { checkTraceDirFlags } from "./traceDirCheck.ts"

/** `where`: what the flag's help says each file holds and is named. */
export const traceDirFlags = (where: string) => ({
  traceDir: Flag.String("trace-dir").pipe(Flag.withMetavar("DIR"), Flag.withDescription(where), Flag.optional),
  traceSpans: Flag.Boolean("trace-spans").pipe(
    Flag.withDescription("With --trace-dir: also the runs and steps as spans (overrides default.trace_spans)"),
    Flag.optional
  ),
  traceContent: Flag.Boolean("trace-content").pipe(
    Flag.withDescription("With --trace-dir: also prompts, answers and tool results, secrets masked"),
    Flag.optional
  )
})
