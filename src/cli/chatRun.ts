// One-shot chat, `lait [FLAGS] PROMPT`: the root command's handler, loaded on demand (root.ts) so
// that other commands never load it. One turn of the chat core (src/chat) with this invocation's
// model client (live, --cache, --record, --replay), usage meter and tracer; the answer on stdout (or
// -o), reasoning and usage notes on stderr, the exchange appended to --session.
import { Cause, Console, Effect, Exit, identity, Layer, Option } from "effect"
import { appendTurn, checkTurnFits, loadSession, sessionMessages, sessionSystem } from "../chat/session.ts"
import { ChatError } from "../chat/chatErrors.ts"
import { renderNamedPrompt } from "../chat/prompts.ts"
import { resolveChatSettings } from "../chat/settings.ts"
import { makeChat, type TurnResult } from "../chat/turn.ts"
import { LaitConfig } from "../config/LaitConfig.ts"
import { type OutputError, renderChain } from "../core/errors.ts"
import { traceWritten } from "../core/tracing.ts"
import { ArgumentError } from "../core/usageErrors.ts"
import { ModelError, ResponsesUnsupported } from "../model/ModelError.ts"
import { RecordHint } from "../model/recordHint.ts"
import { UsageWanted } from "../model/streamSink.ts"
import { formatUsage, RunUsage, type UsageTotals } from "../model/RunUsage.ts"
import { FileLoader } from "../platform/FileLoader.ts"
import { ApproveTools } from "../tools/ApproveTools.ts"
import { RunTracer } from "../trace/RunTracer.ts"
import { loadAttachments, userMessage } from "../workflow/attachments.ts"
import { chatOptionsOf, type ChatFlagValues } from "./chatFlags.ts"
import type { CommandError } from "./commandErrors.ts"
import { renderMarkdown } from "./markdown.ts"
import { printLine } from "./output.ts"
import { chatRecordHint } from "./recordHints.ts"
import { resolvePromptText } from "./runWorkflow.ts"
import { checkResponseTarget, writeResponse, writeTraceAfter } from "./runOutput.ts"
import { streamToStdout } from "./streamOutput.ts"
import { historyUsage, recordHistory } from "../history/record.ts"
import { stdoutStream } from "../platform/stdStreams.ts"
import { stdinIsTerminal } from "../platform/rawStdout.ts"

/**
 * `{"content","reasoning","usage","finish_reason"}`, usage null when no request reported any,
 * finish_reason as the run's usage meter has it (`length` when an answer was cut off).
 */
export const jsonAnswer = (
  content: string,
  reasoning: string | null,
  totals: UsageTotals,
  finishReason: string | null
): string =>
  JSON.stringify({
    content,
    reasoning,
    usage: totals.requests === 0
      ? null
      : { prompt_tokens: totals.prompt, completion_tokens: totals.completion, total_tokens: totals.total },
    finish_reason: finishReason
  })

/** Writes the answer to `-o PATH` or stdout; `render` applies only to stdout on a terminal. */
export const emitAnswer = (
  body: string,
  path: string | undefined,
  render: boolean
): Effect.Effect<void, CommandError | OutputError> =>
  path !== undefined && path !== "-"
    ? writeResponse(path, body)
    : printLine(render && stdoutStream().isTTY === true ? renderMarkdown(body) : body)

const get = <A>(o: Option.Option<A>): A | undefined => Option.getOrUndefined(o)

export const runOneShot = (flags: ChatFlagValues) =>
  Effect.gen(function*() {
    if (Option.isSome(flags.system) && Option.isSome(flags.systemFile)) {
      return yield* new ArgumentError({
        reason: { _tag: "Conflict", flag: "--system <TEXT>", other: "--system-file <FILE>" }
      })
    }
    if (flags.stream && flags.json) {
      return yield* new ArgumentError({ reason: { _tag: "Conflict", flag: "--stream", other: "--json" } })
    }
    if (Option.isSome(flags.schemaName) && Option.isNone(flags.jsonSchema)) {
      return yield* new ArgumentError({
        reason: { _tag: "Requires", flag: "--schema-name <NAME>", needs: "--json-schema <FILE>" }
      })
    }
    const config = yield* LaitConfig
    const loader = yield* FileLoader
    const given = yield* resolvePromptText(get(flags.prompt), stdinIsTerminal(), loader.readStdin)
    if (given === undefined) return yield* new ChatError({ reason: { _tag: "PromptRequired", command: "chat" } })
    const promptName = get(flags.promptName)
    const named = promptName === undefined
      ? undefined
      : yield* renderNamedPrompt(promptName, given, flags.var, config.config)
    const settings = yield* resolveChatSettings({
      ...chatOptionsOf(flags),
      model: get(flags.model),
      modelFallback: named?.model,
      baseUrl: get(flags.baseUrl),
      apiKey: get(flags.apiKey),
      jsonSchema: get(flags.jsonSchema),
      schemaName: get(flags.schemaName)
    }, config, loader)
    // The Responses API answers whole: asked for a stream, lait refuses, as the original does.
    const primary = settings.endpoints[0]
    if (flags.stream && primary.api === "responses") {
      const remedy = "drop --stream (the answer then prints whole) or use a chat_completions model"
      const reason = new ResponsesUnsupported({ modelId: primary.modelId, feature: "streaming (--stream)", remedy })
      return yield* new ModelError({ reason })
    }
    const attached = yield* loadAttachments(flags.file, flags.image, config.cwd)
    const text = named?.text ?? given
    // What a session stores: the text sent (text attachments included), not the PDF or image parts.
    const stored = attached.blocks.length === 0 ? text : `${text}\n\n${attached.blocks.join("\n\n")}`
    const session = get(flags.session)
    const saved = session === undefined ? [] : yield* loadSession(session)
    const history = sessionMessages(saved)
    // A session saved with the REPL's `/save` keeps its system prompt; --system/--system-file win.
    const flagged = Option.isSome(flags.system) || Option.isSome(flags.systemFile)
    const savedSystem = flagged ? undefined : sessionSystem(saved)
    // A turn the session could not store (or read back) is refused before it is paid for.
    if (session !== undefined) yield* checkTurnFits(session, stored)

    const output = get(flags.output)
    if (output !== undefined && output !== "-") yield* checkResponseTarget(output)
    const tracePath = get(flags.traceFile)
    const trace = tracePath === undefined ? undefined : yield* Effect.promise(() => import("../trace/write.ts"))
    if (trace !== undefined && tracePath !== undefined) yield* trace.checkTraceTarget(tracePath)
    const apiKey = get(flags.apiKey)
    const writeTrace = (outcome: "succeeded" | "failed" | "interrupted") =>
      trace === undefined || tracePath === undefined ? Effect.void : trace.writeRunTrace(tracePath, {
        spans: false,
        outcome,
        secrets: [...trace.configSecrets(config.config, config.env), ...(apiKey === undefined ? [] : [apiKey])]
      })

    // --stream prints to stdout as the answer arrives; an answer for -o PATH is written whole.
    const streamed = flags.stream && (output === undefined || output === "-") ? streamToStdout(flags) : undefined
    const answer: TurnResult = yield* Effect.scoped(
      Effect.flatMap(makeChat, (chat) =>
        chat.turn(savedSystem === undefined ? settings : { ...settings, system: savedSystem }, [
          ...history,
          userMessage(text, attached)
        ]))
    ).pipe(
      streamed === undefined ? identity : streamed.provide,
      Effect.provideService(ApproveTools, flags.approveTools),
      // Checked as a workflow's output_schema checks its answer; what is printed is the JSON alone.
      Effect.flatMap((turn) => {
        const format = settings.responseFormat
        const schemaFile = get(flags.jsonSchema)
        return format === null || schemaFile === undefined ? Effect.succeed(turn) : Effect.map(
          Effect.flatMap(
            Effect.promise(() => import("../chat/structuredAnswer.ts")),
            (structured) => structured.checkStructuredAnswer(turn.content, format, schemaFile)
          ),
          (content) => ({ ...turn, content })
        )
      }),
      traceWritten(tracePath !== undefined),
      Effect.onExit((exit) =>
        Exit.isSuccess(exit)
          ? Effect.void
          : writeTrace(Cause.hasInterruptsOnly(exit.cause) ? "interrupted" : "failed").pipe(
            Effect.catch((e) => Console.error(`warning: ${renderChain(e)}`))
          )
      )
    )

    const usage = yield* RunUsage
    const totals = yield* usage.total
    const quiet = flags.quiet
    const showReasoning = flags.showReasoning && !quiet && answer.reasoning !== null
    const toFile = output !== undefined && output !== "-"
    let body: string
    if (streamed !== undefined) {
      body = ""
    } else if (flags.json) {
      body = jsonAnswer(answer.content, answer.reasoning, totals, yield* usage.finishReason)
    } else if (showReasoning && !toFile) {
      body = `Reasoning:\n${answer.reasoning}\n\n${answer.content}`
    } else {
      body = answer.content
    }
    if (showReasoning && toFile && !flags.json) yield* Console.error(`Reasoning:\n${answer.reasoning}\n`)
    const render = flags.render || (config.config.default?.render ?? false)
    const emitted = yield* Effect.exit(
      streamed !== undefined ? Effect.void : emitAnswer(body, output, render && !flags.json)
    )
    if (Exit.isSuccess(emitted) && session !== undefined) yield* appendTurn(session, stored, answer.content)
    const historyRecord = { model: settings.model, prompt: text, response: answer.content, usage: historyUsage(totals) }
    if (flags.showUsage && !quiet) yield* Console.error(formatUsage(yield* usage.entries, totals))
    yield* writeTraceAfter(trace === undefined ? undefined : writeTrace("succeeded"), emitted)
    yield* emitted
    // Only a chat that succeeded all the way (its answer delivered, its trace written) is history.
    yield* recordHistory({ kind: "chat", ...historyRecord }, { noHistory: flags.noHistory })
  }).pipe(
    Effect.provide(Layer.mergeAll(RunUsage.layer, RunTracer.layer)),
    Effect.provideService(RecordHint, chatRecordHint),
    // A streamed answer reports its tokens only when something reads them (a cassette keeps them).
    Effect.provideService(UsageWanted, flags.showUsage || Option.isSome(flags.record))
  )
