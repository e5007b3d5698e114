// Where a case and its assertions are written, for `lait eval --format github` annotations
// (docs/ci.md#annotations-and-summaries). A case's assertions are its own `assert:` items, then
// `default_assert:`'s (./schema.ts's completeCase), so assertion k is the k-th own item, else an item
// of `default_assert:` in the eval file. Cases are inline under `cases:` or in a cases file (./cases.ts):
// YAML and JSON give each item's line, a JSONL or CSV case is its line or row.
import { parseJsonText } from "../core/jsonDepth.ts"
import { lineAtPath, parseYaml, runStatic, type Source } from "../lang/load/yaml.ts"
import { casesFilePath } from "./cases.ts"
import { parseCsv } from "./csv.ts"

export interface Location {
  readonly file: string
  readonly line: number | undefined
}

/** Where case `index` (1-based) is written, or its assertion `assertion` (1-based) when given. */
export type CaseLocator = (index: number, assertion: number | undefined) => Location

type Json = unknown

interface ParsedFile {
  readonly src: Source
  readonly value: Json
}

const parsed = (text: string | undefined): ParsedFile | undefined => {
  if (text === undefined) return undefined
  const doc = parseYaml(text)
  if (!doc.ok) return undefined
  const value = runStatic(() => doc.source.json(doc.source.top(), "the file"))
  return value.ok ? { src: doc.source, value: value.value } : undefined
}

const ownAssertCount = (item: Json): number => {
  if (typeof item !== "object" || item === null || Array.isArray(item)) return 0
  const assert = (item as Record<string, Json>)["assert"]
  return Array.isArray(assert) ? assert.length : 0
}

/** One case of a cases file: its own assertions and the line of the case or of one of them. */
interface FileCase {
  readonly own: number
  readonly line: (assertion: number | undefined) => number | undefined
}

const tryJson = (text: string): Json => {
  try {
    return parseJsonText(text)
  } catch {
    return undefined
  }
}

const casesOfFile = (path: string, text: string | undefined): ReadonlyArray<FileCase> => {
  if (text === undefined) return []
  const lower = path.toLowerCase()
  if (lower.endsWith(".jsonl")) {
    return text.split("\n").flatMap((raw, i) =>
      raw.trim() === "" ? [] : [{ own: ownAssertCount(tryJson(raw.trim())), line: () => i + 1 }]
    )
  }
  if (lower.endsWith(".csv")) {
    try {
      const [header, ...rows] = parseCsv(text)
      const column = header?.fields.indexOf("assert") ?? -1
      return rows.map((row) => {
        const cell = column < 0 ? undefined : row.fields[column]
        const own = cell === undefined || cell.trim() === "" ? 0 : ownAssertCount({ assert: tryJson(cell) })
        return { own, line: () => row.line }
      })
    } catch {
      return []
    }
  }
  // YAML, and JSON read as YAML (as ./cases.ts reports its problems).
  const file = parsed(text)
  if (file === undefined || !Array.isArray(file.value)) return []
  return file.value.map((item, i) => ({
    own: ownAssertCount(item),
    line: (k) =>
      (k === undefined ? undefined : lineAtPath(file.src, [i, "assert", k - 1])) ?? lineAtPath(file.src, [i])
  }))
}

const casesRef = (value: Json): string | undefined => {
  const cases = typeof value === "object" && value !== null ? (value as Record<string, Json>)["cases"] : undefined
  const ref = typeof cases === "object" && cases !== null ? (cases as Record<string, Json>)["file"] : undefined
  return typeof ref === "string" ? ref : undefined
}

/** The cases file an eval file names (`cases: {file}`), as lait reads it; undefined for inline cases. */
export const casesFileOf = (evalFile: string, evalText: string | undefined): string | undefined => {
  const ref = casesRef(parsed(evalText)?.value)
  return ref === undefined ? undefined : casesFilePath(evalFile, ref)
}

/**
 * The locator of an eval file's cases, from the texts of the eval file and of its cases file
 * (undefined when unreadable: locations then have no line).
 */
export const caseLocator = (
  evalFile: string,
  evalText: string | undefined,
  casesText: string | undefined
): CaseLocator => {
  const evalDoc = parsed(evalText)
  if (evalDoc === undefined) return () => ({ file: evalFile, line: undefined })
  const { src, value } = evalDoc
  const top = typeof value === "object" && value !== null ? value as Record<string, Json> : {}
  const defaults = Array.isArray(top["default_assert"]) ? top["default_assert"].length : 0
  // Assertion k beyond the case's own: an item of `default_assert:`.
  const defaultAt = (own: number, k: number | undefined): Location | undefined =>
    k !== undefined && k > own && k - own <= defaults
      ? { file: evalFile, line: lineAtPath(src, ["default_assert", k - own - 1]) }
      : undefined
  const cases = top["cases"]
  if (Array.isArray(cases)) {
    return (index, k) => {
      const own = ownAssertCount(cases[index - 1])
      const line = k !== undefined && k <= own ? lineAtPath(src, ["cases", index - 1, "assert", k - 1]) : undefined
      return defaultAt(own, k) ?? { file: evalFile, line: line ?? lineAtPath(src, ["cases", index - 1]) }
    }
  }
  const ref = casesRef(value)
  if (ref === undefined) return () => ({ file: evalFile, line: lineAtPath(src, ["cases"]) })
  const casesPath = casesFilePath(evalFile, ref)
  const fileCases = casesOfFile(casesPath, casesText)
  return (index, k) => {
    const c = fileCases[index - 1]
    if (c === undefined) return { file: evalFile, line: lineAtPath(src, ["cases"]) }
    return defaultAt(c.own, k) ?? { file: casesPath, line: c.line(k !== undefined && k <= c.own ? k : undefined) }
  }
}
