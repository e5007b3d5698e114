// Targets that are apps, not lait workflows (docs/apps.md): an `exec:` target runs per (case, repeat)
// with its model calls through a proxy in the run's own context (src/proxy/exec.ts), so `--record` and
// `--replay` of the eval record and replay them and the run's usage and trace are its calls; an
// `http:` target asks a running service, its url, headers and body rendered with the case's input and
// vars, and `output_jq` picking the output from a JSON answer.
import { Effect } from "effect"
import { checkTemplateSyntax, loadTemplateEngine } from "../lang/template.ts"
import type { HttpTarget } from "../proxy/execTarget.ts"
import { EvalError } from "./evalErrors.ts"
import type { EvalCase } from "./schema.ts"
import type { LoadedTarget, TargetRun } from "./targetTypes.ts"

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
        const detail = `output_jq: ${problem}`
        return yield* new EvalError({ reason: { _tag: "PromptSyntax", file: evalFile, detail } })
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

/** One run of an http target: one request; a non-2xx answer is an ERROR. */
export const runHttpTarget = (target: Extract<LoadedTarget, { readonly kind: "http" }>, evalCase: EvalCase) =>
  Effect.gen(function*() {
    const { runHttp } = yield* Effect.promise(() => import("../proxy/http.ts"))
    const output = yield* runHttp(target.http, target.name, evalCase.input, evalCase.vars)
    return { output, steps: {} } satisfies TargetRun
  })
