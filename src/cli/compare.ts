// `lait compare --model A --model B … [PROMPT]`: the same prompt to every model at once, the answers
// side by side: one section per model (text), `--markdown`, or a `--json` array of
// `{model, model_id, duration_ms, usage, content, error}`. A model that fails shows its error in its
// place; any failure makes the exit code 1 after everything is printed.
import { Effect, Option } from "effect"
import { Argument, Command } from "effect/cli"
import { LaitConfig } from "../config/LaitConfig.ts"
import { ArgumentError } from "../core/usageErrors.ts"
import { FileLoader } from "../platform/FileLoader.ts"
import { chatOptionsOf, samplingFlags, systemFlags, toolFlags } from "./chatFlags.ts"
import { runMeters, withAskServices } from "./askServices.ts"
import { bareSwitchFlag, repeatedFlag } from "./flags/make.ts"

export const compareCommand = Command.make(
  "compare",
  {
    model: repeatedFlag("model", "MODEL", "A model alias or id to ask (give two or more)"),
    ...samplingFlags,
    ...systemFlags,
    ...toolFlags,
    json: bareSwitchFlag("json", "Print a JSON array, one object per model"),
    markdown: bareSwitchFlag("markdown", "Print a Markdown document, one section per model"),
    prompt: Argument.String("prompt").pipe(
      Argument.withDescription("What to ask; '-' reads stdin (piped stdin is appended to PROMPT)"),
      Argument.optional
    )
  },
  Effect.fn("cli.compare")(function*(flags) {
    if (flags.json && flags.markdown) {
      return yield* new ArgumentError({ reason: { _tag: "Conflict", flag: "--json", other: "--markdown" } })
    }
    if (Option.isSome(flags.system) && Option.isSome(flags.systemFile)) {
      return yield* new ArgumentError({
        reason: { _tag: "Conflict", flag: "--system <TEXT>", other: "--system-file <FILE>" }
      })
    }
    const { runCompare } = yield* Effect.promise(() => import("./compareRun.ts"))
    const config = yield* LaitConfig
    const loader = yield* FileLoader
    return yield* runCompare({
      models: flags.model,
      prompt: Option.getOrUndefined(flags.prompt),
      options: chatOptionsOf(flags),
      format: flags.json ? "json" : flags.markdown ? "markdown" : "text"
    }, config, loader)
  }, (effect) => effect.pipe(Effect.provide(runMeters)))
).pipe(
  Command.withDescription("Ask several models the same prompt at once and print the answers side by side"),
  withAskServices
)
