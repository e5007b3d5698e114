// Targets that are apps, not lait workflows (docs/apps.md): an `exec:` target runs per (case, repeat)
// with its model calls through a proxy in the run's own context (src/proxy/exec.ts), so `--record` and
// `--replay` of the eval record and replay them and the run's usage and trace are its calls; an
// `http:` target asks a running service, its url, headers and body rendered with the case's input and
// vars, and `output_jq` picking the output from a JSON answer.
import { Duration, Effect } from "effect"
import { type Json, textForm } from "../core/json.ts"
import { parseTextInput } from "../lang/inputs.ts"
import type { TemplateError } from "../lang/languageErrors.ts"
import { checkTemplateSyntax, loadTemplateEngine, renderTemplateWith } from "../lang/template.ts"
import { AppError } from "../proxy/appErrors.ts"
import type { HttpTarget } from "../proxy/execTarget.ts"
import { EvalError } from "./evalErrors.ts"
import type { EvalCase } from "./schema.ts"
import type { LoadedTarget, TargetRun } from "./target.ts"

/** Every string of a body, the url and the headers: each a template. */
const templatesOf = (http: HttpTarget): ReadonlyArray<string> => {
  const out: Array<string> = [http.url, ...Object.values(http.headers)]
  const visit = (value: unknown) => {
    if (typeof value === "string") out.push(value)
    else if (Array.isArray(value)) value.forEach(visit)
    else if (typeof value === "object" && value !== null) Object.values(value).forEach(visit)
  }
  visit(http.body)
  return out
}

/** Template and jq syntax, checked once when the eval loads. */
export const checkHttpTarget = (http: HttpTarget, evalFile: string) =>
  Effect.gen(function*() {
    yield* loadTemplateEngine
    for (const template of templatesOf(http)) {
      const problem = checkTemplateSyntax(template)
      if (problem !== undefined) {
        return yield* new EvalError({ reason: { _tag: "PromptSyntax", file: evalFile, detail: problem } })
      }
    }
    if (http.outputJq !== undefined) {
      const jq = yield* Effect.promise(() => import("../lang/jq.ts"))
      // The jq engine failing to load is a problem of this target's syntax check, worded as one.
      const problem = yield* jq.withJqSyntax(() => jq.checkJqSyntax(http.outputJq!)).pipe(
        Effect.catch((e) => Effect.succeed(e.message))
      )
      if (problem !== undefined) {
        return yield* new EvalError({ reason: { _tag: "PromptSyntax", file: evalFile, detail: `output_jq: ${problem}` } })
      }
    }
  })

/** One run of an exec target, in the run context provided around it. */
export const runExecTarget = (target: Extract<LoadedTarget, { readonly kind: "exec" }>, evalCase: EvalCase) =>
  Effect.gen(function*() {
    const { runExec, toolCallEvents } = yield* Effect.promise(() => import("../proxy/exec.ts"))
    const run = yield* runExec(target.exec, evalCase.input, target.dir)
    return { output: run.output, steps: {}, toolEvents: toolCallEvents(run) } satisfies TargetRun
  })

const renderAll = (value: unknown, data: Readonly<Record<string, unknown>>): Effect.Effect<unknown, TemplateError> => {
  if (typeof value === "string") return renderTemplateWith(value, data)
  if (Array.isArray(value)) return Effect.forEach(value, (item) => renderAll(item, data))
  if (typeof value === "object" && value !== null) {
    return Effect.map(
      Effect.forEach(Object.entries(value), ([key, item]) => Effect.map(renderAll(item, data), (v) => [key, v] as const)),
      Object.fromEntries
    )
  }
  return Effect.succeed(value)
}

/** One run of an http target: one request; a non-2xx answer is an ERROR. */
export const runHttpTarget = (target: Extract<LoadedTarget, { readonly kind: "http" }>, evalCase: EvalCase) =>
  Effect.gen(function*() {
    const { http } = target
    const fail = (detail: string) => new AppError({ reason: { _tag: "HttpFailed", target: target.name, detail } })
    const data = {
      input: typeof evalCase.input === "string" ? parseTextInput(evalCase.input) : evalCase.input,
      steps: {},
      vars: evalCase.vars
    }
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
        Effect.fail(new AppError({ reason: { _tag: "TimedOut", target: target.name, seconds: http.timeoutSeconds } })))
    )
    if (response.status < 200 || response.status > 299) {
      return yield* fail(`HTTP ${response.status}: ${response.text.slice(0, 500)}`)
    }
    if (http.outputJq === undefined) return { output: response.text, steps: {} } satisfies TargetRun
    let parsed: Json
    try {
      parsed = JSON.parse(response.text) as Json
    } catch {
      return yield* fail("the answer is not JSON, which output_jq needs")
    }
    const jq = yield* Effect.promise(() => import("../lang/jq.ts"))
    yield* jq.loadJq
    const picked = yield* jq.evalJqOne(http.outputJq, parsed, { steps: {}, inputs: {}, loop: null }, "filter")
    return { output: textForm(picked), steps: {} } satisfies TargetRun
  })
