// `recordHistory`: the one call every command that runs a model (run, chat, prompt, agent) makes once
// its result is out, to append the run to `lait history`. It is the one place that honours
// `--no-history` and `default.history: false`, and that masks every credential the configuration and
// environment hold, and every key an `api_key_cmd` gave, out of the prompt and the response (a tool
// that prints the environment puts the key into the answer). Never fails: the run already succeeded
// and its output is printed, so a history that cannot be written (a read-only home, a full disk) is a
// warning, not a failed run.
// Light on purpose (the store, the secrets and the path are loaded on first use): commands import it
// statically, and `lait --version` must not pay for it.
import { Console, Effect } from "effect"
import { LaitConfig } from "../config/LaitConfig.ts"
import { renderChain } from "../core/errors.ts"
import { knownSecrets } from "../core/redaction.ts"
import type { FileLoader } from "../platform/FileLoader.ts"
import type { HistoryKind, HistoryUsage } from "./entry.ts"

export interface RunRecord {
  readonly kind: HistoryKind
  /** The one model of a chat, agent or prompt run; null for a workflow. */
  readonly model: string | null
  readonly prompt: string
  readonly response: string
  /** Over the whole run; null when the server reported none (or nothing was asked). */
  readonly usage: HistoryUsage | null
  /** The workflow file, for `lait run`. */
  readonly workflow?: string
}

/** Token totals as the run meter keeps them, as the history stores them (null: no request counted). */
export const historyUsage = (
  totals: { readonly prompt: number; readonly completion: number; readonly total: number; readonly requests: number }
): HistoryUsage | null =>
  totals.requests === 0
    ? null
    : { prompt_tokens: totals.prompt, completion_tokens: totals.completion, total_tokens: totals.total }

/** Appends `run` to the history unless `noHistory` (the command's `--no-history`) or `default.history: false`. */
export const recordHistory = (
  run: RunRecord,
  options: { readonly noHistory: boolean }
): Effect.Effect<void, never, LaitConfig | FileLoader> =>
  Effect.gen(function*() {
    const { config, env } = yield* LaitConfig
    if (options.noHistory || config.default?.history === false) return
    const [store, entry, { configSecrets }, { redactSecrets }, { DUMMY_API_KEY }, { resolvedApiKeyCmdKeys }] =
      yield* Effect.promise(() =>
        Promise.all([
          import("./store.ts"),
          import("./entry.ts"),
          import("../trace/content.ts"),
          import("../core/secrets.ts"),
          import("../config/endpoints.ts"),
          import("../config/apiKeyCmd.ts")
        ])
      )
    // With every other secret the run learnt (src/core/redaction.ts): a workflow's keys, OTLP headers.
    const secrets = [...configSecrets(config, env), ...resolvedApiKeyCmdKeys(), ...knownSecrets()]
    const mask = (text: string) => redactSecrets(text, secrets, [DUMMY_API_KEY])
    const path = yield* store.historyPath(env)
    yield* store.appendEntry(path, {
      timestamp: entry.timestampOf(new Date()),
      kind: run.kind,
      model: run.model,
      prompt: mask(run.prompt),
      response: mask(run.response),
      usage: run.usage,
      ...(run.workflow === undefined ? {} : { workflow: run.workflow })
    })
  }).pipe(Effect.catch((e) => Console.error(`warning: failed to record the run in the history: ${renderChain(e)}`)))
