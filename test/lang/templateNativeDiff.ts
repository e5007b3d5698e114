// The differential check behind test/lang/templateNative*.test.ts: a template rendered the way lait
// renders it (native renderer first, Handlebars when it is unsure) and by the Handlebars path alone
// must give the same text and printed parts, or the same error; and the native parser must never
// accept a template Handlebars rejects.
import { expect } from "bun:test"
import { Effect, Exit } from "effect"
import { renderChain } from "../../src/core/errors.ts"
import { engineForTests, loadTemplateEngine, renderTemplateParts, type TemplateData } from "../../src/lang/template.ts"
import { nativeTemplate, renderNative } from "../../src/lang/templateNative.ts"

export type Verdict = "unsupported" | "fell-back" | "native"

export const loadEngine = () => Effect.runPromise(loadTemplateEngine)

type Outcome = { readonly text: string; readonly printed: ReadonlyArray<string> } | { readonly error: string }

const outcome = async (effect: Effect.Effect<Outcome, { readonly _tag: string }>): Promise<Outcome> => {
  const exit = await Effect.runPromiseExit(effect)
  if (Exit.isSuccess(exit)) return exit.value
  const reason = exit.cause.reasons[0]
  return { error: reason?._tag === "Fail" ? renderChain(reason.error as never) : String(exit.cause) }
}

/** Renders `source` both ways (as renderTemplateParts) and asserts they agree; what the native side did. */
export const differential = async (source: string, data: Readonly<Record<string, unknown>>): Promise<Verdict> => {
  const label = `${JSON.stringify(source)} with ${JSON.stringify(data, (_, v) => (typeof v === "bigint" ? `${v}n` : v))}`
  const engine = await outcome(engineForTests.render(source, data, true))
  const lait = await outcome(renderTemplateParts(source, data as TemplateData))
  expect({ label, result: lait }).toEqual({ label, result: engine })
  if (!nativeTemplate(source)) return "unsupported"
  // Accepted natively: Handlebars must parse it too.
  expect({ label, syntax: engineForTests.syntax(source) }).toEqual({ label, syntax: undefined })
  const native = renderNative(source, data, true)
  if (native === undefined) return "fell-back"
  expect({ label, result: native as Outcome }).toEqual({ label, result: engine })
  const plain = renderNative(source, data, false)
  expect({ label, text: plain?.text }).toEqual({ label, text: native.text })
  return "native"
}

/** Tallies of verdicts, for asserting that a table did exercise the native renderer. */
export const tally = (verdicts: ReadonlyArray<Verdict>): Record<Verdict, number> => {
  const counts: Record<Verdict, number> = { unsupported: 0, "fell-back": 0, native: 0 }
  for (const v of verdicts) counts[v]++
  return counts
}
