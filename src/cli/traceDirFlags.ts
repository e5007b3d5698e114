// `--trace-dir DIR` with `--trace-spans`/`--trace-content` (docs/traces.md#tests-and-evals): the flags
// `lait test` and `lait eval` share, and the rule that the two options need the directory.
import { Effect, Option } from "effect"
import { Flag } from "effect/cli"
import { ArgumentError } from "../core/usageErrors.ts"

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

/** `--trace-spans`/`--trace-content` given without `--trace-dir` is a usage error (exit 2). */
export const checkTraceDirFlags = (flags: {
  readonly traceDir: Option.Option<string>
  readonly traceSpans: Option.Option<boolean>
  readonly traceContent: Option.Option<boolean>
}) =>
  Effect.gen(function*() {
    const options = [[flags.traceSpans, "--trace-spans"], [flags.traceContent, "--trace-content"]] as const
    for (const [given, flag] of options) {
      if (Option.getOrUndefined(given) === true && Option.isNone(flags.traceDir)) {
        return yield* new ArgumentError({ reason: { _tag: "Requires", flag, needs: "--trace-dir <DIR>" } })
      }
    }
  })
