// A `lait test` definition file (docs/testing.md#test-file-format): the workflow under test, its first input and
// `inputs:` (typed YAML values), the cassette directory it replays, and the assertions. Paths are
// relative to the test file's directory. Unknown keys are rejected at every level.
import { Cause, Exit, Schema, SchemaIssue } from "effect"
import { TestError } from "./testErrors.ts"
import type { Json } from "../core/json.ts"
import { formatPath, valueAtPath } from "../core/schemaPath.ts"
import { describeY, entries, lineAtPath, parseYamlLined, runStatic } from "../lang/load/yaml.ts"
import { AssertionSchema, explainIssue } from "./assertionSchema.ts"
import { type Assertion, ASSERTION_FIELDS } from "./assertions.ts"
import { jsonSchemaDocument } from "../core/jsonSchemaDocument.ts"

export const TEST_FILE_KEYS = [
  "workflow",
  "input",
  "inputs",
  "replay",
  "replay_tools",
  "assert",
  // Isolation (docs/testing.md#working-directory)
  "workdir",
  "fixtures"
] as const

/** `workdir:` value for a fresh empty directory per run. */
export const TEMP_WORKDIR = "temp"

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
      "Cassette directory, relative to this file: every model request is answered from it " +
      "(`lait test --record` records into it)"
  }),
  replay_tools: Schema.optionalKey(
    Schema.Boolean.annotate({
      description: "Answer tool calls (shell and MCP tools) from the tool cassettes in `replay` too; " +
        "no tool command runs and no MCP server starts (default false: tools run live)"
    })
  ),
  assert: Schema.optionalKey(
    Schema.NullOr(Schema.Array(AssertionSchema)).annotate({
      description: "Checked in order against the output (text form) and the run's trace; all are evaluated"
    })
  ),
  // Isolation (docs/testing.md#working-directory)
  workdir: Schema.optionalKey(
    Schema.NullOr(Schema.NonEmptyString).annotate({
      description: "The workflow's working directory: `temp` (a fresh empty directory, removed afterwards) or a " +
        "directory relative to this file; relative `files:`, `write:`, `run:`/tool `cwd` resolve inside it"
    })
  ),
  fixtures: Schema.optionalKey(
    Schema.NullOr(Schema.Array(Schema.NonEmptyString)).annotate({
      description: "Files and directories (relative to this file) copied into the `workdir: temp` directory " +
        "before the run, each under its own name"
    })
  )
}).annotate({ title: "lait test file" })

export interface TestDefinition {
  readonly workflow: string
  readonly input: Json
  readonly inputs: Readonly<Record<string, Json>>
  readonly replay: string
  readonly replayTools: boolean
  readonly assert: ReadonlyArray<Assertion>
  /** `temp`, a path relative to the test file, or undefined (the process's working directory). */
  readonly workdir: string | undefined
  readonly fixtures: ReadonlyArray<string>
}

/** The JSON Schema document of a test file (draft 2020-12), for `lait schema test` and editors. */
export const testFileJsonSchema = () => jsonSchemaDocument(TestFileSchema)

const decode = Schema.decodeUnknownExit(TestFileSchema, { onExcessProperty: "error" })
const formatIssues = SchemaIssue.makeFormatterStandardSchemaV1()

type Segment = string | number

/** The schema's wording turned into the loader's: which key, what was expected. */
const explain = (raw: unknown, path: ReadonlyArray<Segment>, message: string) =>
  explainIssue(raw, path, message, {
    acceptedKeys: (parentPath) => {
      const parent = valueAtPath(raw, parentPath) as { readonly type?: unknown } | undefined
      return parentPath.length === 0
        ? `test definitions accept: ${TEST_FILE_KEYS.join(", ")}`
        : typeof parent?.type === "string" && parent.type in ASSERTION_FIELDS
        ? `'${parent.type}' assertions accept: type, ${
          ASSERTION_FIELDS[parent.type as keyof typeof ASSERTION_FIELDS].join(", ")
        }`
        : undefined
    },
    // An issue on an assertion item itself (not a key inside it) is the union finding no member.
    isAssertionItem: (itemPath) => itemPath.at(-2) === "assert",
    sayWhatWasThere: false
  })

/**
 * Parses a test definition's text. Errors read `failed to parse test definition '<path>': <where>:
 * <problem> (line N)`.
 */
export const parseTestDefinition = (text: string, path: string): TestDefinition | TestError => {
  const failure = (detail: string, line: number | undefined) =>
    new TestError({ reason: { _tag: "ParseFailed", path, detail, ...(line === undefined ? {} : { line }) } })
  const parsed = parseYamlLined(text)
  if (!parsed.ok) return failure(parsed.message, parsed.line)
  const src = parsed.source
  const root = src.top(1)
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
  const workdir = value.workdir ?? undefined
  const fixtures = value.fixtures ?? []
  // Fixtures go into a directory lait made; copying them into a real one would change the checkout.
  if (fixtures.length > 0 && workdir !== TEMP_WORKDIR) {
    return failure(`'fixtures' needs 'workdir: ${TEMP_WORKDIR}'`, lineAtPath(src, ["fixtures"]))
  }
  return {
    workflow: value.workflow,
    input: value.input ?? null,
    inputs: value.inputs ?? {},
    replay: value.replay,
    replayTools: value.replay_tools ?? false,
    assert: value.assert ?? [],
    workdir,
    fixtures
  }
}
