// The rule that `--trace-spans`/`--trace-content` need `--trace-dir` (src/cli/flags/trace.ts), for
// `lait test` and `lait eval`.
import { Effect, Option } from "effect"
import { ArgumentError } from "../core/usageErrors.ts"

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
