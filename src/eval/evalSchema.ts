// The Effect Schema of an eval definition file (./schema.ts has its types and the parser): it decodes
// the file's parts and words every error, and it is the source of `lait schema eval`. Loaded with
// `import()` (./schema.ts withEvalSchema) by a command that reads an eval or cases file.
import { Cause, Exit, Schema, SchemaIssue } from "effect"
import type { Json } from "../core/json.ts"
import { valueAtPath } from "../core/schemaPath.ts"
import { AssertionSchema, explainIssue } from "../testing/assertionSchema.ts"
import { acceptedKeys, type DecodedCase, type Issue, type Segment } from "./evalKeys.ts"
import { jsonSchemaDocument } from "../core/jsonSchemaDocument.ts"
import { ExecCommandSchema, ExecFields, HttpSchema, OutputJqSchema } from "../testing/testFile.ts"

const targetName = Schema.optionalKey(
  Schema.String.annotate({ description: "How reports name this target (default: its workflow or model)" })
)

export const WorkflowTargetSchema = Schema.Struct({
  name: targetName,
  workflow: Schema.String.annotate({ description: "Workflow file to run, relative to this eval file" }),
  inputs: Schema.optionalKey(
    Schema.NullOr(Schema.Record(Schema.String, Schema.Json)).annotate({
      description: "Values for the workflow's declared inputs: (typed), for all cases; a case's inputs: override them"
    })
  )
}).annotate({ title: "workflow target" })

export const PromptTargetSchema = Schema.Struct({
  name: targetName,
  model: Schema.String.annotate({ description: "A lait.config.yml models: alias, or a raw model id" }),
  prompt: Schema.String.annotate({
    description: "Handlebars template rendered per case with {{input}} (the case input, JSON-parsed when it is " +
      "JSON text) and {{vars.x}} (the case's vars); sent as one user message"
  })
}).annotate({ title: "model + prompt target" })

export const ExecTargetSchema = Schema.Struct({
  name: targetName,
  ...ExecFields,
  exec: ExecCommandSchema
}).annotate({ title: "exec target", description: "An app run per case (docs/apps.md#exec-targets)" })

export const HttpTargetSchema = Schema.Struct({
  name: targetName,
  http: HttpSchema,
  output_jq: Schema.optionalKey(OutputJqSchema),
  timeout: ExecFields.timeout
}).annotate({ title: "http target", description: "A running service, asked once per case (docs/apps.md#http-targets)" })

const TargetSchema = Schema.Union([WorkflowTargetSchema, PromptTargetSchema, ExecTargetSchema, HttpTargetSchema])
  .annotate({
    description: "Either {workflow, inputs?, name?}, {model, prompt, name?}, {exec, ...} or {http, output_jq?, ...}"
  })

const assertList = (description: string) =>
  Schema.optionalKey(Schema.NullOr(Schema.Array(AssertionSchema)).annotate({ description }))

export const EvalCaseSchema = Schema.Struct({
  name: Schema.optionalKey(
    Schema.String.annotate({ description: "Shown in every report and the JUnit test name (default: case <n>)" })
  ),
  input: Schema.Json.annotate({
    description: "The case input: text is read through a workflow's input_schema (as lait run reads PROMPT); " +
      "any other YAML value is taken as it is"
  }),
  inputs: Schema.optionalKey(
    Schema.NullOr(Schema.Record(Schema.String, Schema.Json)).annotate({
      description: "Values for a workflow target's declared inputs: for this case, over target.inputs"
    })
  ),
  vars: Schema.optionalKey(
    Schema.NullOr(Schema.Record(Schema.String, Schema.Json)).annotate({
      description: "Values a model target's prompt template reads as {{vars.<name>}}"
    })
  ),
  assert: assertList("Checked against every run's output (text form) and trace; all are evaluated")
})

export const CasesFileSchema = Schema.Struct({
  file: Schema.String.annotate({
    description:
      "A .jsonl, .json (an array), .csv or .yml/.yaml file of cases, relative to this eval file (at most 16 MiB)"
  })
}).annotate({ title: "cases file" })

export const EvalFileSchema = Schema.Struct({
  target: Schema.optionalKey(TargetSchema),
  targets: Schema.optionalKey(
    Schema.Array(TargetSchema).annotate({
      description: "Several targets to compare: every case runs against each (instead of target:)"
    })
  ),
  cases: Schema.Union([
    Schema.Array(EvalCaseSchema).annotate({ description: "Each case runs --repeat times" }),
    CasesFileSchema
  ]),
  default_assert: assertList("Assertions added after every case's own")
}).annotate({ title: "lait eval definition", description: "Exactly one of target: and targets: is required" })

// The decoded case's type is DecodedCase (./evalKeys.ts), which ./schema.ts completes: a field added to
// one and not the other fails here.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false
const sameCase: Same<typeof EvalCaseSchema.Type, DecodedCase> = true
void sameCase
const plainJson: Same<Schema.Json, Json> = true
void plainJson

/** `default_assert:`, a null or a list of assertions. */
export const AssertListSchema = Schema.NullOr(Schema.Array(AssertionSchema))

/** Inline cases. */
export const EvalCasesSchema = Schema.Array(EvalCaseSchema)


/** The JSON Schema document of an eval file (draft 2020-12), for `lait schema eval` and editors. */
export const evalFileJsonSchema = () => jsonSchemaDocument(EvalFileSchema)

/** The schema's wording turned into the loader's: which key, what was expected. */
const explain = (raw: unknown, path: ReadonlyArray<Segment>, message: string) =>
  explainIssue(raw, path, message, {
    acceptedKeys: (parentPath) => acceptedKeys(raw, parentPath),
    // A union mismatch on an item of `assert:` or `default_assert:`.
    isAssertionItem: (itemPath, m) => {
      const parentPath = itemPath.slice(0, -1)
      return (m === "Expected Assertion" || m.startsWith("Expected {")) &&
        (parentPath.at(-1) === "assert" || (parentPath.length === 1 && parentPath[0] === "default_assert"))
    },
    sayWhatWasThere: true
  })

const formatIssues = SchemaIssue.makeFormatterStandardSchemaV1()

/** A part of the document decoded on its own; a failure names its place in the whole (`prefix`). */
export const decodeAt = <S extends Schema.Top>(
  schema: S,
  root: unknown,
  prefix: ReadonlyArray<Segment>
): S["Type"] | Issue => {
  const codec = schema as unknown as Schema.Codec<S["Type"], unknown>
  const exit = Schema.decodeUnknownExit(codec, { onExcessProperty: "error" })(valueAtPath(root, prefix))
  if (Exit.isSuccess(exit)) return exit.value
  const error = Cause.squash(exit.cause)
  const issue = Schema.isSchemaError(error) ? formatIssues(error.issue).issues[0] : undefined
  const own = ((issue?.path ?? []) as ReadonlyArray<PropertyKey>).map((s) => typeof s === "number" ? s : String(s))
  const path = [...prefix, ...own]
  return { ...explain(root, path, issue?.message ?? String(error)), path }
}
