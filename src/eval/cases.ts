// Loading an eval definition with its cases (docs/evals.md#cases-files): `cases: {file: F}` reads F,
// relative to the eval file, through FileLoader (16 MiB cap, UTF-8). By extension:
//   .jsonl       — one case object a line (blank lines skipped);
//   .json        — a JSON array of case objects;
//   .csv         — a header row naming the columns `input` (required), `name`, `assert` (a JSON list
//                  of assertions) and `vars.<name>`; every other row is one case, its values text;
//   .yml / .yaml — a list of case objects, as under `cases:`.
// Every case is checked as an inline one is; a problem reads `<file>:<line>: <problem>` (exit 3).
import { Effect } from "effect"
import { createHash } from "node:crypto"
import * as nodePath from "node:path"
import { causeDetail, type AnyLaitError } from "../core/errors.ts"
import type { Json } from "../core/json.ts"
import { JsonTooDeep, parseJsonText } from "../core/jsonDepth.ts"
import { describeYamlValue, formatPath } from "../core/schemaPath.ts"
import { lineAtPath, parseYaml, parseYamlLined, runStatic } from "../lang/load/yaml.ts"
import { FileLoader } from "../platform/FileLoader.ts"
import type { Assertion } from "../testing/assertions.ts"
import { CsvError, parseCsv } from "./csv.ts"
import { EvalError } from "./evalErrors.ts"
import { isIssue } from "./evalKeys.ts"
import {
  completeCase,
  duplicateCaseName,
  type EvalCase,
  type EvalDefinition,
  evalSchema,
  readEvalDefinition,
  withEvalSchema
} from "./schema.ts"

export const CASES_FILE_EXTENSIONS = [".jsonl", ".json", ".csv", ".yml", ".yaml"] as const

/** `cases.file` relative to the eval file's directory (an absolute path stays as it is). */
export const casesFilePath = (evalFile: string, file: string): string =>
  nodePath.isAbsolute(file) ? file : nodePath.join(nodePath.dirname(evalFile), file)

class CaseProblem {
  constructor(readonly line: number | undefined, readonly text: string) {}
}

/** One case object checked as an inline case is; the message names the key within the case. */
const decodeCase = (
  value: unknown,
  position: number,
  defaultAssert: ReadonlyArray<Assertion>,
  lineOf: (path: ReadonlyArray<string | number>) => number | undefined
): EvalCase | CaseProblem => {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return new CaseProblem(lineOf([]), `expected a case mapping with an 'input', got ${describeYamlValue(value)}`)
  }
  const decoded = evalSchema().decodeAt(evalSchema().EvalCaseSchema, { cases: [value] }, ["cases", 0])
  if (!isIssue(decoded)) return completeCase(decoded, position, defaultAssert)
  const where = formatPath(decoded.at.slice(2))
  return new CaseProblem(lineOf(decoded.path.slice(2)), where === "" ? decoded.text : `${where}: ${decoded.text}`)
}

const fromJsonl = (text: string, defaultAssert: ReadonlyArray<Assertion>): Array<EvalCase> | CaseProblem => {
  const cases: Array<EvalCase> = []
  const lines = text.split("\n")
  for (const [i, raw] of lines.entries()) {
    const line = raw.trim()
    if (line === "") continue
    let value: unknown
    try {
      value = parseJsonText(line)
    } catch (e) {
      if (e instanceof JsonTooDeep) return new CaseProblem(i + 1, e.message)
      return new CaseProblem(i + 1, `invalid JSON: ${e instanceof Error ? e.message : String(e)}`)
    }
    const c = decodeCase(value, cases.length + 1, defaultAssert, () => i + 1)
    if (c instanceof CaseProblem) return c
    cases.push(c)
  }
  return cases
}

const CSV_COLUMNS = "input, name, assert, vars.<name>"

const fromCsv = (text: string, defaultAssert: ReadonlyArray<Assertion>): Array<EvalCase> | CaseProblem => {
  let records
  try {
    records = parseCsv(text)
  } catch (e) {
    if (e instanceof CsvError) return new CaseProblem(e.line, e.message)
    throw e
  }
  const [header, ...rows] = records
  if (header === undefined) return []
  for (const column of header.fields) {
    if (["input", "name", "assert"].includes(column) || /^vars\.[^.]+$/.test(column)) continue
    return new CaseProblem(header.line, `unknown column '${column}'; case files accept: ${CSV_COLUMNS}`)
  }
  if (!header.fields.includes("input")) return new CaseProblem(header.line, "missing required column 'input'")
  const cases: Array<EvalCase> = []
  for (const row of rows) {
    if (row.fields.length !== header.fields.length) {
      const expected = header.fields.length
      return new CaseProblem(row.line, `expected ${expected} field(s) as in the header, got ${row.fields.length}`)
    }
    const value: Record<string, Json> = {}
    const vars: Record<string, Json> = {}
    for (const [i, column] of header.fields.entries()) {
      const cell = row.fields[i]!
      if (column.startsWith("vars.")) vars[column.slice("vars.".length)] = cell
      else if (column === "assert") {
        if (cell.trim() === "") continue
        try {
          value["assert"] = parseJsonText(cell) as Json
        } catch (e) {
          if (e instanceof JsonTooDeep) return new CaseProblem(row.line, `assert: ${e.message}`)
          return new CaseProblem(row.line, `assert: invalid JSON: ${e instanceof Error ? e.message : String(e)}`)
        }
      } else if (column !== "name" || cell !== "") value[column] = cell
    }
    if (Object.keys(vars).length > 0) value["vars"] = vars
    const c = decodeCase(value, cases.length + 1, defaultAssert, () => row.line)
    if (c instanceof CaseProblem) return c
    cases.push(c)
  }
  return cases
}

const fromYaml = (text: string, defaultAssert: ReadonlyArray<Assertion>): Array<EvalCase> | CaseProblem => {
  const parsed = parseYamlLined(text)
  if (!parsed.ok) return new CaseProblem(parsed.line, parsed.message)
  const src = parsed.source
  const converted = runStatic(() => src.json(src.top(), "the cases file"))
  if (!converted.ok) return new CaseProblem(converted.error.line, converted.error.message)
  const list = converted.value
  if (list === null) return []
  if (!Array.isArray(list)) {
    return new CaseProblem(lineAtPath(src, []), `expected a list of cases, got ${describeYamlValue(list)}`)
  }
  const cases: Array<EvalCase> = []
  for (const [i, item] of list.entries()) {
    const c = decodeCase(item, i + 1, defaultAssert, (path) => lineAtPath(src, [i, ...path]))
    if (c instanceof CaseProblem) return c
    cases.push(c)
  }
  return cases
}

// A JSON array, read by JSON.parse (so only JSON is accepted), each item checked as a YAML file's item
// is. JSON is YAML, so the YAML reading of the same text gives the lines problems are reported at.
const fromJson = (text: string, defaultAssert: ReadonlyArray<Assertion>): Array<EvalCase> | CaseProblem => {
  let list: unknown
  try {
    list = JSON.parse(text)
  } catch (e) {
    return new CaseProblem(undefined, `invalid JSON: ${e instanceof Error ? e.message : String(e)}`)
  }
  const parsed = parseYaml(text)
  const lineOf = (path: ReadonlyArray<string | number>) => (parsed.ok ? lineAtPath(parsed.source, path) : undefined)
  if (!Array.isArray(list)) {
    return new CaseProblem(lineOf([]), `expected a JSON array of cases, got ${describeYamlValue(list)}`)
  }
  const cases: Array<EvalCase> = []
  for (const [i, item] of list.entries()) {
    const c = decodeCase(item, i + 1, defaultAssert, (path) => lineOf([i, ...path]))
    if (c instanceof CaseProblem) return c
    cases.push(c)
  }
  return cases
}

/** The cases of `file` (as the user will recognise it: joined onto the eval file's directory). */
export const loadCasesFile = (
  file: string,
  defaultAssert: ReadonlyArray<Assertion>
): Effect.Effect<ReadonlyArray<EvalCase>, EvalError, FileLoader> =>
  Effect.gen(function*() {
    const extension = nodePath.extname(file).toLowerCase()
    const parsers: Record<string, typeof fromYaml> = {
      ".jsonl": fromJsonl,
      ".json": fromJson,
      ".csv": fromCsv,
      ".yml": fromYaml,
      ".yaml": fromYaml
    }
    const parse = parsers[extension]
    if (parse === undefined) {
      return yield* new EvalError({
        reason: { _tag: "CasesFileExtension", path: file, extension, expected: CASES_FILE_EXTENSIONS.join(", ") }
      })
    }
    const loader = yield* FileLoader
    const text = yield* loader.readText(file, { waitForWriter: true }).pipe(
      Effect.mapError((e) =>
        new EvalError({
          reason: {
            _tag: "CasesFileUnreadable",
            path: file,
            detail: causeDetail(e)
          }
        })
      )
    )
    const cases = yield* withEvalSchema(() => parse(text, defaultAssert))
    if (cases instanceof CaseProblem) {
      return yield* new EvalError({
        reason: {
          _tag: "CasesFileInvalid",
          path: file,
          detail: cases.text,
          ...(cases.line === undefined ? {} : { line: cases.line })
        }
      })
    }
    const duplicate = duplicateCaseName(cases)
    if (duplicate !== undefined) {
      return yield* new EvalError({
        reason: {
          _tag: "CasesFileInvalid",
          path: file,
          detail: `case ${duplicate.index + 1}: duplicate case name '${duplicate.name}'`
        }
      })
    }
    return cases
  })

/** Reads and parses an eval file, then its cases file if it names one. */
export const loadEvalDefinition = (
  path: string
): Effect.Effect<EvalDefinition, AnyLaitError, FileLoader> =>
  Effect.gen(function*() {
    const definition = yield* readEvalDefinition(path)
    if (definition.casesFile === undefined) return definition
    const cases = yield* loadCasesFile(casesFilePath(path, definition.casesFile.file), definition.defaultAssert)
    return { ...definition, cases }
  })

/**
 * What identifies an eval across the machines that run its shards: SHA-256 (hex) of the eval file's
 * bytes, followed by its cases file's when it names one (the cases are the shards' split).
 */
export const evalFileHash = (
  path: string,
  definition: EvalDefinition
): Effect.Effect<string, EvalError, FileLoader> =>
  Effect.gen(function*() {
    const loader = yield* FileLoader
    const hash = createHash("sha256")
    const casesFile = definition.casesFile === undefined ? [] : [casesFilePath(path, definition.casesFile.file)]
    const files = [path, ...casesFile]
    for (const file of files) {
      hash.update(
        yield* loader.readBytes(file).pipe(
          Effect.mapError((e) =>
            new EvalError({
              reason: {
                _tag: "ReadFailed",
                path: file,
                detail: causeDetail(e)
              }
            })
          )
        )
      )
    }
    return hash.digest("hex")
  })
