// An eval definition file (docs/evals.md#eval-file-format): what to run — a workflow file
// (with values for its `inputs:`) or a model with a prompt template — and the cases, each an input
// text and the assertions its output must satisfy (the `lait test` vocabulary). Unknown keys are
// rejected at every level. `EvalFileSchema` is also the source of `lait schema eval`.
import { Cause, Effect, Exit, Schema, SchemaIssue } from "effect"
import { EvalError } from "./evalErrors.ts"
import { FileLoader } from "../platform/FileLoader.ts"
import type { Json } from "../core/json.ts"
import { describeYamlValue, formatPath, valueAtPath } from "../core/schemaPath.ts"
import { lineAtPath, parseYaml, runStatic } from "../lang/load/yaml.ts"
import { type Assertion, ASSERTION_FIELDS, ASSERTION_TYPES, AssertionSchema } from "../testing/assertions.ts"

export const EVAL_FILE_KEYS = ["target", "cases"] as const
export const WORKFLOW_TARGET_KEYS = ["workflow", "inputs"] as const
export const PROMPT_TARGET_KEYS = ["model", "prompt"] as const
export const CASE_KEYS = ["input", "assert"] as const

export const WorkflowTargetSchema = Schema.Struct({
  workflow: Schema.String.annotate({ description: "Workflow file to run, relative to this eval file" }),
  inputs: Schema.optionalKey(
    Schema.NullOr(Schema.Record(Schema.String, Schema.Json)).annotate({
      description: "Values for the workflow's declared inputs: (typed), resolved once for all cases"
    })
  )
}).annotate({ title: "workflow target" })

export const PromptTargetSchema = Schema.Struct({
  model: Schema.String.annotate({ description: "A lait.config.yml models: alias, or a raw model id" }),
  prompt: Schema.String.annotate({
    description:
      "Handlebars template rendered per case with {{input}} (the case input, JSON-parsed when it is JSON); " +
      "sent as one user message"
  })
}).annotate({ title: "model + prompt target" })

export const EvalCaseSchema = Schema.Struct({
  input: Schema.String.annotate({
    description: "The case input (text; a workflow target reads it through its input_schema)"
  }),
  assert: Schema.optionalKey(
    Schema.NullOr(Schema.Array(AssertionSchema)).annotate({
      description: "Checked against every run's output (text form) and trace; all are evaluated"
    })
  )
})

const fileSchema = <T extends Schema.Top>(target: T) =>
  Schema.Struct({
    target,
    cases: Schema.Array(EvalCaseSchema).annotate({ description: "Each case runs --repeat times" })
  })

export const EvalFileSchema = fileSchema(
  Schema.Union([WorkflowTargetSchema, PromptTargetSchema]).annotate({
    description: "Either {workflow, inputs?} or {model, prompt}"
  })
).annotate({ title: "lait eval definition" })

/** The JSON Schema document of an eval file (draft 2020-12), for `lait schema eval` and editors. */
export const evalFileJsonSchema = (): { readonly [key: string]: unknown } => {
  const doc = Schema.toJsonSchemaDocument(EvalFileSchema, { onExcessProperty: "error" })
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    ...doc.schema,
    ...(Object.keys(doc.definitions).length > 0 ? { $defs: doc.definitions } : {})
  }
}

export type EvalTarget =
  | { readonly kind: "workflow"; readonly workflow: string; readonly inputs: Readonly<Record<string, Json>> }
  | { readonly kind: "prompt"; readonly model: string; readonly prompt: string }

export interface EvalCase {
  readonly input: string
  readonly assert: ReadonlyArray<Assertion>
}

export interface EvalDefinition {
  readonly target: EvalTarget
  readonly cases: ReadonlyArray<EvalCase>
}

// The target is untagged; deciding the shape from its keys first lets a mistake be reported against
// that shape ("unknown key 'modle'") instead of as two failed alternatives.
const decodeWorkflowFile = Schema.decodeUnknownExit(fileSchema(WorkflowTargetSchema), { onExcessProperty: "error" })
const decodePromptFile = Schema.decodeUnknownExit(fileSchema(PromptTargetSchema), { onExcessProperty: "error" })
const formatIssues = SchemaIssue.makeFormatterStandardSchemaV1()

type Segment = string | number

const isMapping = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const knownTypes = ASSERTION_TYPES.join(", ")

/** Which keys the mapping at `parentPath` accepts, for an unknown-key message. */
const acceptedKeys = (raw: unknown, parentPath: ReadonlyArray<Segment>): string | undefined => {
  if (parentPath.length === 0) return `eval definitions accept: ${EVAL_FILE_KEYS.join(", ")}`
  if (parentPath.length === 1 && parentPath[0] === "target") {
    const target = valueAtPath(raw, parentPath)
    return isMapping(target) && "workflow" in target
      ? `a workflow target accepts: ${WORKFLOW_TARGET_KEYS.join(", ")}`
      : `a model target accepts: ${PROMPT_TARGET_KEYS.join(", ")}`
  }
  if (parentPath.length === 2 && parentPath[0] === "cases") return `cases accept: ${CASE_KEYS.join(", ")}`
  const parent = valueAtPath(raw, parentPath) as { readonly type?: unknown } | undefined
  return typeof parent?.type === "string" && parent.type in ASSERTION_FIELDS
    ? `'${parent.type}' assertions accept: type, ${
      ASSERTION_FIELDS[parent.type as keyof typeof ASSERTION_FIELDS].join(", ")
    }`
    : undefined
}

/** The schema's wording turned into the loader's: which key, what was expected. */
const explain = (
  raw: unknown,
  path: ReadonlyArray<Segment>,
  message: string
): { at: ReadonlyArray<Segment>; text: string } => {
  const last = path.at(-1)
  const parentPath = path.slice(0, -1)
  if (message === "Expected no excess property" && typeof last === "string") {
    const accepted = acceptedKeys(raw, parentPath)
    return { at: parentPath, text: `unknown key '${last}'${accepted === undefined ? "" : `; ${accepted}`}` }
  }
  if (message === "Missing key" && typeof last === "string") {
    return { at: parentPath, text: `missing required key '${last}'` }
  }
  // A union mismatch on an assertion item: say what is wrong with its `type`.
  if (
    (message === "Expected Assertion" || message.startsWith("Expected {")) && typeof last === "number" &&
    parentPath.at(-1) === "assert"
  ) {
    const item = valueAtPath(raw, path)
    if (!isMapping(item)) {
      return { at: path, text: `an assertion must be a mapping with a 'type', got ${describeYamlValue(item)}` }
    }
    const type = item["type"]
    if (type === undefined) return { at: path, text: `missing required key 'type' (one of: ${knownTypes})` }
    return {
      at: [...path, "type"],
      text: typeof type === "string"
        ? `unknown assertion type '${type}'; expected one of: ${knownTypes}`
        : `'type' must be a string, got ${describeYamlValue(type)}; expected one of: ${knownTypes}`
    }
  }
  const text = message.length > 0 ? message[0]!.toLowerCase() + message.slice(1) : message
  // "Expected string" alone does not say what was there instead.
  if (/^Expected [a-z]+$/.test(message)) {
    return { at: path, text: `${text}, got ${describeYamlValue(valueAtPath(raw, path))}` }
  }
  return { at: path, text }
}

/**
 * Parses an eval definition's text. Errors are EvalErrors (exit 3) reading
 * `failed to parse eval definition '<path>': <where>: <problem> (line N)`.
 */
export const parseEvalDefinition = (text: string, path: string): EvalDefinition | EvalError => {
  const failure = (detail: string, line: number | undefined) =>
    new EvalError({ reason: { _tag: "ParseFailed", path, detail, ...(line === undefined ? {} : { line }) } })
  const parsed = parseYaml(text)
  // The parser's `at line L, column C` would repeat the `(line L)` that failure() appends.
  if (!parsed.ok) return failure(parsed.message.replace(/ at line \d+, column \d+$/, ""), parsed.line)
  const src = parsed.source
  const converted = runStatic(() => src.json(src.wrap(src.doc.contents), "the eval definition"))
  if (!converted.ok) return failure(converted.error.message, converted.error.line)
  const raw = converted.value
  if (!isMapping(raw)) {
    return failure(`an eval definition must be a YAML mapping, got ${describeYamlValue(raw)}`, lineAtPath(src, []))
  }
  const target = raw["target"]
  if (target !== undefined && !isMapping(target)) {
    return failure(
      `target: expected a mapping, either {workflow, inputs?} or {model, prompt}, got ${describeYamlValue(target)}`,
      lineAtPath(src, ["target"])
    )
  }
  if (isMapping(target) && !["workflow", "inputs", "model", "prompt"].some((key) => key in target)) {
    return failure(
      "target: expected either 'workflow' (with optional 'inputs') or 'model' and 'prompt'",
      lineAtPath(src, ["target"])
    )
  }
  const isWorkflow = target === undefined || "workflow" in target || ("inputs" in target && !("model" in target))
  const exit: Exit.Exit<
    {
      readonly target:
        | { readonly workflow: string; readonly inputs?: Readonly<Record<string, Json>> | null }
        | { readonly model: string; readonly prompt: string }
      readonly cases: ReadonlyArray<{ readonly input: string; readonly assert?: ReadonlyArray<Assertion> | null }>
    },
    Schema.SchemaError
  > = isWorkflow ? decodeWorkflowFile(raw) : decodePromptFile(raw)
  if (Exit.isFailure(exit)) {
    const error = Cause.squash(exit.cause)
    const issue = Schema.isSchemaError(error) ? formatIssues(error.issue).issues[0] : undefined
    const issuePath = ((issue?.path ?? []) as ReadonlyArray<PropertyKey>).map((s) =>
      typeof s === "number" ? s : String(s)
    )
    const { at, text: detail } = explain(raw, issuePath, issue?.message ?? String(error))
    const where = formatPath(at)
    return failure(where === "" ? detail : `${where}: ${detail}`, lineAtPath(src, issuePath))
  }
  const value = exit.value
  const decodedTarget = value.target
  return {
    target: "workflow" in decodedTarget
      ? { kind: "workflow", workflow: decodedTarget.workflow, inputs: decodedTarget.inputs ?? {} }
      : { kind: "prompt", model: decodedTarget.model, prompt: decodedTarget.prompt },
    cases: value.cases.map((c) => ({ input: c.input, assert: c.assert ?? [] }))
  }
}

/** Reads (through FileLoader: 16 MiB cap, UTF-8, a FIFO waits for its writer) and parses an eval file. */
export const loadEvalDefinition = (
  path: string
): Effect.Effect<EvalDefinition, EvalError, FileLoader> =>
  Effect.gen(function*() {
    const loader = yield* FileLoader
    const text = yield* loader.readText(path, { waitForWriter: true }).pipe(
      Effect.mapError((e) =>
        new EvalError({ reason: { _tag: "ReadFailed", path, detail: String(e.cause ?? e.message) } })
      )
    )
    const parsed = parseEvalDefinition(text, path)
    return parsed instanceof EvalError ? yield* parsed : parsed
  })
