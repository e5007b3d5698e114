// What the parsers of steps (./steps.ts) and of the file's top level (./document.ts) share: the parse
// context, syntax checks with upstream's message prefixes, schema references, and the field groups
// (`retry`, `timeout`, model settings) that steps, inline agents and `default:` have in common.
import * as nodePath from "node:path"
import { REASONING_EFFORTS } from "../../config/reasoningEffort.ts"
import { renderChain } from "../../core/errors.ts"
import type { Json, JsonObject } from "../../core/json.ts"
import { RETRY_KEYS } from "../fileKeys.ts"
import type { SchemaError } from "../languageErrors.ts"
import { WorkflowLoadError } from "../loadErrors.ts"
import type { DecodedModels } from "./models.ts"
import type { AgentDefinition, LlmSettings, ReasoningEffort, RetryPolicy, SchemaRef, SchemaSource } from "../model.ts"
import { checkRetryValues, checkSampling, checkTimeoutValue, debugQuote } from "./checks.ts"
import { describeY, entries, type Entry, fail, Fields, type Source, StaticError, stringOf, type Y } from "./yaml.ts"

export type Mutable<T> = { -readonly [K in keyof T]: T[K] }

/** A `{file:}` schema seen while parsing, loaded and checked once parsing is done. */
export interface FileSchemaUse {
  /** Message prefix naming the reference, e.g. `steps[0]: 'output_schema'`. */
  readonly where: string
  readonly line: number | undefined
}

export interface Syntax {
  readonly jq: (filter: string) => string | undefined
  readonly template: (source: string) => string | undefined
  /** Why a JSON Schema document does not compile (`<label>: invalid JSON Schema: ...`), or undefined. */
  readonly schemaDocument: (schema: JsonObject, label: string) => SchemaError | undefined
  /** Why `value` does not match `schema` (the message names `label`), or undefined. */
  readonly validate: (schema: JsonObject, value: Json, label: string) => SchemaError | undefined
  /** `models:` decoded (./models.ts); undefined in a first pass that has not loaded the decoder. */
  readonly models: (value: Json) => DecodedModels | undefined
}

export interface ParseContext {
  readonly src: Source
  /** Directory `{file:}` schemas and `agent:`/`workflow:` paths are relative to. */
  readonly dir: string
  readonly schemas: Readonly<Record<string, SchemaSource>>
  readonly agents: Readonly<Record<string, AgentDefinition>>
  /** Absolute path → first place that referenced it. */
  readonly fileSchemas: Map<string, FileSchemaUse>
  readonly syntax: Syntax
}

// ---------------------------------------------------------------------------------------------
// Syntax checks with upstream's context prefixes

export const checkJq = (ctx: ParseContext, filter: string, context: string, line: number | undefined): void => {
  const problem = ctx.syntax.jq(filter)
  if (problem !== undefined) fail(`${context}: ${problem}`, line)
}

export const checkTemplate = (ctx: ParseContext, source: string, context: string, line: number | undefined): void => {
  const problem = ctx.syntax.template(source)
  if (problem !== undefined) fail(`${context}: ${problem}`, line)
}

// ---------------------------------------------------------------------------------------------
// Schemas

/** An inline schema or `{file: path}`; `where` prefixes messages (`schemas.x`, `steps[0]: 'output_schema'`). */
export const schemaSource = (ctx: ParseContext, y: Y, where: string, what: string): SchemaSource => {
  const list = entries(ctx.src, y)
  if (list === undefined) {
    return fail(`${where}: expected ${what}, got ${describeY(ctx.src, y)}`, y.line)
  }
  const only = list.length === 1 ? list[0] : undefined
  if (only !== undefined && only.key === "file") {
    const file = stringOf(only.value)
    if (file === undefined || file.trim() === "") {
      return fail(`${where}: 'file' must be a non-empty path, got ${describeY(ctx.src, only.value)}`, only.keyLine)
    }
    const path = nodePath.resolve(ctx.dir, file)
    if (!ctx.fileSchemas.has(path)) ctx.fileSchemas.set(path, { where, line: only.keyLine })
    return { kind: "file", path }
  }
  const schema = ctx.src.json(y, where) as JsonObject
  const problem = ctx.syntax.schemaDocument(schema, where)
  if (problem !== undefined) fail(renderChain(problem), y.line)
  return { kind: "inline", schema }
}

const SCHEMA_REF_EXPECTED = "a 'schemas:' name, an inline JSON Schema or {file: path}"

/** A schema reference: a `schemas:` name, an inline schema, or `{file: path}`. */
export const schemaRef = (ctx: ParseContext, entry: Entry, at: string): SchemaRef => {
  const key = entry.key
  const name = stringOf(entry.value)
  if (name !== undefined) {
    const source = Object.hasOwn(ctx.schemas, name) ? ctx.schemas[name] : undefined
    if (source === undefined) {
      return fail(`${at}: '${key}' refers to schema '${name}', which is not defined in 'schemas:'`, entry.keyLine)
    }
    return { name, source }
  }
  return { source: schemaSource(ctx, entry.value, `${at}: '${key}'`, SCHEMA_REF_EXPECTED) }
}

export const takeSchema = (ctx: ParseContext, fields: Fields, key: string): SchemaRef | undefined => {
  const entry = fields.take(key)
  return entry === undefined ? undefined : schemaRef(ctx, entry, fields.at)
}

// ---------------------------------------------------------------------------------------------
// Shared field groups

export const parseRetry = (ctx: ParseContext, entry: Entry, context: string): RetryPolicy => {
  const list = entries(ctx.src, entry.value)
  if (list === undefined) {
    return fail(`${context}: expected a mapping, got ${describeY(ctx.src, entry.value)}`, entry.keyLine)
  }
  const fields = new Fields(ctx.src, context, entry.keyLine, list)
  const maxAttempts = fields.count("max_attempts")
  const delay = fields.count("delay_seconds")
  const backoff = fields.number("backoff")
  fields.finish("retry policies", RETRY_KEYS)
  if (maxAttempts === undefined) return fail(`${context}: a retry policy requires 'max_attempts'`, entry.keyLine)
  const problem = checkRetryValues(maxAttempts.value, backoff?.value ?? 1)
  if (problem !== undefined) fail(`${context}: ${problem}`, entry.keyLine)
  return { maxAttempts: maxAttempts.value, delaySeconds: delay?.value ?? 0, backoff: backoff?.value ?? 1 }
}

/** Seconds ≥ 1; `context` is the message prefix (`steps[0]: 'timeout'`, `'default.timeout'`). */
export const parseTimeout = (fields: Fields, key: string, context: string): number | undefined => {
  const timeout = fields.count(key)
  if (timeout === undefined) return undefined
  const problem = checkTimeoutValue(timeout.value)
  if (problem !== undefined) fail(`${context}: ${problem}`, timeout.line)
  return timeout.value
}

/**
 * The model settings of a step, an inline agent or `default:`. `owner` is how range messages name
 * the holder (`steps[0]`, `the workflow's 'default'`).
 */
export const parseLlm = (fields: Fields, owner: string): LlmSettings => {
  const llm: Mutable<LlmSettings> = {}
  const lines: Partial<Record<string, number | undefined>> = {}
  const model = fields.string("model")
  if (model !== undefined) llm.model = model.value
  const effortEntry = fields.take("reasoning_effort")
  if (effortEntry !== undefined) {
    const effort = stringOf(effortEntry.value)
    if (effort === undefined || !REASONING_EFFORTS.includes(effort as ReasoningEffort)) {
      fields.invalid(
        effortEntry,
        `one of ${REASONING_EFFORTS.join(", ")}`,
        effort === undefined ? undefined : debugQuote(effort)
      )
    }
    llm.reasoning_effort = effort as ReasoningEffort
  }
  for (const key of ["temperature", "top_p"] as const) {
    const value = fields.number(key)
    if (value !== undefined) {
      llm[key] = value.value
      lines[key] = value.line
    }
  }
  for (const key of ["max_tokens", "max_tool_rounds"] as const) {
    const value = fields.count(key)
    if (value !== undefined) {
      llm[key] = value.value
      lines[key] = value.line
    }
  }
  for (const key of ["mcp", "skills", "subagents", "tools"] as const) {
    const value = fields.strings(key)
    if (value !== undefined) llm[key] = value.value
  }
  const problem = checkSampling(llm, owner)
  if (problem !== undefined) fail(problem.message, lines[problem.key] ?? fields.line)
  return llm
}

/** A reference that names a file (it has a `/` or one of `extensions`) rather than a registry entry. */
export const looksLikePath = (reference: string, extensions: ReadonlyArray<string>): boolean =>
  reference.includes("/") || extensions.some((ext) => reference.endsWith(`.${ext}`))

/** Turns a StaticError into the WorkflowLoadError the loader reports. */
export const toLoadError = (error: StaticError, file: string): WorkflowLoadError =>
  new WorkflowLoadError({
    reason: {
      _tag: "Invalid",
      detail: error.message,
      file,
      ...(error.line !== undefined ? { line: error.line } : {}),
      ...(error.cause !== undefined ? { cause: error.cause } : {})
    }
  })
