// `GET <base>/models` for `lait models --remote` and `lait doctor`: one request with the endpoint's
// key, sent as model requests are (src/model/ModelHttp.ts), bounded in time and size, whose every
// failure is an outcome to report rather than an error that ends the command: one unreachable server
// must not hide what the others answered.
import { Effect, Redacted } from "effect"
import { DUMMY_API_KEY } from "../config/endpoints.ts"
import { describeNetworkFailure } from "../core/network.ts"
import { joinUrl } from "../core/urls.ts"
import { endpointRedactor } from "../model/endpointSecrets.ts"
import { ModelHttp } from "../model/ModelHttp.ts"
import { statusDetail } from "../model/Live.ts"

/** A model list is small; a server that sends more is not answering the question. */
const MAX_LIST_BYTES = 4 * 1024 * 1024

export type ListOutcome =
  | { readonly _tag: "Listed"; readonly ids: ReadonlyArray<string> }
  /**
   * `kind`: what went wrong, for the caller's severity (a server without `/models` is not broken);
   * `problem`: one line, secrets masked.
   */
  | {
    readonly _tag: "Failed"
    readonly kind: "unreachable" | "timeout" | "key" | "no-list" | "status" | "bad-answer"
    readonly problem: string
  }

const failed = (kind: Extract<ListOutcome, { _tag: "Failed" }>["kind"], problem: string): ListOutcome => ({
  _tag: "Failed",
  kind,
  problem
})

const formatSeconds = (millis: number) => (millis % 1000 === 0 ? `${millis / 1000} s` : `${millis} ms`)

/** The model ids of an OpenAI-style list (`{"data": [{"id": ...}]}`), or undefined for anything else. */
const idsOf = (text: string): ReadonlyArray<string> | undefined => {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    return undefined
  }
  const data = typeof parsed === "object" && parsed !== null ? (parsed as { data?: unknown }).data : undefined
  if (!Array.isArray(data)) return undefined
  const ids: Array<string> = []
  for (const entry of data) {
    const id = typeof entry === "object" && entry !== null ? (entry as { id?: unknown }).id : undefined
    if (typeof id === "string") ids.push(id)
  }
  return ids
}

/**
 * Asks `baseUrl` for its models with `key` (the dummy key when there is none, as a completion
 * request would send). Never fails: every way it can go wrong is a `Failed` outcome.
 */
export const listRemoteModels = (
  baseUrl: string,
  key: Redacted.Redacted<string> | undefined,
  timeoutMillis: number,
  /** The endpoint's own headers (a gateway's), sent as a completion request sends them. */
  headers?: Readonly<Record<string, string>>
): Effect.Effect<ListOutcome, never, ModelHttp> =>
  Effect.gen(function*() {
    const http = yield* ModelHttp
    const secret = key === undefined ? undefined : Redacted.value(key)
    const redact = endpointRedactor(secret, baseUrl, headers)
    const answer = yield* http.send({
      method: "GET",
      url: joinUrl(baseUrl, "/models"),
      headers: { authorization: `Bearer ${secret ?? DUMMY_API_KEY}`, ...headers }
    }, { limit: MAX_LIST_BYTES, timeoutMillis }).pipe(Effect.result)
    if (answer._tag === "Failure") {
      const error = answer.failure
      return error._tag === "TimedOut"
        ? failed("timeout", `no answer within ${formatSeconds(timeoutMillis)}`)
        : failed("unreachable", redact(describeNetworkFailure(error.cause)))
    }
    const { status, body } = answer.success
    if (body._tag === "TooLarge") return failed("bad-answer", `the model list is larger than ${MAX_LIST_BYTES} bytes`)
    if (status < 200 || status >= 300) {
      const detail = statusDetail(body.text, redact)
      const said = `HTTP ${status}${detail === undefined ? "" : `: ${detail}`}`
      if (status === 401 || status === 403) return failed("key", `key rejected (${said})`)
      if (status === 404 || status === 405) return failed("no-list", `GET /models is not supported (${said})`)
      return failed("status", said)
    }
    const ids = idsOf(body.text)
    return ids === undefined ? failed("bad-answer", "the answer to GET /models is not a model list") : {
      _tag: "Listed",
      ids
    }
  })
