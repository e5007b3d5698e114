// What a server says when it fails: the text of an error body (an HTTP error's, or an `error` event
// inside a stream), and, for an error inside a stream, which HTTP failure it stands for, so that it
// is retried and falls back as that HTTP answer would be (docs/config.md#fallbacks-and-retries).

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const stringOf = (value: unknown): string | undefined =>
  typeof value === "string" && value.trim() !== "" ? value : undefined

/**
 * The most specific text of an error body's JSON: `error.message`, `message`, `detail` (FastAPI's
 * list of `{msg}` objects joined), then `error` as a string. Frameworks put a generic word in one
 * field and the reason in another (`{"error": "Not Found", "message": "Cannot POST /v2/..."}`).
 */
export const errorText = (parsed: unknown): string | undefined => {
  if (!isRecord(parsed)) return undefined
  const error = parsed["error"]
  const nested = isRecord(error) ? stringOf(error["message"]) : undefined
  const detail = Array.isArray(parsed["detail"])
    ? parsed["detail"].map((d) => (isRecord(d) ? stringOf(d["msg"]) : undefined)).filter((m) => m !== undefined)
      .join("; ")
    : parsed["detail"]
  return nested ?? stringOf(parsed["message"]) ?? stringOf(detail) ?? stringOf(error)
}

/** A status written as a number or a numeric string (`429`, `"503"`), when it is one. */
const statusOf = (value: unknown): number | undefined => {
  const n = typeof value === "number" ? value : typeof value === "string" && /^\d{3}$/.test(value) ? Number(value) : NaN
  return Number.isInteger(n) && n >= 400 && n <= 599 ? n : undefined
}

// The names servers give their errors (OpenAI's `type`/`code`, Anthropic's `type`, gateways'), by
// the status an HTTP answer would have carried.
const NAMED: ReadonlyArray<readonly [RegExp, number]> = [
  [/rate.?limit|too.?many.?requests/, 429],
  [/overload/, 529],
  [/timeout|timed.?out/, 408],
  [/unavailable/, 503],
  [/server.?error|internal|api.?error|bad.?gateway|upstream/, 500]
]

/**
 * The HTTP status an error inside a stream stands for: a status it carries (`error.code`,
 * `error.status`, `status_code`, as vLLM, LiteLLM and OpenRouter send), else one its `type` or
 * `code` names (`rate_limit_exceeded`, `overloaded_error`, `server_error`); undefined when it says
 * neither, and then the error is final, as an unknown 4xx answer is.
 */
export const streamErrorStatus = (chunk: unknown): number | undefined => {
  if (!isRecord(chunk)) return undefined
  const error = isRecord(chunk["error"]) ? chunk["error"] : chunk
  for (const field of ["status", "status_code", "code"]) {
    const status = statusOf(error[field]) ?? statusOf(chunk[field])
    if (status !== undefined) return status
  }
  const names = [error["type"], error["code"], chunk["type"] === "error" ? undefined : chunk["type"]]
    .filter((n): n is string => typeof n === "string").join(" ").toLowerCase()
  if (names === "") return undefined
  return NAMED.find(([pattern]) => pattern.test(names))?.[1]
}
