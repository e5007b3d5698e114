// `lait test --update`: a failing `equals` (top level, or nested under `step_output`) gets the actual
// output written into its `value:`. Only the bytes of those scalars change — comments, key order,
// quoting and layout of everything else stay exactly as written — and the file is replaced
// atomically. A value written as a block scalar stays a block scalar when the new text allows it.
import { type Document, isMap, isScalar, isSeq, type Node, Scalar } from "yaml"
import { rustDebugString } from "../core/rustFormat.ts"
import { parseYamlDocument } from "../core/yamlDocument.ts"
import { yamlErrorMessage } from "../core/yamlErrors.ts"
import type { Check } from "./AssertionEvaluator.ts"
import { isNot } from "./assertions.ts"

export interface EqualsUpdate {
  /** The checks from the top-level list down to the `equals` itself (step_output parents first). */
  readonly trail: ReadonlyArray<Check>
  readonly previous: string
  readonly actual: string
}

/** Every failing `equals` under `checks` whose actual text is known, in document order. */
export const failingEquals = (
  checks: ReadonlyArray<Check>,
  parents: ReadonlyArray<Check> = []
): Array<EqualsUpdate> => {
  const out: Array<EqualsUpdate> = []
  for (const check of checks) {
    if (check.message === undefined) continue
    if (!isNot(check.assertion) && check.assertion.type === "equals" && check.actual !== undefined) {
      out.push({ trail: [...parents, check], previous: check.assertion.value, actual: check.actual })
    } else if (!isNot(check.assertion) && check.assertion.type === "step_output" && check.nested !== undefined) {
      out.push(...failingEquals(check.nested, [...parents, check]))
    }
  }
  return out
}

/** How an update is described on stderr: `assertion 3 (step 'summary'): assertion 1`. */
export const describeTrail = (trail: ReadonlyArray<Check>): string =>
  trail
    .map((check) =>
      !isNot(check.assertion) && check.assertion.type === "step_output"
        ? `assertion ${check.position} (step '${check.assertion.id}')`
        : `assertion ${check.position}`
    )
    .join(": ")

const escapes: Record<string, string> = {
  "\\": "\\\\",
  "\"": "\\\"",
  "\n": "\\n",
  "\t": "\\t",
  "\r": "\\r",
  "\0": "\\0",
  "\u0085": "\\N",
  "\u00a0": "\\_",
  "\u2028": "\\L",
  "\u2029": "\\P"
}

/** A YAML double-quoted scalar; anything YAML does not allow raw becomes an escape. */
export const yamlDoubleQuoted = (text: string): string => {
  let out = "\""
  for (const ch of text) {
    const named = escapes[ch]
    if (named !== undefined) {
      out += named
      continue
    }
    const code = ch.codePointAt(0)!
    const printable = code === 0x09 || (code >= 0x20 && code <= 0x7e) || code === 0x85 ||
      (code >= 0xa0 && code <= 0xd7ff) || (code >= 0xe000 && code <= 0xfffd && code !== 0xfeff) ||
      (code >= 0x10000 && code <= 0x10ffff)
    out += printable ? ch : `\\u${code.toString(16).padStart(4, "0")}`
  }
  return `${out}"`
}

/**
 * A literal block scalar (`|`, `|-`, `|+`) holding `text` at `indent`, or undefined when the text
 * cannot be written that way unambiguously (control characters, CR, a leading space on the first
 * line, whitespace-only lines, no line break at all).
 */
export const yamlLiteralBlock = (text: string, indent: number): string | undefined => {
  if (!text.includes("\n")) return undefined
  if (/[\u0000-\u0008\u000B-\u001F\u007F\u0085\u2028\u2029\uFEFF]|\r/.test(text)) return undefined
  const body = text.replace(/\n+$/, "")
  const trailing = text.length - body.length
  if (body.length === 0 || /^[ \t]/.test(body)) return undefined
  const lines = body.split("\n")
  if (lines.some((line) => line.length > 0 && line.trim().length === 0)) return undefined
  const chomp = trailing === 0 ? "-" : trailing === 1 ? "" : "+"
  const pad = " ".repeat(indent)
  const content = lines.map((line) => (line.length === 0 ? "" : `${pad}${line}`)).join("\n")
  return `|${chomp}\n${content}\n${"\n".repeat(Math.max(0, trailing - 1))}`
}

const lineStart = (text: string, offset: number) => text.lastIndexOf("\n", offset - 1) + 1

interface Edit {
  readonly start: number
  readonly end: number
  readonly replacement: string
}

const valueNodeAt = (doc: Document.Parsed, trail: ReadonlyArray<Check>) => {
  let list: unknown = isMap(doc.contents) ? doc.contents.get("assert", true) : undefined
  let item: unknown
  for (const check of trail) {
    if (!isSeq(list)) return undefined
    item = list.items[check.position - 1]
    if (!isMap(item)) return undefined
    if (!isNot(check.assertion) && check.assertion.type === "step_output") list = item.get("assert", true)
  }
  if (!isMap(item)) return undefined
  const pair = item.items.find((p) => isScalar(p.key) && p.key.value === "value")
  if (pair === undefined || !isScalar(pair.value)) return undefined
  return { key: pair.key as Node, value: pair.value }
}

/**
 * The test file's text with every update applied, or an error message when a value's place in
 * the YAML cannot be found (the file no longer matches what was run).
 */
export const applyUpdates = (
  text: string,
  updates: ReadonlyArray<EqualsUpdate>
): string | { readonly error: string } => {
  const doc = parseYamlDocument(text)
  const invalid = doc.errors[0]
  if (invalid !== undefined) return { error: `the file is no longer valid YAML: ${yamlErrorMessage(invalid)}` }
  const edits: Array<Edit> = []
  for (const update of updates) {
    const found = valueNodeAt(doc, update.trail)
    const range = found?.value.range
    if (found === undefined || range === undefined || range === null) {
      return { error: `cannot find the 'value:' of ${describeTrail(update.trail)}` }
    }
    const [start, end] = range
    const block = found.value.type === Scalar.BLOCK_LITERAL || found.value.type === Scalar.BLOCK_FOLDED
    let replacement: string
    if (block) {
      const keyStart = found.key.range?.[0] ?? start
      const indent = keyStart - lineStart(text, keyStart) + 2
      // A block scalar's range runs to the end of its last line; a quoted replacement keeps that newline.
      replacement = yamlLiteralBlock(update.actual, indent) ?? `${yamlDoubleQuoted(update.actual)}\n`
    } else {
      replacement = `${start === end ? " " : ""}${yamlDoubleQuoted(update.actual)}`
    }
    edits.push({ start, end, replacement })
  }
  edits.sort((a, b) => b.start - a.start)
  let out = text
  for (const edit of edits) out = `${out.slice(0, edit.start)}${edit.replacement}${out.slice(edit.end)}`
  return out
}

/** `assertion 1: value "old" -> "new"` for the stderr note. */
export const describeUpdate = (update: EqualsUpdate): string =>
  `${describeTrail(update.trail)}: value ${rustDebugString(update.previous)} -> ${rustDebugString(update.actual)}`
