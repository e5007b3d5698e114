// The `lait chat` handler: the chat core (src/chat) behind the REPL loop (./repl.ts) on a line editor
// over stdin. Settings resolve once for the flags' model and again, cached, for each `/model NAME`.
import { Effect, Layer, Option } from "effect"
import { checkSessionName } from "../chat/session.ts"
import { type ChatSettings, resolveChatSettings } from "../chat/settings.ts"
import { makeChat } from "../chat/turn.ts"
import { LaitConfig } from "../config/LaitConfig.ts"
import { ArgumentError } from "../core/usageErrors.ts"
import type { ChatMessage } from "../model/types.ts"
import { RunUsage } from "../model/RunUsage.ts"
import { FileLoader } from "../platform/FileLoader.ts"
import { openLineEditor } from "../platform/lineEditor.ts"
import { RunTracer } from "../trace/RunTracer.ts"
import { chatOptionsOf } from "./chatFlags.ts"
import { type ReplBackend, runRepl } from "./repl.ts"
import type { replFlags } from "./replCommand.ts"
import type { Command } from "effect/cli"

type ReplFlags = Command.Command.Config.Infer<typeof replFlags>

/** The session file's text: one `{"role","content"}` line per message, as `--session` writes them. */
const sessionText = (messages: ReadonlyArray<ChatMessage>): string =>
  messages
    .filter((m) => m.role === "user" || m.role === "assistant")
    .map((m) => JSON.stringify({ role: m.role, content: typeof m.content === "string" ? m.content : "" }))
    .map((line) => `${line}\n`)
    .join("")

export const runChatRepl = (flags: ReplFlags) =>
  Effect.gen(function*() {
    if (Option.isSome(flags.system) && Option.isSome(flags.systemFile)) {
      return yield* new ArgumentError({
        reason: { _tag: "Conflict", flag: "--system <TEXT>", other: "--system-file <FILE>" }
      })
    }
    const config = yield* LaitConfig
    const loader = yield* FileLoader
    const options = {
      ...chatOptionsOf(flags),
      model: Option.getOrUndefined(flags.model),
      baseUrl: Option.getOrUndefined(flags.baseUrl),
      apiKey: Option.getOrUndefined(flags.apiKey)
    }
    const initial = yield* resolveChatSettings(options, config, loader)
    const resolved = new Map<string, ChatSettings>([[initial.model, initial]])
    const settingsFor = (model: string | undefined) =>
      Effect.suspend(() => {
        const known = resolved.get(model ?? initial.model)
        if (known !== undefined) return Effect.succeed(known)
        return Effect.tap(resolveChatSettings({ ...options, model }, config, loader), (s) =>
          Effect.sync(() => resolved.set(s.model, s)))
      })

    yield* Effect.scoped(Effect.gen(function*() {
      const chat = yield* makeChat
      const editor = yield* openLineEditor
      const backend: ReplBackend = {
        modelName: (state) => state.model ?? initial.model,
        turn: (state) =>
          Effect.gen(function*() {
            const settings = yield* settingsFor(state.model)
            const answer = yield* chat.turn({ ...settings, system: state.system }, state.messages)
            return answer.content
          }),
        save: (name, messages) =>
          Effect.gen(function*() {
            const path = yield* checkSessionName(name)
            yield* loader.writeAtomic(path, sessionText(messages))
            return path
          })
      }
      yield* runRepl(editor, backend, { model: undefined, system: initial.system, messages: [] })
    }))
  }).pipe(Effect.provide(Layer.mergeAll(RunUsage.layer, RunTracer.layer)))
