// An `http:` target (docs/apps.md#http-targets): a service that is already running, asked once per
// input, its url, headers and body rendered with the input and vars, `output_jq` picking the output
// from a JSON answer. Shared by test files and evals.
import { Duration, Effect } from "effect"
import { type Json, textForm } from "../core/json.ts"
import { parseTextInput } from "../lang/inputs.ts"
import type { TemplateError } from "../lang/languageErrors.ts"
import { renderTemplateWith } from "../lang/template.ts"
import { AppError } from "./appErrors.ts"
import type { HttpTarget } from "./execTarget.ts"

const renderAll = (value: unknown, data: Readonly<Record<string, unknown>>): Effect.Effect<unknown, TemplateError> => {
  if (typeof value === "string") return renderTemplateWith(value, data)
  if (Array.isArray(value)) return Effect.forEach(value, (item) => renderAll(item, data))
  if (typeof value === "object" && value !== null) {
    return Effect.map(
      Effect.forEach(
        Object.entries(value),
        ([key, item]) => Effect.map(renderAll(item, data), (v) => [key, v] as const)
      ),
      Object.fromEntries
    )
  }
  return Effect.succeed(value)
}

/**
 * One request to an http target for `input` (text parsed as JSON when it is JSON, as a prompt
 * template reads it) and `vars`; a non-2xx answer fails with an AppError.
 */
export const runHttp = (http: HttpTarget, name: string, input: Json, vars: Readonly<Record<string, Json>>) =>
  Effect.gen(function*() {
    const fail = (detail: string) => new AppError({ reason: { _tag: "HttpFailed", target: name, detail } })
    const data = { input: typeof input === "string" ? parseTextInput(input) : input, steps: {}, vars }
    const url = yield* renderTemplateWith(http.url, data)
    const headers = (yield* renderAll(http.headers, data)) as Record<string, string>
    const body = http.body === undefined ? undefined : yield* renderAll(http.body, data)
    const json = body !== undefined && typeof body !== "string"
    const response = yield* Effect.tryPromise({
      try: (signal) =>
        fetch(url, {
          method: http.method,
          headers: { ...(json ? { "content-type": "application/json" } : {}), ...headers },
          ...(body === undefined ? {} : { body: json ? JSON.stringify(body) : String(body) }),
          signal
        }).then(async (r) => ({ status: r.status, text: await r.text() })),
      catch: (e) => fail(e instanceof Error ? e.message : String(e))
    }).pipe(
      Effect.timeout(Duration.seconds(http.timeoutSeconds)),
      Effect.catchTag("TimeoutError", () =>
        Effect.fail(new AppError({ reason: { _tag: "TimedOut", target: name, seconds: http.timeoutSeconds } })))
    )
    if (response.status < 200 || response.status > 299) {
      return yield* fail(`HTTP ${response.status}: ${response.text.slice(0, 500)}`)
    }
    if (http.outputJq === undefined) return response.text
    let parsed: Json
    try {
      parsed = JSON.parse(response.text) as Json
    } catch {
      return yield* fail("the answer is not JSON, which output_jq needs")
    }
    const jq = yield* Effect.promise(() => import("../lang/jq.ts"))
    yield* jq.loadJq
    const picked = yield* jq.evalJqOne(http.outputJq, parsed, { steps: {}, inputs: {}, loop: null }, "filter")
    return textForm(picked)
  })
