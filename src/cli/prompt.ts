// `lait prompt list` and `lait prompt run NAME [INPUT]`: the config's `prompts:` registry
// (src/chat/prompts.ts). `run` renders the template with INPUT (or piped stdin) and `--var`s and
// sends it as one plain chat request labelled `prompt '<NAME>'`, with the prompt's `model:` or
// default.model; -o, --json, --render and --show-usage as for one-shot chat.
import { Console, Effect, Option } from "effect"
import { Argument, Command } from "effect/cli"
import { LaitConfig } from "../config/LaitConfig.ts"
import { formatUsage, RunUsage } from "../model/RunUsage.ts"
import { FileLoader } from "../platform/FileLoader.ts"
import { stdinIsTerminal } from "../platform/rawStdout.ts"
import { runMeters, withAskServices } from "./askServices.ts"
import { chatFlags } from "./chatFlags.ts"
import { configLayer } from "./config.ts"
import { printLine } from "./output.ts"

const list = Command.make("list", {}, () =>
  Effect.gen(function*() {
    const { config } = yield* LaitConfig
    const { sortedPromptNames } = yield* Effect.promise(() => import("../chat/prompts.ts"))
    const names = sortedPromptNames(config)
    if (names.length === 0) {
      return yield* printLine("no prompts defined in lait.config.yml; add a 'prompts:' entry to define one")
    }
    const line = (name: string) => {
      const model = config.prompts?.[name]?.model
      return model === undefined ? name : `${name}  (model: ${model})`
    }
    yield* printLine(names.map(line).join("\n"))
  })).pipe(
    Command.withDescription("List the prompts: entries of lait.config.yml"),
    Command.provide(configLayer())
  )

const run = Command.make(
  "run",
  {
    name: Argument.String("name").pipe(Argument.withDescription("A prompts: entry of lait.config.yml")),
    input: Argument.String("input").pipe(
      Argument.withDescription("The template's {{ input }}; '-' reads stdin (piped stdin is appended)"),
      Argument.optional
    ),
    var: chatFlags.var,
    output: chatFlags.output,
    json: chatFlags.json,
    render: chatFlags.render,
    showUsage: chatFlags.showUsage,
    noHistory: chatFlags.noHistory
  },
  Effect.fn("cli.prompt.run")(function*({ name, input, var: vars, output, json, render, showUsage, noHistory }) {
    const [prompts, { ChatError }, { resolveChatSettings }, { makeChat }, chatRun, run, runOutput, history] =
      yield* Effect.promise(() =>
        Promise.all([
          import("../chat/prompts.ts"),
          import("../chat/chatErrors.ts"),
          import("../chat/settings.ts"),
          import("../chat/turn.ts"),
          import("./chatRun.ts"),
          import("./runWorkflow.ts"),
          import("./runOutput.ts"),
          import("../history/record.ts")
        ])
      )
    const config = yield* LaitConfig
    const loader = yield* FileLoader
    const stdinIsTty = stdinIsTerminal()
    const given = yield* run.resolvePromptText(Option.getOrUndefined(input), stdinIsTty, loader.readStdin)
    if (given === undefined) return yield* new ChatError({ reason: { _tag: "PromptRequired", command: "prompt" } })
    const named = yield* prompts.renderNamedPrompt(name, given, vars, config.config)
    const model = [named.model, config.config.default?.model].find((m) => m !== undefined && m.trim() !== "")
    if (model === undefined) return yield* new ChatError({ reason: { _tag: "PromptModelRequired", name } })
    const label = `prompt '${name}'`
    const settings = yield* resolveChatSettings({ model, label, fromEnv: false }, config, loader)
    // A named prompt is one plain request: no system prompt, no tools (`-p` on chat has those).
    const plain = { ...settings, system: undefined, tools: {} }
    const path = Option.getOrUndefined(output)
    if (path !== undefined && path !== "-") yield* runOutput.checkResponseTarget(path)
    const answer = yield* Effect.scoped(
      Effect.flatMap(makeChat, (chat) => chat.turn(plain, [{ role: "user", content: named.text }]))
    )
    const usage = yield* RunUsage
    const totals = yield* usage.total
    const body = json ? chatRun.jsonAnswer(answer.content, null, totals, yield* usage.finishReason) : answer.content
    const emitted = yield* Effect.exit(
      chatRun.emitAnswer(body, path, !json && (render || (config.config.default?.render ?? false)))
    )
    if (showUsage) yield* Console.error(formatUsage(yield* usage.entries, totals))
    yield* emitted
    yield* history.recordHistory(
      { kind: "prompt", model, prompt: named.text, response: answer.content, usage: history.historyUsage(totals) },
      { noHistory }
    )
  }, (effect) => effect.pipe(Effect.provide(runMeters)))
).pipe(
  Command.withDescription("Render a prompts: entry with INPUT and send it to its model"),
  withAskServices
)

export const promptCommand = Command.make("prompt").pipe(
  Command.withDescription("List and run the named prompts of lait.config.yml (prompts:)"),
  Command.withSubcommands([list, run])
)
