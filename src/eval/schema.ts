// An eval definition file (docs/evals.md#eval-file-format): what to run — one `target:` or several
// `targets:` to compare, each a workflow file (with values for its `inputs:`) or a model with a
// prompt template — and the cases, inline or in a cases file, each an input with the assertions its
// output must satisfy (the `lait test` vocabulary), plus `default_assert:` for every case. Unknown
// keys are rejected at every level. The parts are decoded by the Effect Schema of ./evalSchema.ts (also
// the source of `lait schema eval`), loaded when an eval or cases file is read.
import { Effect } from "effect"
import type * as EvalSchema from "./evalSchema.ts"
import { EvalError } from "./evalErrors.ts"
import { FileLoader } from "../platform/FileLoader.ts"
import { type Json, textForm } from "../core/json.ts"
import { describeYamlValue, formatPath, valueAtPath } from "../core/schemaPath.ts"
import { lineAtPath, parseYamlLined, runStatic } from "../lang/load/yaml.ts"
import type { ProvidedValue } from "../lang/inputs.ts"
import type { Assertion } from "../testing/assertions.ts"
import { type ExecTarget, execTarget, type HttpTarget, httpTarget } from "../proxy/execTarget.ts"
import {
  acceptedKeys,
  type DecodedCase,
  EVAL_FILE_KEYS,
  type Issue,
  isIssue,
  isMapping,
  type Segment
} from "./evalKeys.ts"

export type EvalTarget =
  & { readonly name: string }
  & (
    | { readonly kind: "workflow"; readonly workflow: string; readonly inputs: Readonly<Record<string, Json>> }
    | { readonly kind: "prompt"; readonly model: string; readonly prompt: string }
    | { readonly kind: "exec"; readonly exec: ExecTarget }
    | { readonly kind: "http"; readonly http: HttpTarget }
  )

export interface EvalCase {
  /** As given, else `case <n>`. */
  readonly name: string
  /** Whether `name:` was given (JUnit keeps its input-based test name otherwise). */
  readonly named: boolean
  readonly input: Json
  /** The case's own `inputs:` (undefined: the target's alone). */
  readonly inputs: Readonly<Record<string, Json>> | undefined
  readonly vars: Readonly<Record<string, Json>>
  /** The case's own assertions, then `default_assert:`. */
  readonly assert: ReadonlyArray<Assertion>
  /** The case's own assertions only (lint reports them at their own lines). */
  readonly ownAssert: ReadonlyArray<Assertion>
}

/** The case input as text: what a judge is shown and reports print. */
export const caseInputText = (c: Pick<EvalCase, "input">): string => textForm(c.input)

/** Text is read through the input_schema as `lait run` reads PROMPT; other values are already typed. */
export const caseInitial = (c: Pick<EvalCase, "input">): ProvidedValue =>
  typeof c.input === "string" ? { kind: "text", text: c.input } : { kind: "typed", value: c.input }

export interface EvalDefinition {
  /** At least one. */
  readonly targets: ReadonlyArray<EvalTarget>
  /** `targets:` was used: reports compare the targets side by side. */
  readonly compare: boolean
  /** Inline cases (empty when they come from a file). */
  readonly cases: ReadonlyArray<EvalCase>
  /** `cases: {file}` as written, and the line of `cases:`. */
  readonly casesFile: { readonly file: string; readonly line: number | undefined } | undefined
  readonly defaultAssert: ReadonlyArray<Assertion>
}

// Set once ./evalSchema.ts is loaded (withEvalSchema): building its schemas and Effect Schema's modules
// is left to a command that reads an eval or cases file. The parsers that use it stay synchronous.
let bySchema: typeof EvalSchema | undefined

/** The schema decoders; withEvalSchema loads them. */
export const evalSchema = (): typeof EvalSchema => {
  if (bySchema === undefined) throw new Error("internal error: the eval schema was used before withEvalSchema")
  return bySchema
}

/** Loads the schema decoders (and Effect Schema), once. */
export const loadEvalSchema: Effect.Effect<void> = Effect.suspend(() =>
  bySchema !== undefined ? Effect.void : Effect.promise(() => import("./evalSchema.ts")).pipe(
    Effect.map((module) => {
      bySchema = module
    })
  )
)

/** `parse()`, run with the schema decoders loaded. */
export const withEvalSchema = <A>(parse: () => A): Effect.Effect<A> => Effect.map(loadEvalSchema, () => parse())

// A target is untagged; deciding its shape from its keys first lets a mistake be reported against
// that shape ("unknown key 'modle'") instead of as two failed alternatives.
const decodeTarget = (raw: unknown, at: ReadonlyArray<Segment>): EvalTarget | Issue => {
  const target = valueAtPath(raw, at)
  const where = formatPath(at)
  if (!isMapping(target)) {
    return {
      at: [],
      path: at,
      text: `${where}: expected a mapping, either {workflow, inputs?} or {model, prompt}, got ${
        describeYamlValue(target)
      }`
    }
  }
  if (!["workflow", "inputs", "model", "prompt", "exec", "http"].some((key) => key in target)) {
    const text = `${where}: expected either 'workflow' (with optional 'inputs'), 'model' and 'prompt', 'exec' or 'http'`
    return { at: [], path: at, text }
  }
  if ("exec" in target) {
    const t = evalSchema().decodeAt(evalSchema().ExecTargetSchema, raw, at)
    if (isIssue(t)) return t
    const exec = execTarget(t)
    if (typeof exec === "string" || exec === undefined) return { at, path: [...at, "exec"], text: String(exec) }
    return { kind: "exec", name: t.name ?? exec.argv.join(" "), exec }
  }
  if ("http" in target) {
    const t = evalSchema().decodeAt(evalSchema().HttpTargetSchema, raw, at)
    if (isIssue(t)) return t
    return { kind: "http", name: t.name ?? t.http.url, http: httpTarget(t.http, t.output_jq, t.timeout) }
  }
  if ("workflow" in target || ("inputs" in target && !("model" in target))) {
    const t = evalSchema().decodeAt(evalSchema().WorkflowTargetSchema, raw, at)
    if (isIssue(t)) return t
    return { kind: "workflow", name: t.name ?? t.workflow, workflow: t.workflow, inputs: t.inputs ?? {} }
  }
  const t = evalSchema().decodeAt(evalSchema().PromptTargetSchema, raw, at)
  if (isIssue(t)) return t
  return { kind: "prompt", name: t.name ?? t.model, model: t.model, prompt: t.prompt }
}

/** Default names that collide (two targets of one model) get their position: `m (1)`, `m (2)`. */
const nameTargets = (
  targets: ReadonlyArray<EvalTarget>,
  explicit: ReadonlyArray<boolean>
): ReadonlyArray<EvalTarget> | Issue => {
  const count = new Map<string, number>()
  for (const t of targets) count.set(t.name, (count.get(t.name) ?? 0) + 1)
  const seen = new Set<string>()
  for (const [i, t] of targets.entries()) {
    if (explicit[i] && count.get(t.name)! > 1) {
      if (seen.has(t.name)) {
        return { at: ["targets", i, "name"], path: ["targets", i, "name"], text: `duplicate target name '${t.name}'` }
      }
      seen.add(t.name)
    }
  }
  return targets.map((t, i) => explicit[i] || count.get(t.name) === 1 ? t : { ...t, name: `${t.name} (${i + 1})` })
}

/** A decoded case with its defaults: `case <n>` (1-based `position`), then `default_assert:`. */
export const completeCase = (
  c: DecodedCase,
  position: number,
  defaultAssert: ReadonlyArray<Assertion>
): EvalCase => ({
  name: c.name ?? `case ${position}`,
  named: c.name !== undefined,
  input: c.input,
  inputs: c.inputs ?? undefined,
  vars: c.vars ?? {},
  assert: [...(c.assert ?? []), ...defaultAssert],
  ownAssert: c.assert ?? []
})

/** Names make cases recognisable across reports and baselines: one name, one case. */
export const duplicateCaseName = (cases: ReadonlyArray<EvalCase>): { index: number; name: string } | undefined => {
  const seen = new Set<string>()
  for (const [index, c] of cases.entries()) {
    if (seen.has(c.name)) return { index, name: c.name }
    seen.add(c.name)
  }
  return undefined
}

/**
 * Parses an eval definition's text. Errors are EvalErrors (exit 3) reading
 * `failed to parse eval definition '<path>': <where>: <problem> (line N)`.
 */
export const parseEvalDefinition = (text: string, path: string): EvalDefinition | EvalError => {
  const failure = (detail: string, line: number | undefined) =>
    new EvalError({ reason: { _tag: "ParseFailed", path, detail, ...(line === undefined ? {} : { line }) } })
  const parsed = parseYamlLined(text)
  if (!parsed.ok) return failure(parsed.message, parsed.line)
  const src = parsed.source
  const converted = runStatic(() => src.json(src.top(), "the eval definition"))
  if (!converted.ok) return failure(converted.error.message, converted.error.line)
  const raw = converted.value
  if (!isMapping(raw)) {
    return failure(`an eval definition must be a YAML mapping, got ${describeYamlValue(raw)}`, lineAtPath(src, []))
  }
  const fail = (issue: Issue) => {
    const where = formatPath(issue.at)
    return failure(where === "" ? issue.text : `${where}: ${issue.text}`, lineAtPath(src, issue.path))
  }
  for (const key of Object.keys(raw)) {
    if (!(EVAL_FILE_KEYS as ReadonlyArray<string>).includes(key)) {
      return fail({ at: [], path: [key], text: `unknown key '${key}'; ${acceptedKeys(raw, [])}` })
    }
  }
  if ("target" in raw && "targets" in raw) {
    return fail({ at: [], path: ["targets"], text: "'target' and 'targets' cannot be used together; use one" })
  }
  if (!("target" in raw) && !("targets" in raw)) {
    return fail({ at: [], path: [], text: "missing required key 'target'" })
  }
  if (!("cases" in raw)) return fail({ at: [], path: [], text: "missing required key 'cases'" })

  const targets: Array<EvalTarget> = []
  const explicit: Array<boolean> = []
  if ("targets" in raw) {
    const list = raw["targets"]
    if (!Array.isArray(list) || list.length === 0) {
      return fail({
        at: ["targets"],
        path: ["targets"],
        text: `expected a non-empty list of targets, got ${
          Array.isArray(list) ? "an empty list" : describeYamlValue(list)
        }`
      })
    }
    for (const [i, item] of list.entries()) {
      const t = decodeTarget(raw, ["targets", i])
      if (isIssue(t)) return fail(t)
      targets.push(t)
      explicit.push(isMapping(item) && "name" in item)
    }
  } else {
    const t = decodeTarget(raw, ["target"])
    if (isIssue(t)) return fail(t)
    targets.push(t)
    explicit.push(true)
  }
  const named = nameTargets(targets, explicit)
  if (isIssue(named)) return fail(named)

  const defaults = !("default_assert" in raw)
    ? null
    : evalSchema().decodeAt(evalSchema().AssertListSchema, raw, ["default_assert"])
  if (isIssue(defaults)) return fail(defaults)
  const defaultAssert = defaults ?? []

  const cases = raw["cases"]
  if (isMapping(cases)) {
    const ref = evalSchema().decodeAt(evalSchema().CasesFileSchema, raw, ["cases"])
    if (isIssue(ref)) return fail(ref)
    return {
      targets: named,
      compare: "targets" in raw,
      cases: [],
      casesFile: { file: ref.file, line: lineAtPath(src, ["cases"]) },
      defaultAssert
    }
  }
  const decoded = evalSchema().decodeAt(evalSchema().EvalCasesSchema, raw, ["cases"])
  if (isIssue(decoded)) return fail(decoded)
  const complete = decoded.map((c, i) => completeCase(c, i + 1, defaultAssert))
  const duplicate = duplicateCaseName(complete)
  if (duplicate !== undefined) {
    return fail({
      at: ["cases", duplicate.index, "name"],
      path: ["cases", duplicate.index, "name"],
      text: `duplicate case name '${duplicate.name}'`
    })
  }
  return { targets: named, compare: "targets" in raw, cases: complete, casesFile: undefined, defaultAssert }
}

/** Reads (through FileLoader: 16 MiB cap, UTF-8, a FIFO waits for its writer) and parses an eval file. */
export const readEvalDefinition = (
  path: string
): Effect.Effect<EvalDefinition, EvalError, FileLoader> =>
  Effect.gen(function*() {
    const loader = yield* FileLoader
    const text = yield* loader.readText(path, { waitForWriter: true }).pipe(
      Effect.mapError((e) =>
        new EvalError({ reason: { _tag: "ReadFailed", path, detail: String(e.cause ?? e.message) } })
      )
    )
    const parsed = yield* withEvalSchema(() => parseEvalDefinition(text, path))
    return parsed instanceof EvalError ? yield* parsed : parsed
  })
