// `lait compare`'s work, loaded on demand by src/cli/compare.ts.
import { Clock, Effect, Exit } from "effect"
import { ChatError } from "../chat/chatErrors.ts"
import { type ChatOptions, resolveChatSettings } from "../chat/settings.ts"
import { makeChat, type TurnResult } from "../chat/turn.ts"
import type { LaitConfigService } from "../config/LaitConfig.ts"
import { type AnyLaitError, primaryError, renderChain } from "../core/errors.ts"
import type { FileLoaderService } from "../platform/FileLoader.ts"
import { stdinIsTerminal } from "../platform/rawStdout.ts"
import { costOf } from "../model/RunUsage.ts"
import { printLine } from "./output.ts"
import { resolvePromptText } from "./runWorkflow.ts"

export interface CompareRequest {
  readonly models: ReadonlyArray<string>
  readonly prompt: string | undefined
  readonly options: ChatOptions
  readonly format: "text" | "json" | "markdown"
}

interface Outcome {
  readonly model: string
  readonly model_id: string | null
  readonly duration_ms: number
  readonly usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number } | null
  /** `usage` at the answering model's `pricing:` rates; null without either (never 0 for "unpriced"). */
  readonly cost_usd: number | null
  readonly content: string | null
  readonly error: string | null
}

const usageText = (u: NonNullable<Outcome["usage"]>, cost: number | null) =>
  `prompt=${u.prompt_tokens} completion=${u.completion_tokens} total=${u.total_tokens}` +
  (cost === null ? "" : ` ($${cost.toFixed(4)})`)

const textReport = (outcomes: ReadonlyArray<Outcome>): string =>
  outcomes.map((o) =>
    [
      `=== ${o.model}${o.model_id === null ? "" : ` (${o.model_id})`} ===`,
      `time: ${o.duration_ms}ms`,
      ...(o.error !== null
        ? [`error: ${o.error}`]
        : [...(o.usage === null ? [] : [`usage: ${usageText(o.usage, o.cost_usd)}`]), o.content ?? ""])
    ].join("\n")
  ).join("\n\n")

const markdownReport = (outcomes: ReadonlyArray<Outcome>): string =>
  outcomes.map((o) =>
    [
      `## ${o.model}${o.model_id === null ? "" : ` (\`${o.model_id}\`)`}`,
      "",
      `_${o.duration_ms} ms${o.usage === null ? "" : `, ${usageText(o.usage, o.cost_usd)}`}_`,
      "",
      o.error !== null ? `**error:** ${o.error}` : (o.content ?? "")
    ].join("\n")
  ).join("\n\n")

export const runCompare = (request: CompareRequest, config: LaitConfigService, loader: FileLoaderService) =>
  Effect.gen(function*() {
    if (request.models.length < 2) return yield* new ChatError({ reason: { _tag: "CompareTooFew" } })
    const prompt = yield* resolvePromptText(request.prompt, stdinIsTerminal(), loader.readStdin)
    if (prompt === undefined) return yield* new ChatError({ reason: { _tag: "PromptRequired", command: "compare" } })
    const outcomes = yield* Effect.scoped(Effect.gen(function*() {
      const chat = yield* makeChat
      return yield* Effect.forEach(request.models, (model) =>
        Effect.gen(function*() {
          const start = yield* Clock.currentTimeMillis
          // Each model under its own usage label.
          const resolved = yield* Effect.exit(
            resolveChatSettings({ ...request.options, model, label: model }, config, loader)
          )
          const exit: Exit.Exit<TurnResult, AnyLaitError> = Exit.isSuccess(resolved)
            ? yield* Effect.exit(chat.turn(resolved.value, [{ role: "user", content: prompt }]))
            : Exit.failCause(resolved.cause)
          const duration = (yield* Clock.currentTimeMillis) - start
          const modelId = Exit.isSuccess(resolved) ? resolved.value.endpoints[0].modelId : null
          if (Exit.isSuccess(exit)) {
            const answer = exit.value
            const { usage, endpoint } = answer.result
            return {
              model,
              model_id: endpoint.modelId,
              duration_ms: duration,
              usage: usage ?? null,
              cost_usd: usage === undefined || endpoint.pricing === undefined
                ? null
                : costOf(usage.prompt_tokens, usage.completion_tokens, endpoint.pricing),
              content: answer.content,
              error: null
            } satisfies Outcome
          }
          const error = primaryError(exit.cause)
          return {
            model,
            model_id: modelId,
            duration_ms: duration,
            usage: null,
            cost_usd: null,
            content: null,
            error: error === undefined ? "interrupted" : renderChain(error)
          } satisfies Outcome
        }), { concurrency: "unbounded" })
    }))
    yield* printLine(
      request.format === "json"
        ? JSON.stringify(outcomes)
        : request.format === "markdown"
        ? markdownReport(outcomes)
        : textReport(outcomes)
    )
    const failed = outcomes.filter((o) => o.error !== null).length
    if (failed > 0) return yield* new ChatError({ reason: { _tag: "CompareFailed", failed, total: outcomes.length } })
  })
