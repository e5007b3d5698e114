// Step lists and steps, with the references they make (agents, child workflows), parsed in the order
// upstream lait checks them so the first problem reported is the same one.
import * as nodePath from "node:path"
import { nearest } from "../../core/suggest.ts"
import {
  CASE_KEYS,
  DEFAULT_SCHEMA_NAME,
  KIND_KEYS,
  type KindKey,
  stepAcceptedKeys,
  TERMINAL_KINDS
} from "../fileKeys.ts"
import type { AgentRef, Branch, Case, Step, StepKind } from "../model.ts"
import { checkName, checkSchemaName, debugQuote } from "./checks.ts"
import {
  checkJq,
  checkTemplate,
  looksLikePath,
  type Mutable,
  type ParseContext,
  parseLlm,
  parseRetry,
  parseTimeout,
  takeSchema
} from "./fields.ts"
import { describeY, entries, type Entry, fail, Fields, items, stringOf, type Y } from "./yaml.ts"

/** A list of steps at `at` (`steps`, `steps[0].on_error`, `steps[2].parallel.a`). */
export const parseStepList = (ctx: ParseContext, y: Y, at: string): ReadonlyArray<Step> => {
  const list = items(ctx.src, y)
  if (list === undefined) return fail(`${at}: expected a list of steps, got ${describeY(ctx.src, y)}`, y.line)
  if (list.length === 0) return fail(`${at}: must contain at least one step`, y.line)
  return list.map((item, index) => parseStep(ctx, item, `${at}[${index}]`))
}

/** Every key some step accepts besides its kind key (the common fields and each kind's own). */
const STEP_FIELD_KEYS: ReadonlySet<string> = new Set(KIND_KEYS.flatMap((kind) => stepAcceptedKeys(kind).slice(1)))

export const parseStep = (ctx: ParseContext, y: Y, position: string): Step => {
  const list = entries(ctx.src, y)
  if (list === undefined) return fail(`${position}: a step must be a mapping`, y.line)
  const present = new Set(list.filter((e) => e.keyIsString).map((e) => e.key))
  const idEntry = list.find((e) => e.keyIsString && e.key === "id")
  const idText = idEntry === undefined ? undefined : stringOf(idEntry.value)
  const at = idText === undefined ? position : `${position} (id '${idText}')`

  if (present.has("decide")) {
    return fail(
      `${at}: 'decide' steps are not supported by this build of lait (it has no Jev decision API client); ` +
        `use a 'prompt' step with an 'output_schema' instead`,
      y.line
    )
  }
  const kinds = KIND_KEYS.filter((key) => present.has(key))
  const kind = kinds[0]
  if (kind === undefined) {
    const hint = present.has("use") ? " ('use:' is version 1 syntax; see the migration guide)" : ""
    const needs = `a step needs exactly one of: ${KIND_KEYS.join(", ")}${hint}`
    // A key no step accepts is most likely the kind key misspelt: name it, with the nearest kind.
    const unknown = list.find((e) => e.keyIsString && e.key !== "use" && !STEP_FIELD_KEYS.has(e.key))
    if (unknown === undefined) return fail(`${position}: ${needs}`, y.line)
    const near = nearest(unknown.key, KIND_KEYS)
    const guess = near === undefined ? "" : ` (did you mean '${near}'?)`
    return fail(`${at}: unknown step kind '${unknown.key}'${guess}; ${needs}`, unknown.keyLine)
  }
  if (kinds.length > 1) {
    return fail(`${position}: a step must have exactly one kind, found ${kinds.join(" and ")}`, y.line)
  }

  const fields = new Fields(ctx.src, at, y.line, list)
  const step: Mutable<Omit<Step, "kind">> = { at, ...(y.line !== undefined ? { line: y.line } : {}) }

  const id = fields.string("id")
  if (id !== undefined) {
    const problem = checkName(id.value, "step id")
    if (problem !== undefined) fail(`${at}: ${problem}`, id.line)
    step.id = id.value
  }
  for (const key of ["when", "input", "output"] as const) {
    const filter = fields.string(key)
    if (filter === undefined) continue
    checkJq(ctx, filter.value, `${at}: '${key}'`, filter.line)
    step[key] = filter.value
  }
  if (!TERMINAL_KINDS.includes(kind)) {
    const retry = fields.take("retry")
    if (retry !== undefined) step.retry = parseRetry(ctx, retry, `${at}: 'retry'`)
    const timeout = parseTimeout(fields, "timeout", `${at}: 'timeout'`)
    if (timeout !== undefined) step.timeout = timeout
    const onError = fields.take("on_error")
    if (onError !== undefined) step.onError = parseStepList(ctx, onError.value, `${at}.on_error`)
  }

  const parsedKind = parseKind(ctx, kind, fields, at)
  fields.finish(`'${kind}' steps`, stepAcceptedKeys(kind))
  return { ...step, kind: parsedKind }
}

const requireField = (fields: Fields, key: string, kind: string): Entry => {
  const entry = fields.take(key)
  if (entry === undefined) return fail(`${fields.at}: a '${kind}' step requires '${key}'`, fields.line)
  return entry
}

const requireString = (fields: Fields, key: string, kind: string): { value: string; line: number | undefined } => {
  const entry = requireField(fields, key, kind)
  const value = stringOf(entry.value)
  if (value === undefined) return fields.invalid(entry, "a string")
  return { value, line: entry.keyLine }
}

const takeAttachments = (ctx: ParseContext, fields: Fields) => {
  const files = fields.strings("files")?.value ?? []
  const images = fields.strings("images")?.value ?? []
  for (const source of [...files, ...images]) checkTemplate(ctx, source, `${fields.at}: attachment`, fields.line)
  return { files, images }
}

const takeBody = (ctx: ParseContext, fields: Fields, kind: string): ReadonlyArray<Step> => {
  const entry = fields.take("steps")
  if (entry === undefined) return fail(`${fields.at}: a '${kind}' step requires 'steps'`, fields.line)
  return parseStepList(ctx, entry.value, `${fields.at}.steps`)
}

const parseKind = (ctx: ParseContext, kind: KindKey, fields: Fields, at: string): StepKind => {
  switch (kind) {
    case "prompt": {
      const prompt = requireString(fields, "prompt", kind)
      checkTemplate(ctx, prompt.value, `${at}: 'prompt'`, prompt.line)
      const system = fields.string("system")
      if (system !== undefined) checkTemplate(ctx, system.value, `${at}: 'system'`, system.line)
      const llm = parseLlm(fields, at)
      const { files, images } = takeAttachments(ctx, fields)
      const inputSchema = takeSchema(ctx, fields, "input_schema")
      const outputSchema = takeSchema(ctx, fields, "output_schema")
      const schemaName = fields.string("schema_name")
      if (schemaName !== undefined) {
        if (outputSchema === undefined) fail(`${at}: 'schema_name' requires 'output_schema'`, schemaName.line)
        const problem = checkSchemaName(schemaName.value)
        if (problem !== undefined) fail(`${at}: ${problem}`, schemaName.line)
      }
      if (outputSchema !== undefined && schemaName === undefined) {
        const problem = checkSchemaName(outputSchema.name ?? DEFAULT_SCHEMA_NAME)
        if (problem !== undefined) {
          fail(`${at}: the schema name (set 'schema_name' to override it): ${problem}`, fields.line)
        }
      }
      return {
        type: "prompt",
        prompt: prompt.value,
        ...(system !== undefined ? { system: system.value } : {}),
        llm,
        files,
        images,
        ...(inputSchema !== undefined ? { inputSchema } : {}),
        ...(outputSchema !== undefined ? { outputSchema } : {}),
        ...(schemaName !== undefined ? { schemaName: schemaName.value } : {})
      }
    }
    case "agent": {
      const reference = requireString(fields, "agent", kind)
      const agent = resolveAgent(ctx, reference.value, at, reference.line)
      const llm = parseLlm(fields, at)
      const { files, images } = takeAttachments(ctx, fields)
      return { type: "agent", agent, llm, files, images }
    }
    case "run": {
      const entry = requireField(fields, "run", kind)
      const argv = items(ctx.src, entry.value)?.map(stringOf)
      if (argv === undefined || argv.some((a) => a === undefined)) return fields.invalid(entry, "a list of strings")
      const program = argv[0]
      if (program === undefined || program.trim() === "") {
        return fail(`${at}: 'run' must start with the program to execute`, entry.keyLine)
      }
      for (const arg of argv as ReadonlyArray<string>) checkTemplate(ctx, arg, `${at}: 'run'`, entry.keyLine)
      const env = parseEnv(ctx, fields)
      const cwd = fields.string("cwd")
      if (cwd !== undefined && cwd.value.trim() === "") fail(`${at}: 'cwd' must not be empty`, cwd.line)
      return {
        type: "run",
        argv: argv as ReadonlyArray<string>,
        ...(env !== undefined ? { env } : {}),
        ...(cwd !== undefined ? { cwd: cwd.value } : {})
      }
    }
    case "workflow": {
      const reference = requireString(fields, "workflow", kind)
      if (reference.value.trim() === "") fail(`${at}: 'workflow' must not be empty`, reference.line)
      const workflow = looksLikePath(reference.value, ["yml", "yaml"])
        ? { kind: "path" as const, path: nodePath.resolve(ctx.dir, reference.value), written: reference.value }
        : { kind: "registry" as const, name: reference.value }
      const withFilter = fields.string("with")
      if (withFilter !== undefined) checkJq(ctx, withFilter.value, `${at}: 'with'`, withFilter.line)
      return { type: "workflow", workflow, ...(withFilter !== undefined ? { with: withFilter.value } : {}) }
    }
    case "jq": {
      const filter = requireString(fields, "jq", kind)
      checkJq(ctx, filter.value, `${at}: 'jq'`, filter.line)
      return { type: "jq", filter: filter.value }
    }
    case "ask": {
      const question = requireString(fields, "ask", kind)
      if (question.value.trim() === "") fail(`${at}: 'ask' needs a non-empty question`, question.line)
      checkTemplate(ctx, question.value, `${at}: 'ask'`, question.line)
      const choices = fields.strings("choices")
      const def = fields.string("default")
      const multiline = fields.boolean("multiline")
      if (choices !== undefined) {
        if (choices.value.length === 0 || choices.value.some((c) => c === "")) {
          fail(`${at}: 'choices' must be a non-empty list of non-empty strings`, choices.line)
        }
        if (def !== undefined && !choices.value.includes(def.value)) {
          fail(`${at}: 'default' (${debugQuote(def.value)}) must be one of 'choices'`, def.line)
        }
      }
      return {
        type: "ask",
        prompt: question.value,
        ...(choices !== undefined ? { choices: choices.value } : {}),
        ...(def !== undefined ? { default: def.value } : {}),
        multiline: multiline?.value ?? false
      }
    }
    case "write": {
      const path = requireString(fields, "write", kind)
      if (path.value.trim() === "") fail(`${at}: 'write' needs a path`, path.line)
      checkTemplate(ctx, path.value, `${at}: 'write'`, path.line)
      return { type: "write", path: path.value }
    }
    case "group": {
      const entry = requireField(fields, "group", kind)
      return { type: "group", steps: parseStepList(ctx, entry.value, `${at}.group`) }
    }
    case "switch":
      return parseSwitch(ctx, fields, at)
    case "parallel":
      return parseParallel(ctx, fields, at)
    case "for_each": {
      const items = requireString(fields, "for_each", kind)
      checkJq(ctx, items.value, `${at}: 'for_each'`, items.line)
      const steps = takeBody(ctx, fields, kind)
      const concurrency = fields.count("max_concurrency")
      if (concurrency?.value === 0) fail(`${at}: 'max_concurrency' must be at least 1`, concurrency.line)
      return { type: "for_each", items: items.value, steps, maxConcurrency: concurrency?.value ?? 1 }
    }
    case "while":
    case "until": {
      const condition = requireString(fields, kind, kind)
      checkJq(ctx, condition.value, `${at}: '${kind}'`, condition.line)
      const steps = takeBody(ctx, fields, kind)
      if (!fields.has("max_iterations")) fail(`${at}: a '${kind}' step requires 'max_iterations'`, fields.line)
      const maxIterations = fields.count("max_iterations")
      if (maxIterations === undefined) return fail(`${at}: a '${kind}' step requires 'max_iterations'`, fields.line)
      if (maxIterations.value === 0) fail(`${at}: 'max_iterations' must be at least 1`, maxIterations.line)
      return { type: kind, condition: condition.value, steps, maxIterations: maxIterations.value }
    }
    case "stop":
    case "break": {
      const flag = fields.boolean(kind)
      if (flag?.value !== true) fail(`${at}: '${kind}' only accepts 'true'`, flag?.line ?? fields.line)
      return { type: kind }
    }
  }
}

const parseEnv = (ctx: ParseContext, fields: Fields): Readonly<Record<string, string>> | undefined => {
  const entry = fields.take("env")
  if (entry === undefined) return undefined
  const list = entries(ctx.src, entry.value)
  if (list === undefined) return fields.invalid(entry, "a mapping of variable names to strings")
  const env: Array<[string, string]> = []
  for (const variable of list) {
    const value = stringOf(variable.value)
    if (value === undefined) {
      return fail(
        `${fields.at}: invalid 'env': the value of '${variable.key}' must be a string, got ${
          describeY(ctx.src, variable.value)
        }`,
        variable.keyLine
      )
    }
    if (!variable.keyIsString || variable.key === "" || variable.key.includes("=") || variable.key.includes("\0")) {
      return fail(
        `${fields.at}: invalid 'env': ${debugQuote(variable.key)} is not a valid environment variable name`,
        variable.keyLine
      )
    }
    env.push([variable.key, value])
  }
  // fromEntries defines own properties, so a name such as __proto__ stays an ordinary key.
  return Object.fromEntries(env)
}

const parseSwitch = (ctx: ParseContext, fields: Fields, at: string): StepKind => {
  const entry = requireField(fields, "switch", "switch")
  const rawCases = items(ctx.src, entry.value)
  if (rawCases === undefined || rawCases.some((c) => entries(ctx.src, c) === undefined)) {
    return fail(`${at}: 'switch' must be a list of cases`, entry.keyLine)
  }
  if (rawCases.length === 0) return fail(`${at}: 'switch' must contain at least one case`, entry.keyLine)
  const cases: Array<Case> = rawCases.map((raw, index) => {
    const caseAt = `${at}.switch[${index}]`
    const caseFields = new Fields(ctx.src, caseAt, raw.line, entries(ctx.src, raw) ?? [])
    const when = requireString(caseFields, "when", "switch case")
    checkJq(ctx, when.value, `${caseAt}: 'when'`, when.line)
    const steps = caseFields.take("steps")
    if (steps === undefined) return fail(`${caseAt}: a case requires 'steps'`, raw.line)
    const parsed = parseStepList(ctx, steps.value, `${caseAt}.steps`)
    caseFields.finish("switch cases", CASE_KEYS)
    return { when: when.value, steps: parsed }
  })
  const elseEntry = fields.take("else")
  const elseSteps = elseEntry === undefined ? undefined : parseStepList(ctx, elseEntry.value, `${at}.else`)
  return { type: "switch", cases, ...(elseSteps !== undefined ? { else: elseSteps } : {}) }
}

const parseParallel = (ctx: ParseContext, fields: Fields, at: string): StepKind => {
  const entry = requireField(fields, "parallel", "parallel")
  const list = entries(ctx.src, entry.value)
  if (list === undefined) return fail(`${at}: 'parallel' must map branch names to step lists`, entry.keyLine)
  if (list.length === 0) return fail(`${at}: 'parallel' must contain at least one branch`, entry.keyLine)
  const branches: Array<Branch> = list.map((branch) => {
    if (!branch.keyIsString) return fail(`${at}: 'parallel' branch names must be strings`, branch.keyLine)
    const problem = checkName(branch.key, "branch name")
    if (problem !== undefined) fail(`${at}: ${problem}`, branch.keyLine)
    return { name: branch.key, steps: parseStepList(ctx, branch.value, `${at}.parallel.${branch.key}`) }
  })
  return { type: "parallel", branches }
}

const resolveAgent = (ctx: ParseContext, reference: string, at: string, line: number | undefined): AgentRef => {
  const inline = Object.hasOwn(ctx.agents, reference) ? ctx.agents[reference] : undefined
  if (inline !== undefined) return { kind: "inline", name: reference, definition: inline }
  if (looksLikePath(reference, ["md"])) return { kind: "path", path: nodePath.resolve(ctx.dir, reference) }
  if (reference === "") return fail(`${at}: 'agent' must not be empty`, line)
  return { kind: "registry", name: reference }
}
