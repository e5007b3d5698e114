// Agent Markdown files (docs/workflows.md#agent-files): `---` frontmatter with model settings and schemas, then
// the system-prompt template. In version 2, `output_schema` alone turns on structured output.
import { Effect, Exit, Schema, SchemaIssue } from "effect"
import * as nodePath from "node:path"
import { renderChain } from "../core/errors.ts"
import { FileLoader } from "../platform/FileLoader.ts"
import { isJsonObject, type Json, type JsonObject } from "../core/json.ts"
import { parseYamlValue } from "../core/yamlTree.ts"
import { AGENT_FILE_KEYS } from "./fileKeys.ts"
import { agentFileSchema } from "./fileSchema.ts"
import { WorkflowLoadError } from "./loadErrors.ts"
import type { AgentDefinition, ReasoningEffort, SchemaRef } from "./model.ts"

/** The frontmatter keys, from the same table as `lait schema agent` (src/lang/fileSchema.ts). */
export const AGENT_FIELDS: ReadonlyArray<string> = AGENT_FILE_KEYS

const EFFORTS: ReadonlyArray<ReasoningEffort> = ["none", "minimal", "low", "medium", "high", "xhigh"]

/** Splits `---\n<yaml>\n---\n<body>`; the frontmatter ends at the next line that is exactly `---`. */
export const splitFrontmatter = (
  contents: string,
  kind = "agent file"
): { readonly frontmatter: string; readonly body: string } | string => {
  const lines = contents.split(/(?<=\n)/)
  const first = lines[0] ?? ""
  if (first.replace(/\r?\n$/, "") !== "---") return `${kind} must start with a '---' frontmatter delimiter`
  let offset = first.length
  for (const line of lines.slice(1)) {
    if (line.replace(/\r?\n$/, "") === "---") {
      return { frontmatter: contents.slice(first.length, offset), body: contents.slice(offset + line.length) }
    }
    offset += line.length
  }
  return `${kind} frontmatter has no closing '---' delimiter`
}

const fail = (detail: string) => new WorkflowLoadError({ reason: { _tag: "AgentField", detail } })

const stringList = (value: unknown, key: string): ReadonlyArray<string> => {
  if (!Array.isArray(value) || value.some((v) => typeof v !== "string")) {
    throw fail(`'${key}' must be a list of names`)
  }
  return value as ReadonlyArray<string>
}

const schemaRef = (value: unknown, key: string, dir: string): SchemaRef => {
  if (!isJsonObject(value as Json)) throw fail(`'${key}' must be an inline JSON Schema or {file: path}`)
  const obj = value as JsonObject
  const keys = Object.keys(obj)
  if (keys.length === 1 && keys[0] === "file") {
    if (typeof obj["file"] !== "string" || obj["file"] === "") throw fail(`'${key}.file' must be a path`)
    return { source: { kind: "file", path: nodePath.resolve(dir, obj["file"]) } }
  }
  return { source: { kind: "inline", schema: obj } }
}

const numberIn = (value: unknown, key: string, min: number, max: number, integer: boolean): number => {
  if (typeof value !== "number" || !Number.isFinite(value) || (integer && !Number.isInteger(value))) {
    throw fail(`'${key}' must be ${integer ? "an integer" : "a number"}`)
  }
  if (value < min || value > max) {
    throw fail(
      max === Number.MAX_SAFE_INTEGER
        ? `'${key}' must be at least ${min}, got ${value}`
        : `'${key}' must be between ${min} and ${max}, got ${value}`
    )
  }
  return value
}

// `pick` builds the struct from a key table, so its field types are only known as Schema.Top.
const decodeFrontmatter = Schema.decodeUnknownExit(
  agentFileSchema as unknown as Schema.Codec<Readonly<Record<string, unknown>>>,
  { onExcessProperty: "error" }
)

// The checks above give the friendly messages; this keeps the parser from ever accepting a file the
// published JSON Schema (`lait schema agent`) rejects. Null values mean "unset" here, as above.
const checkAgainstFileSchema = (fields: Readonly<Record<string, unknown>>): void => {
  const set = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== null && v !== undefined))
  const exit = decodeFrontmatter(set)
  if (Exit.isSuccess(exit)) return
  const error = exit.cause.reasons.find((r) => r._tag === "Fail")
  const issue = error !== undefined && Schema.isSchemaError(error.error)
    ? SchemaIssue.makeFormatterStandardSchemaV1()(error.error.issue).issues[0]
    : undefined
  const at = (issue?.path ?? []).map(String).join(".")
  throw fail(`${at === "" ? "" : `'${at}': `}${issue?.message ?? "does not match the agent file schema"}`)
}

/**
 * Builds an agent definition from frontmatter-shaped fields (an agent file's frontmatter, or an
 * inline `agents:` entry whose `system:` plays the body). Throws WorkflowLoadError on bad fields.
 */
export const agentFromFields = (
  fields: Readonly<Record<string, unknown>>,
  system: string,
  dir: string,
  allowed: ReadonlyArray<string> = AGENT_FIELDS
): AgentDefinition => {
  for (const key of Object.keys(fields)) {
    if (!allowed.includes(key)) throw fail(`unknown field '${key}'; agents accept: ${allowed.join(", ")}`)
  }
  const str = (key: string): string | undefined => {
    const v = fields[key]
    if (v === undefined || v === null) return undefined
    if (typeof v !== "string") throw fail(`'${key}' must be a string`)
    return v
  }
  const effort = str("reasoning_effort")
  if (effort !== undefined && !EFFORTS.includes(effort as ReasoningEffort)) {
    throw fail(`'reasoning_effort' must be one of ${EFFORTS.join(", ")}, got '${effort}'`)
  }
  const schemaName = str("schema_name")
  if (schemaName !== undefined) {
    if (fields["output_schema"] === undefined) throw fail("'schema_name' requires 'output_schema'")
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(schemaName)) {
      throw fail(`invalid schema name "${schemaName}": use 1-64 ASCII letters, digits, '_' or '-'`)
    }
  }
  const out: Record<string, unknown> = { system, dir }
  const name = str("name")
  const description = str("description")
  const model = str("model")
  if (name !== undefined) out["name"] = name
  if (description !== undefined) out["description"] = description
  if (model !== undefined) out["model"] = model
  if (effort !== undefined) out["reasoning_effort"] = effort
  if (fields["temperature"] != null) out["temperature"] = numberIn(fields["temperature"], "temperature", 0, 2, false)
  if (fields["top_p"] != null) out["top_p"] = numberIn(fields["top_p"], "top_p", 0, 1, false)
  if (fields["max_tokens"] != null) {
    out["max_tokens"] = numberIn(fields["max_tokens"], "max_tokens", 1, Number.MAX_SAFE_INTEGER, true)
  }
  if (fields["max_tool_rounds"] != null) {
    out["max_tool_rounds"] = numberIn(fields["max_tool_rounds"], "max_tool_rounds", 1, Number.MAX_SAFE_INTEGER, true)
  }
  for (const key of ["mcp", "skills", "subagents", "tools"] as const) {
    if (fields[key] != null) out[key] = stringList(fields[key], key)
  }
  if (fields["input_schema"] != null) out["inputSchema"] = schemaRef(fields["input_schema"], "input_schema", dir)
  if (fields["output_schema"] != null) out["outputSchema"] = schemaRef(fields["output_schema"], "output_schema", dir)
  if (schemaName !== undefined) out["schemaName"] = schemaName
  if (allowed === AGENT_FIELDS) checkAgainstFileSchema(fields)
  return out as unknown as AgentDefinition
}

export const parseAgentText = (contents: string, path: string): Effect.Effect<AgentDefinition, WorkflowLoadError> =>
  Effect.try({
    try: () => {
      const split = splitFrontmatter(contents)
      if (typeof split === "string") throw fail(split)
      let frontmatter: unknown
      try {
        frontmatter = parseYamlValue(split.frontmatter) ?? {}
      } catch (e) {
        const detail = e instanceof Error ? e.message : String(e)
        throw new WorkflowLoadError({ reason: { _tag: "AgentFrontmatter", detail } })
      }
      if (!isJsonObject(frontmatter as Json)) throw fail("the frontmatter must be a YAML mapping")
      return agentFromFields(frontmatter as Record<string, unknown>, split.body.trim(), nodePath.dirname(path))
    },
    catch: (e) =>
      new WorkflowLoadError({
        reason: { _tag: "AgentFileInvalid", path, cause: e instanceof WorkflowLoadError ? e : String(e) }
      })
  })

export const loadAgentFile = (
  path: string
): Effect.Effect<AgentDefinition, WorkflowLoadError, FileLoader> =>
  Effect.gen(function*() {
    const text = yield* FileLoader.use((f) => f.readText(path)).pipe(
      Effect.mapError((cause) =>
        new WorkflowLoadError({ reason: { _tag: "AgentFileRead", path, detail: renderChain(cause) } })
      )
    )
    return yield* parseAgentText(text, path)
  })
