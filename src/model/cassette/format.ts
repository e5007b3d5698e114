// Cassette and cache entry files: what is written (the request as keyed, the raw answer last), what
// must never be written (the API key in use), and how a file that does not read is described.
import { Effect, Redacted } from "effect"
import { displayUrl } from "../../core/urls.ts"
import type { Endpoint, ModelCall, ModelResult } from "../call.ts"
import { holdsEndpointSecret } from "../endpointSecrets.ts"
import { EntryRefused, ModelError } from "../ModelError.ts"
import { entryBody } from "./entryText.ts"
import { keyInputOf, keyMaterial } from "./key.ts"

export const nowRfc3339 = () => new Date().toISOString()

/**
 * Fails if `text` contains the API key or a header value in use: a cassette or cache entry must never
 * hold a secret.
 */
export const assertNoSecret = (text: string, endpoint: Endpoint, what: string) =>
  Effect.gen(function*() {
    const key = yield* endpoint.apiKey
    const secret = key === undefined ? undefined : Redacted.value(key)
    // `text` is JSON: a key holding a quote or a backslash appears escaped there; this finds that too.
    if (holdsEndpointSecret(text, secret, endpoint.baseUrl, endpoint.headers)) {
      const reason = new EntryRefused({
        what,
        problem: holdsEndpointSecret(text, secret, endpoint.baseUrl)
          ? "the response contains the API key in use"
          : "the response contains the value of a header in use"
      })
      return yield* new ModelError({ reason })
    }
  })

export const cassetteBody = (
  call: ModelCall,
  result: ModelResult,
  what = "a cassette"
): Effect.Effect<string, ModelError> =>
  entryBody(
    {
      recorded_at: nowRfc3339(),
      request: {
        ...JSON.parse(keyMaterial(keyInputOf(call, result.endpoint))),
        // Masked for the file only: the request key above still hashes the URL as written.
        base_url: displayUrl(result.endpoint.baseUrl),
        model_id: result.endpoint.modelId
      }
    },
    result.raw,
    what
  )

/** A cassette file's JSON object, or why its text is not one (one clause); model and tool cassettes alike. */
export const parseCassetteObject = (text: string): Record<string, unknown> | string => {
  if (text.trim() === "") return "the file is empty"
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (e) {
    return `not valid JSON (${e instanceof Error ? e.message : String(e)})`
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return "expected a JSON object"
  return value as Record<string, unknown>
}

/** Why a cassette's text did not decode as a `Cassette`, in one clause. */
export const cassetteProblem = (text: string): string => {
  const value = parseCassetteObject(text)
  return typeof value === "string" ? value : "missing field 'response'"
}
