// The top level of a workflow file: version detection, the top-level keys, `schemas:`, `agents:`,
// `default:`, `models:`, `inputs:`, then the steps and the whole-file rules (unique ids, placement).
// Synchronous: `{file:}` schemas are only collected here and read afterwards by load.ts.
import * as nodePath from "node:path"
import { renderChain } from "../../core/errors.ts"
import type { JsonObject } from "../../core/json.ts"
import { AGENT_KEYS, DEFAULT_KEYS, TOP_LEVEL_KEYS } from "../fileKeys.ts"
import type {
  AgentDefinition,
  InputDefinition,
  ModelDefinition,
  SchemaRef,
  SchemaSource,
  Workflow,
  WorkflowDefaults
} from "../model.ts"
import { checkName, checkPlacement, checkSchemaName, checkUniqueIds } from "./checks.ts"
import {
  checkJq,
  checkTemplate,
  type FileSchemaUse,
  type ParseContext,
  parseLlm,
  parseRetry,
  parseTimeout,
  schemaRef,
  schemaSource,
  type Syntax
} from "./fields.ts"
import { parseStepList } from "./steps.ts"
import {
  describeY,
  entries,
  type Entry,
  fail,
  Fields,
  items,
  scalarValue,
  type Source,
  stringOf,
  type Y
} from "./yaml.ts"

type Mutable<T> = { -readonly [K in keyof T]: T[K] }

const V1_MESSAGE = "this is a version 1 workflow ('nodes:'/'use:'), which this build of lait no longer runs; " +
  "rewrite it for version 2 (see the migration guide in docs/workflows.md#migrating-from-version-1)"

export interface ParsedDocument {
  readonly workflow: Workflow
  readonly fileSchemas: ReadonlyMap<string, FileSchemaUse>
}

/** Parses and checks a whole document; throws StaticError (see yaml.ts) on the first problem. */
export const parseDocumentStatic = (src: Source, path: string, syntax: Syntax): ParsedDocument => {
  const root = src.top(1)
  const list = entries(src, root)
  if (list === undefined) return fail("a workflow file must be a YAML mapping", root.line)

  const top = new Map(list.filter((e) => e.keyIsString).map((e) => [e.key, e] as const))
  const version = top.get("version")
  const nodes = top.get("nodes")
  if (nodes !== undefined || (version !== undefined && scalarValue(version.value) === 1)) {
    return fail(V1_MESSAGE, (nodes ?? version)?.keyLine)
  }
  if (version !== undefined && scalarValue(version.value) !== 2) {
    return fail(
      `unsupported workflow 'version: ${src.sourceOf(version.value)}'; this build of lait supports version 2 ` +
        `(omit 'version:' to use it)`,
      version.keyLine
    )
  }

  const fields = new Fields(src, "", root.line, list)
  // Unknown keys first, so a misspelt key is reported as such rather than as a missing 'steps'.
  fields.finish("workflow files", TOP_LEVEL_KEYS)

  const name = fields.string("name")
  const description = fields.string("description")
  const inputsEntry = fields.take("inputs")
  const inputSchemaEntry = fields.take("input_schema")
  const output = fields.string("output")
  const defaultEntry = fields.take("default")
  const models = parseModels(src, syntax, fields.take("models"))
  const schemasEntry = fields.take("schemas")
  const agentsEntry = fields.take("agents")
  const stepsEntry = fields.take("steps")
  if (stepsEntry === undefined) return fail("a workflow file requires 'steps'", root.line)

  const dir = nodePath.dirname(nodePath.resolve(path))
  const fileSchemas = new Map<string, FileSchemaUse>()
  const base = { src, dir, fileSchemas, syntax }

  const schemas = parseSchemas({ ...base, schemas: {}, agents: {} }, schemasEntry)
  const agents = parseAgents({ ...base, schemas, agents: {} }, agentsEntry)
  const ctx: ParseContext = { ...base, schemas, agents }

  const defaults = parseDefaults(ctx, defaultEntry)
  const timeout = parseTimeout(fields, "timeout", "'timeout'")
  if (output !== undefined) checkJq(ctx, output.value, "'output'", output.line)
  const inputs = parseInputs(ctx, inputsEntry)
  const inputSchema = inputSchemaEntry === undefined ? undefined : schemaRef(ctx, inputSchemaEntry, "the workflow")
  const steps = parseStepList(ctx, stepsEntry.value, "steps")

  const file = nodePath.resolve(path)
  const duplicate = checkUniqueIds(steps, file)
  if (duplicate !== undefined) fail(duplicate.message, duplicate.line)
  const misplaced = checkPlacement(steps, undefined, file)
  if (misplaced !== undefined) fail(misplaced.message, misplaced.line)

  const workflow: Workflow = {
    path: file,
    dir,
    ...(name !== undefined ? { name: name.value } : {}),
    ...(description !== undefined ? { description: description.value } : {}),
    inputs,
    ...(inputSchema !== undefined ? { inputSchema } : {}),
    ...(output !== undefined ? { output: output.value } : {}),
    ...(timeout !== undefined ? { timeout } : {}),
    defaults,
    models,
    schemas,
    agents,
    steps
  }
  return { workflow, fileSchemas }
}

const mappingOf = (src: Source, entry: Entry, expected: string): ReadonlyArray<Entry> => {
  if (entry.value.node === null) return []
  const list = entries(src, entry.value)
  if (list === undefined) {
    return fail(`invalid '${entry.key}': expected ${expected}, got ${describeY(src, entry.value)}`, entry.keyLine)
  }
  return list
}

/** A mapping of named definitions (`schemas:`, `agents:`): each name checked, each value `parse`d. */
const namedMap = <V>(
  ctx: ParseContext,
  entry: Entry | undefined,
  what: "schema" | "agent",
  expected: string,
  parse: (named: Entry) => V
): Readonly<Record<string, V>> => {
  const out: Array<[string, V]> = []
  if (entry === undefined) return {}
  for (const named of mappingOf(ctx.src, entry, expected)) {
    const problem = checkName(named.key, what)
    if (problem !== undefined) fail(problem, named.keyLine)
    out.push([named.key, parse(named)])
  }
  // fromEntries defines own properties: a name such as __proto__ stays an ordinary key.
  return Object.fromEntries(out)
}

const parseSchemas = (ctx: ParseContext, entry: Entry | undefined): Readonly<Record<string, SchemaSource>> =>
  namedMap(ctx, entry, "schema", "a mapping of schema names to schemas", (schema) =>
    schemaSource(ctx, schema.value, `schemas.${schema.key}`, "an inline JSON Schema mapping or {file: path}"))

const parseAgents = (ctx: ParseContext, entry: Entry | undefined): Readonly<Record<string, AgentDefinition>> =>
  namedMap(ctx, entry, "agent", "a mapping of agent names to agent definitions", (agent) =>
    parseInlineAgent(ctx, agent))

const parseInlineAgent = (ctx: ParseContext, entry: Entry): AgentDefinition => {
  const at = `agents.${entry.key}`
  const list = entries(ctx.src, entry.value)
  if (list === undefined) {
    return fail(`${at}: expected a mapping, got ${describeY(ctx.src, entry.value)}`, entry.keyLine)
  }
  const fields = new Fields(ctx.src, at, entry.value.line, list)
  const name = fields.string("name")
  const description = fields.string("description")
  const llm = parseLlm(fields, `${at}: the agent definition`)
  const take = (key: string): SchemaRef | undefined => {
    const e = fields.take(key)
    return e === undefined ? undefined : schemaRef(ctx, e, at)
  }
  const inputSchema = take("input_schema")
  const outputSchema = take("output_schema")
  const schemaName = fields.string("schema_name")
  const system = fields.string("system")
  fields.finish("inline agents", AGENT_KEYS)
  if (system === undefined) return fail(`${at}: an inline agent requires 'system'`, entry.keyLine)
  if (schemaName !== undefined) {
    if (outputSchema === undefined) fail(`${at}: 'schema_name' requires 'output_schema'`, schemaName.line)
    const problem = checkSchemaName(schemaName.value)
    if (problem !== undefined) fail(`${at}: ${problem}`, schemaName.line)
  }
  checkTemplate(ctx, system.value, `${at}.system`, system.line)
  return {
    ...llm,
    ...(name !== undefined ? { name: name.value } : {}),
    ...(description !== undefined ? { description: description.value } : {}),
    ...(inputSchema !== undefined ? { inputSchema } : {}),
    ...(outputSchema !== undefined ? { outputSchema } : {}),
    ...(schemaName !== undefined ? { schemaName: schemaName.value } : {}),
    system: system.value,
    dir: ctx.dir
  }
}

const parseDefaults = (ctx: ParseContext, entry: Entry | undefined): WorkflowDefaults => {
  if (entry === undefined) return {}
  const list = mappingOf(ctx.src, entry, "a mapping")
  const fields = new Fields(ctx.src, "default", entry.keyLine, list)
  const defaults: Mutable<WorkflowDefaults> = { ...parseLlm(fields, "the workflow's 'default'") }
  const retry = fields.take("retry")
  if (retry !== undefined) defaults.retry = parseRetry(ctx, retry, "'default.retry'")
  const timeout = parseTimeout(fields, "timeout", "'default.timeout'")
  if (timeout !== undefined) defaults.timeout = timeout
  const system = fields.string("system")
  fields.finish("'default' blocks", DEFAULT_KEYS)
  if (system !== undefined) {
    checkTemplate(ctx, system.value, "'default.system'", system.line)
    defaults.system = system.value
  }
  return defaults
}

/** The line of the node at a decoded path, for schema errors. */
const lineAtPath = (src: Source, y: Y, path: ReadonlyArray<PropertyKey>): number | undefined => {
  let current = y
  for (const segment of path) {
    const next = typeof segment === "number"
      ? items(src, current)?.[segment]
      : entries(src, current)?.find((e) => e.key === String(segment))?.value
    if (next === undefined) break
    current = next
  }
  return current.line
}

const renderPath = (path: ReadonlyArray<PropertyKey>): string =>
  path.map((p) => (typeof p === "number" ? `[${p}]` : `.${String(p)}`)).join("")

const parseModels = (
  src: Source,
  syntax: Syntax,
  entry: Entry | undefined
): Readonly<Record<string, ReadonlyArray<ModelDefinition>>> => {
  if (entry === undefined || entry.value.node === null) return {}
  const value = src.json(entry.value, "'models'")
  const decoded = syntax.models(value)
  // A first pass without the decoder (load.ts): the file is checked again once it is loaded.
  if (decoded === undefined) return {}
  if (!decoded.ok) {
    const path = decoded.path
    const line = lineAtPath(src, entry.value, path) ?? entry.keyLine
    const last = path.at(-1)
    // The decoder's wording for an extra key, in the loader's own words.
    if (decoded.message === "Expected no excess property" && last !== undefined) {
      return fail(`models${renderPath(path.slice(0, -1))}: unknown field '${String(last)}'`, line)
    }
    return fail(`models${renderPath(path)}: ${decoded.message}`, line)
  }
  for (const [alias, definitions] of Object.entries(decoded.value)) {
    definitions.forEach((definition, index) => {
      if (definition.provider.api_key !== undefined && definition.provider.api_key_cmd !== undefined) {
        const path = [alias, index, "provider"]
        fail(
          `models${renderPath(path)} sets both 'api_key' and 'api_key_cmd'; set exactly one`,
          lineAtPath(src, entry.value, path)
        )
      }
    })
  }
  return decoded.value
}

const parseInputs = (ctx: ParseContext, entry: Entry | undefined): ReadonlyArray<InputDefinition> => {
  if (entry === undefined) return []
  const out: Array<InputDefinition> = []
  for (const input of mappingOf(ctx.src, entry, "a mapping of input names to JSON Schemas")) {
    if (!input.keyIsString) fail("'inputs' keys must be strings", input.keyLine)
    const name = input.key
    const problem = checkName(name, "input")
    if (problem !== undefined) fail(problem, input.keyLine)
    const where = `inputs.${name}`
    let schema: JsonObject
    const typeName = stringOf(input.value)
    if (typeName !== undefined) schema = { type: typeName }
    else if (input.value.node === null) schema = {}
    else if (entries(ctx.src, input.value) !== undefined) schema = ctx.src.json(input.value, where) as JsonObject
    else return fail(`${where}: expected a JSON Schema mapping or a type name such as 'string'`, input.keyLine)
    const invalid = ctx.syntax.schemaDocument(schema, where)
    if (invalid !== undefined) fail(renderChain(invalid), input.keyLine)
    const description = typeof schema["description"] === "string" ? schema["description"] : undefined
    const hasDefault = Object.hasOwn(schema, "default")
    if (hasDefault) {
      const rejected = ctx.syntax.validate(schema, schema["default"] ?? null, `${where}.default`)
      if (rejected !== undefined) fail(renderChain(rejected), input.keyLine)
    }
    out.push({
      name,
      schema,
      ...(hasDefault ? { default: schema["default"] ?? null } : {}),
      ...(description !== undefined ? { description } : {})
    })
  }
  return out
}
