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
import { type ExecTarget, execTarget, type HttpTarget, httpTarget } from "../proxy/execTarget.ts"

export const TEST_FILE_KEYS = [
  "workflow",
  // An app instead of a workflow (docs/apps.md#exec-targets)
  "exec",
  "input_mode",
  "env",
  "timeout",
  "http",
  "output_jq",
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

/** `exec:`, `input_mode:`, `env:` and `timeout:`: shared by test files and eval targets (docs/apps.md). */
export const ExecCommandSchema = Schema.Union([Schema.NonEmptyString, Schema.NonEmptyArray(Schema.String)]).annotate({
  description: "An app to run instead of a workflow: a command line (split like a shell's words, run without " +
    "a shell) or a list of arguments. Its model calls go through a lait proxy (OPENAI_BASE_URL); stdout is the output"
})

export const ExecFields = {
  exec: Schema.optionalKey(ExecCommandSchema),
  input_mode: Schema.optionalKey(
    Schema.Literals(["stdin", "arg"]).annotate({
      description: "With exec: the input goes to stdin (default) or is appended as the last argument"
    })
  ),
  env: Schema.optionalKey(
    Schema.NullOr(Schema.Record(Schema.String, Schema.String)).annotate({
      description: "With exec: variables added to the app's environment"
    })
  ),
  timeout: Schema.optionalKey(
    Schema.Finite.check(Schema.isGreaterThan(0)).annotate({
      description: "With exec: seconds the app may run (default 300); then it is stopped and the run is an error"
    })
  )
}

/** `http:` (docs/apps.md#http-targets): shared by test files and eval targets. */
export const HttpSchema = Schema.Struct({
  url: Schema.String.annotate({ description: "Handlebars template over {{input}} and {{vars.x}}" }),
  method: Schema.optionalKey(Schema.Literals(["GET", "POST", "PUT", "PATCH"])),
  headers: Schema.optionalKey(
    Schema.NullOr(Schema.Record(Schema.String, Schema.String)).annotate({ description: "Values are templates" })
  ),
  body: Schema.optionalKey(
    Schema.Json.annotate({
      description: "Text (a template, sent as it renders) or any YAML value (sent as JSON, its strings templates)"
    })
  )
}).annotate({ description: "A running service asked once per input (default method: POST with a body, else GET)" })

export const OutputJqSchema = Schema.String.annotate({
  description: "With http: a jq filter that picks the output from the JSON answer (default: the answer's text)"
})

export const TestFileSchema = Schema.Struct({
  workflow: Schema.optionalKey(
    Schema.String.annotate({ description: "The workflow under test, relative to this file (or `exec:`)" })
  ),
  ...ExecFields,
  http: Schema.optionalKey(HttpSchema),
  output_jq: Schema.optionalKey(OutputJqSchema),
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
  /** Exactly one of `workflow`, `exec` and `http` is set. */
  readonly workflow: string | undefined
  readonly exec?: ExecTarget
  readonly http?: HttpTarget
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
  if ([value.workflow, value.exec, value.http].filter((v) => v !== undefined).length !== 1) {
    return failure("a test definition needs exactly one of 'workflow', 'exec' and 'http'", root.line)
  }
  if (value.output_jq !== undefined && value.http === undefined) {
    return failure("'output_jq' needs 'http'", lineAtPath(src, ["output_jq"]))
  }
  // `timeout` serves both kinds of app.
  const { timeout: _httpTimeout, ...rest } = value
  const exec = execTarget(value.http === undefined ? value : rest)
  if (typeof exec === "string") return failure(exec, lineAtPath(src, ["exec"]))
  const workdir = value.workdir ?? undefined
  const fixtures = value.fixtures ?? []
  // Fixtures go into a directory lait made; copying them into a real one would change the checkout.
  if (fixtures.length > 0 && workdir !== TEMP_WORKDIR) {
    return failure(`'fixtures' needs 'workdir: ${TEMP_WORKDIR}'`, lineAtPath(src, ["fixtures"]))
  }
  return {
    workflow: value.workflow,
    ...(exec === undefined ? {} : { exec }),
    ...(value.http === undefined ? {} : { http: httpTarget(value.http, value.output_jq, value.timeout) }),
    input: value.input ?? null,
    inputs: value.inputs ?? {},
    replay: value.replay,
    replayTools: value.replay_tools ?? false,
    assert: value.assert ?? [],
    workdir,
    fixtures
  }
}
