// A `lait test` definition file (docs/testing.md#test-file-format): the workflow under test, its first input and
// `inputs:` (typed YAML values), the cassette directory it replays, and the assertions. Paths are
// relative to the test file's directory. Unknown keys are rejected at every level.
import { Cause, Exit, Schema, SchemaIssue } from "effect"
import { TestError } from "./testErrors.ts"
import type { Json } from "../core/json.ts"
import { describeYamlValue, formatPath, valueAtPath } from "../core/schemaPath.ts"
import { describeY, entries, lineAtPath, parseYaml, runStatic } from "../lang/load/yaml.ts"
import { type Assertion, ASSERTION_FIELDS, ASSERTION_TYPES, AssertionSchema } from "./assertions.ts"

export const TEST_FILE_KEYS = ["workflow", "input", "inputs", "replay", "assert"] as const

export const TestFileSchema = Schema.Struct({
  workflow: Schema.String.annotate({ description: "The workflow under test, relative to this file" }),
  input: Schema.optionalKey(
    Schema.Json.annotate({
      description: "The workflow's first input (typed; default null), checked against its input_schema"
    })
  ),
  inputs: Schema.optionalKey(
    Schema.NullOr(Schema.Record(Schema.String, Schema.Json)).annotate({
      description:
        "Values for the inputs the workflow declares under `inputs:` (typed YAML values, checked against their schemas)"
    })
  ),
  replay: Schema.String.annotate({
    description:
      "Cassette directory made by `lait run --record`, relative to this file; every model request is answered from it"
  }),
  assert: Schema.optionalKey(
    Schema.NullOr(Schema.Array(AssertionSchema)).annotate({
      description: "Checked in order against the output (text form) and the run's trace; all are evaluated"
    })
  )
}).annotate({ title: "lait test file" })

export interface TestDefinition {
  readonly workflow: string
  readonly input: Json
  readonly inputs: Readonly<Record<string, Json>>
  readonly replay: string
  readonly assert: ReadonlyArray<Assertion>
}

/** The JSON Schema document of a test file (draft 2020-12), for `lait schema test` and editors. */
export const testFileJsonSchema = () => {
  const doc = Schema.toJsonSchemaDocument(TestFileSchema, { onExcessProperty: "error" })
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    ...doc.schema,
    ...(Object.keys(doc.definitions).length > 0 ? { $defs: doc.definitions } : {})
  }
}

const decode = Schema.decodeUnknownExit(TestFileSchema, { onExcessProperty: "error" })
const formatIssues = SchemaIssue.makeFormatterStandardSchemaV1()

type Segment = string | number

const knownTypes = ASSERTION_TYPES.join(", ")

/** The schema's wording turned into the loader's: which key, what was expected. */
const explain = (
  raw: unknown,
  path: ReadonlyArray<Segment>,
  message: string
): { at: ReadonlyArray<Segment>; text: string } => {
  const last = path.at(-1)
  const parentPath = path.slice(0, -1)
  if (message === "Expected no excess property" && typeof last === "string") {
    const parent = valueAtPath(raw, parentPath) as { readonly type?: unknown } | undefined
    const accepted = parentPath.length === 0
      ? `test definitions accept: ${TEST_FILE_KEYS.join(", ")}`
      : typeof parent?.type === "string" && parent.type in ASSERTION_FIELDS
      ? `'${parent.type}' assertions accept: type, ${
        ASSERTION_FIELDS[parent.type as keyof typeof ASSERTION_FIELDS].join(", ")
      }`
      : undefined
    return { at: parentPath, text: `unknown key '${last}'${accepted === undefined ? "" : `; ${accepted}`}` }
  }
  if (message === "Missing key" && typeof last === "string") {
    return { at: parentPath, text: `missing required key '${last}'` }
  }
  // An issue on an assertion item itself (not a key inside it) is the union finding no member:
  // say what is wrong with its `type`.
  if (typeof last === "number" && parentPath.at(-1) === "assert") {
    const item = valueAtPath(raw, path)
    if (typeof item !== "object" || item === null || Array.isArray(item)) {
      return { at: path, text: `an assertion must be a mapping with a 'type', got ${describeYamlValue(item)}` }
    }
    const type = (item as { readonly type?: unknown }).type
    if (type === undefined) return { at: path, text: `missing required key 'type' (one of: ${knownTypes})` }
    return {
      at: [...path, "type"],
      text: typeof type === "string"
        ? `unknown assertion type '${type}'; expected one of: ${knownTypes}`
        : `'type' must be a string, got ${describeYamlValue(type)}; expected one of: ${knownTypes}`
    }
  }
  const text = message.length > 0 ? message[0]!.toLowerCase() + message.slice(1) : message
  return { at: path, text }
}

/**
 * Parses a test definition's text. Errors read `failed to parse test definition '<path>': <where>:
 * <problem> (line N)`.
 */
export const parseTestDefinition = (text: string, path: string): TestDefinition | TestError => {
  const failure = (detail: string, line: number | undefined) =>
    new TestError({ reason: { _tag: "ParseFailed", path, detail, ...(line === undefined ? {} : { line }) } })
  const parsed = parseYaml(text)
  if (!parsed.ok) return failure(parsed.message.replace(/ at line \d+, column \d+$/, ""), parsed.line)
  const src = parsed.source
  const root = src.wrap(src.doc.contents, 1)
  const fields = entries(src, root)
  if (fields === undefined) {
    return failure(
      `a test definition must be a YAML mapping, got ${describeY(src, root)}`,
      root.node === null ? undefined : root.line
    )
  }
  // Key by key, so a value JSON cannot hold (`.inf`) is reported at its own key and line.
  const converted = runStatic(() => {
    const out: Record<string, Json> = {}
    for (const field of fields) out[field.key] = src.json(field.value, field.key)
    return out
  })
  if (!converted.ok) return failure(converted.error.message, converted.error.line)
  const raw = converted.value
  const exit = decode(raw)
  if (Exit.isFailure(exit)) {
    const error = Cause.squash(exit.cause)
    const issue = Schema.isSchemaError(error) ? formatIssues(error.issue).issues[0] : undefined
    const path = ((issue?.path ?? []) as ReadonlyArray<PropertyKey>).map((s) => typeof s === "number" ? s : String(s))
    const { at, text } = explain(raw, path, issue?.message ?? String(error))
    const where = formatPath(at)
    return failure(where === "" ? text : `${where}: ${text}`, lineAtPath(src, path))
  }
  const value = exit.value
  return {
    workflow: value.workflow,
    input: value.input ?? null,
    inputs: value.inputs ?? {},
    replay: value.replay,
    assert: value.assert ?? []
  }
}
