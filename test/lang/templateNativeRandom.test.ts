// Seeded random templates (mostly from the native subset's grammar, with stray constructs outside it)
// on random data, rendered natively and by Handlebars (templateNativeDiff.ts): the results and errors
// must agree. Deterministic: a failure names its template and data.
import { beforeAll, expect, test } from "bun:test"
import { differential, loadEngine, tally, type Verdict } from "./templateNativeDiff.ts"
import { prng as random } from "../fixtures/prng.ts"

beforeAll(loadEngine)

const SEED = Number(process.env.TEMPLATE_NATIVE_SEED ?? 24)
const TEMPLATES = 1500

const rnd = random(SEED)
const pick = <A>(items: ReadonlyArray<A>): A => items[Math.floor(rnd() * items.length)]!

const KEYS = ["a", "b", "list", "obj", "s"]
const SCALARS: ReadonlyArray<unknown> = [null, true, false, 0, 1, -2.5, 1e21, "", "x", "it's", "日本 😀", "a\nb", "0"]

const value = (depth: number): unknown => {
  const r = rnd()
  if (depth <= 0 || r < 0.4) return pick(SCALARS)
  if (r < 0.6) return Array.from({ length: Math.floor(rnd() * 4) }, () => value(depth - 1))
  // Mostly every key, so that paths resolve and the native renderer has something to print.
  const out: Record<string, unknown> = {}
  for (const key of KEYS) if (rnd() < 0.8) out[key] = value(depth - 1)
  return out
}

const data = (): Record<string, unknown> => {
  // Top-level keys as well: the paths are also written for the items of an `each`.
  const out: Record<string, unknown> = { input: value(3), steps: {}, inputs: {}, loop: null }
  for (const key of KEYS) {
    if (rnd() < 0.9) (out.steps as Record<string, unknown>)[key] = value(3)
    if (rnd() < 0.9) out[key] = value(3)
  }
  return out
}

const TEXT = ["", " ", "  ", "\n", "\r\n", "x", " \n", "\t", "a\n  ", "\n\n", "é✓", "}", "{", " } ", "\\n", "  \n  "]

const path = (): string => {
  const r = rnd()
  if (r < 0.1) return pick(["this", "@index", "@key", "@first", "@last"])
  if (r < 0.15) return `this.${pick(KEYS)}`
  if (r < 0.4) return pick(["input", "steps", `input.${pick(KEYS)}`])
  const depth = 1 + Math.floor(rnd() * 2)
  const parts = ["steps", ...Array.from({ length: depth }, () => pick(KEYS))]
  return rnd() < 0.5 ? parts.slice(1).join(".") : parts.join(".")
}

const space = (): string => pick(["", "", " ", "  "])

/** Something outside the subset now and then, so the fallback path is exercised inside blocks too. */
const stray = (): string =>
  pick(["{{~ input ~}}", "{{! note }}", "{{{input}}}", "{{../input}}", "\\{{input}}", "{{@root.input}}", "{{lookup . 'a'}}"])

const tag = (body: string): string => `{{${space()}${body}${space()}}}`

const template = (depth: number): string => {
  const parts: Array<string> = []
  for (let n = Math.floor(rnd() * 5); n > 0; n--) {
    const r = rnd()
    if (r < 0.3) parts.push(pick(TEXT))
    else if (r < 0.5) parts.push(tag(path()))
    else if (r < 0.6) parts.push(tag(`${pick(["text", "json", "shq"])} ${path()}`))
    else if (r < 0.9 && depth > 0) {
      const helper = pick(["if", "unless", "each"])
      const around = (): string => pick(["", "\n", "  \n", "\r\n", " "])
      const inverse = rnd() < 0.4 ? `${around()}{{${space()}else${space()}}}${around()}${template(depth - 1)}` : ""
      parts.push(
        `${around()}{{#${helper} ${path()}${space()}}}${around()}${template(depth - 1)}${inverse}${around()}{{/${helper}}}${around()}`
      )
    } else if (r < 0.92) parts.push(stray())
    else parts.push(pick(TEXT))
  }
  return parts.join("")
}

test(`${TEMPLATES} random templates agree with Handlebars (seed ${SEED})`, async () => {
  const verdicts: Array<Verdict> = []
  for (let i = 0; i < TEMPLATES; i++) {
    const source = template(3)
    if (!source.includes("{{")) continue
    verdicts.push(await differential(source, data()))
  }
  const counts = tally(verdicts)
  // The native renderer must have taken a good share, or this test proves little.
  expect(counts.native).toBeGreaterThan(verdicts.length / 5)
  expect(counts.unsupported).toBeGreaterThan(0)
}, 120_000)
