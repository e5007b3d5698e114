// The `lait chat` handler: the chat core (src/chat) behind the REPL loop (./repl.ts) on a line editor
// over stdin. Settings resolve on first use, so `lait chat` with no model at all starts and `/model
// NAME` can name one before the first question; they are cached per model. Each answered turn is
// appended to `--session` and recorded in the history with its own usage (the meter runs for the
// whole conversation: a turn's usage is the difference across it).
import { Console, Effect, Layer, Option } from "effect"
import { ChatError } from "../chat/chatErrors.ts"
import {
  appendTurn,
  checkTurnFits,
  loadSession,
  saveSession,
  sessionMessages,
  sessionSystem,
  sessionText
} from "../chat/session.ts"
import { type ChatSettings, resolveChatSettings, systemPrompt } from "../chat/settings.ts"
import { makeChat } from "../chat/turn.ts"
import { LaitConfig } from "../config/LaitConfig.ts"
import { ArgumentError } from "../core/usageErrors.ts"
import { historyUsage, recordHistory } from "../history/record.ts"
import { RecordHint } from "../model/recordHint.ts"
import { UsageWanted } from "../model/streamSink.ts"
import { formatUsage, RunUsage, type UsageTotals } from "../model/RunUsage.ts"
import { FileLoader } from "../platform/FileLoader.ts"
import { openLineEditor } from "../platform/lineEditor.ts"
import { RunTracer } from "../trace/RunTracer.ts"
import { chatOptionsOf } from "./chatFlags.ts"
import { replRecordHint } from "./recordHints.ts"
import { type ReplBackend, runRepl } from "./repl.ts"
import type { replFlags } from "./replFlags.ts"
import type { Command } from "effect/cli"
import { redact } from "../core/redaction.ts"

type ReplFlags = Command.Command.Config.Infer<typeof replFlags>

const difference = (after: UsageTotals, before: UsageTotals) => ({
  prompt: after.prompt - before.prompt,
  completion: after.completion - before.completion,
  total: after.total - before.total,
  requests: after.requests - before.requests
})

export const runChatRepl = (flags: ReplFlags) =>
  Effect.gen(function*() {
    if (Option.isSome(flags.system) && Option.isSome(flags.systemFile)) {
      return yield* new ArgumentError({
        reason: { _tag: "Conflict", flag: "--system <TEXT>", other: "--system-file <FILE>" }
      })
    }
    const config = yield* LaitConfig
    const loader = yield* FileLoader
    const usage = yield* RunUsage
    const options = {
      ...chatOptionsOf(flags),
      model: Option.getOrUndefined(flags.model),
      baseUrl: Option.getOrUndefined(flags.baseUrl),
      apiKey: Option.getOrUndefined(flags.apiKey)
    }
    // Resolved now so that a bad flag or config still fails at once; only a missing model waits.
    const initial = yield* resolveChatSettings(options, config, loader).pipe(
      Effect.catchIf(
        (e): e is ChatError => e._tag === "ChatError" && e.reason._tag === "ModelRequired",
        () => Effect.succeed(undefined)
      )
    )
    const configured = initial !== undefined ? initial.system : yield* systemPrompt(options, config, loader)
    const session = Option.getOrUndefined(flags.session)
    const stored = session === undefined ? [] : yield* loadSession(session)
    const earlier = sessionMessages(stored)
    // A session saved with `/save` brings its system prompt back; --system/--system-file still win.
    const flagged = Option.isSome(flags.system) || Option.isSome(flags.systemFile)
    const system = flagged ? configured : sessionSystem(stored) ?? configured
    const usageAsked = flags.showUsage || Option.isSome(flags.record)
    /** Questions sent so far, for `/usage`'s hint. */
    let questions = 0
    const resolved = new Map<string, ChatSettings>(initial === undefined ? [] : [[initial.model, initial]])
    const settingsFor = (model: string | undefined) =>
      Effect.suspend(() => {
        const known = resolved.get(model ?? initial?.model ?? "")
        if (known !== undefined) return Effect.succeed(known)
        return Effect.tap(resolveChatSettings({ ...options, model }, config, loader), (s) =>
          Effect.sync(() => resolved.set(s.model, s)))
      })

    yield* Effect.scoped(Effect.gen(function*() {
      const chat = yield* makeChat
      const editor = yield* openLineEditor
      const backend: ReplBackend = {
        modelName: (state) => state.model ?? initial?.model,
        turn: (state) =>
          Effect.gen(function*() {
            const settings = yield* settingsFor(state.model)
            const question = state.messages.at(-1)
            const prompt = typeof question?.content === "string" ? question.content : ""
            if (session !== undefined) yield* checkTurnFits(session, prompt)
            const before = yield* usage.total
            questions++
            const answer = yield* chat.turn({ ...settings, system: state.system }, state.messages)
            const after = yield* usage.total
            const finish = Effect.gen(function*() {
              if (flags.showUsage) yield* Console.error(formatUsage(yield* usage.entries, after))
              if (session !== undefined) yield* appendTurn(session, prompt, answer.content)
              yield* recordHistory({
                kind: "chat",
                model: settings.model,
                prompt,
                response: answer.content,
                usage: historyUsage(difference(after, before))
              }, { noHistory: flags.noHistory })
            }).pipe(Effect.provideService(LaitConfig, config), Effect.provideService(FileLoader, loader))
            return { content: answer.content, finish }
          }),
        usage: Effect.gen(function*() {
          const total = yield* usage.total
          const text = formatUsage(yield* usage.entries, total)
          // A stream reports its tokens only when asked (docs/repl.md#streaming); say how to ask.
          return questions === 0 || total.requests > 0 || usageAsked
            ? text
            : `${text}; start lait chat with --show-usage to count them`
        }),
        save: (name, system, messages) =>
          Effect.gen(function*() {
            return yield* saveSession(name, redact(sessionText(system, messages)))
          })
      }
      yield* runRepl(editor, backend, { model: undefined, system, messages: earlier }, {
        showReasoning: flags.showReasoning
      })
    }))
  }).pipe(
    Effect.provide(Layer.mergeAll(RunUsage.layer, RunTracer.layer)),
    Effect.provideService(RecordHint, replRecordHint),
    // The streamed answers report their tokens only when something reads them (a cassette keeps them).
    Effect.provideService(UsageWanted, flags.showUsage || Option.isSome(flags.record))
  )
