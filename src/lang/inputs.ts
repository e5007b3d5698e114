// Binding a workflow's declared `inputs:` and its initial value to what a caller provides: `lait run
// --input KEY=VALUE` and PROMPT, a `workflow:` step's `with:` object and input, a test's `inputs:`.
// Everything is resolved and validated before the first step runs.
import { Effect } from "effect"
import { LaitError } from "../core/errors.ts"
import { ArgumentError } from "../core/usageErrors.ts"
import type { Json, JsonObject } from "../core/json.ts"
import { checkJson } from "./jsonschema.ts"
import type { SchemaError } from "./languageErrors.ts"
import { WorkflowLoadError } from "./loadErrors.ts"
import type { InputDefinition } from "./model.ts"

/** Text from the command line (parsed according to the schema), or an already typed value. */
export type ProvidedValue =
  | { readonly kind: "text"; readonly text: string }
  | { readonly kind: "typed"; readonly value: Json }

// A loop, not recursion: JSON.parse accepts 100 000 levels of `[`, which would overflow the stack here.
const hasNonFiniteNumber = (value: unknown): boolean => {
  const pending: Array<unknown> = [value]
  while (pending.length > 0) {
    const next = pending.pop()
    if (typeof next === "number") {
      if (!Number.isFinite(next)) return true
    } else if (next !== null && typeof next === "object") {
      for (const child of Object.values(next)) pending.push(child)
    }
  }
  return false
}

/**
 * JSON when the text is JSON, else the text itself as a string (`42` → 42, `Alice` → "Alice").
 * A number too large for a double (`1e999`) is not JSON's to give: the text stays a string.
 */
export const parseTextInput = (text: string): Json => {
  try {
    const value = JSON.parse(text) as Json
    return hasNonFiniteNumber(value) ? text : value
  } catch {
    return text
  }
}

/** `KEY=VALUE` (split at the first `=`; the value may be empty or contain `=`). */
export const parseInputFlag = (arg: string): Effect.Effect<readonly [key: string, value: string], ArgumentError> => {
  const eq = arg.indexOf("=")
  if (eq < 0) {
    return Effect.fail(new ArgumentError({ reason: { _tag: "BadInputFlag", arg, problem: "no-equals" } }))
  }
  if (eq === 0) {
    return Effect.fail(new ArgumentError({ reason: { _tag: "BadInputFlag", arg, problem: "empty-key" } }))
  }
  return Effect.succeed([arg.slice(0, eq), arg.slice(eq + 1)] as const)
}

/** Kept verbatim only for `type: string` exactly, so `--input id=0012` stays "0012". */
const wantsRawString = (schema: JsonObject): boolean => schema["type"] === "string"

type InputFailure = LaitError | SchemaError | WorkflowLoadError

/**
 * Resolves every declared input in declaration order: a provided value (a later duplicate wins; text
 * is kept verbatim for `type: string`, else parsed as JSON with a string fallback), else the default,
 * else an error. Undeclared keys are errors, so a typo cannot silently fall back to a default. Every
 * value is validated against its schema under the label `inputs.<name>`.
 */
export const resolveInputs = (
  declared: ReadonlyArray<InputDefinition>,
  provided: ReadonlyArray<readonly [string, ProvidedValue]>
): Effect.Effect<Record<string, Json>, InputFailure> =>
  Effect.gen(function*() {
    // Re-inserting moves a repeated key to where it was last given, the order upstream reports in.
    const given = new Map<string, ProvidedValue>()
    for (const [key, value] of provided) {
      given.delete(key)
      given.set(key, value)
    }
    const names = new Set(declared.map((d) => d.name))
    for (const key of given.keys()) {
      if (names.has(key)) continue
      return yield* new WorkflowLoadError({
        reason: { _tag: "UnknownInput", key, declared: declared.map((d) => d.name) }
      })
    }
    const resolved: Record<string, Json> = {}
    for (const definition of declared) {
      const supplied = given.get(definition.name)
      let value: Json
      if (supplied !== undefined) {
        value = supplied.kind === "typed"
          ? supplied.value
          : wantsRawString(definition.schema)
          ? supplied.text
          : parseTextInput(supplied.text)
      } else if (definition.default !== undefined) {
        value = definition.default
      } else {
        const { name, description } = definition
        const reason = { _tag: "MissingInput", name, ...(description !== undefined ? { description } : {}) } as const
        return yield* new WorkflowLoadError({ reason })
      }
      const invalid = yield* checkJson(definition.schema, value, `inputs.${definition.name}`)
      if (invalid !== undefined) return yield* invalid
      resolved[definition.name] = value
    }
    return resolved
  })

/**
 * The workflow's initial value. Without `input_schema` text stays a string. With one: a schema whose
 * `type` is `string` keeps the text; any other `type` requires JSON; no `type` parses JSON with a
 * string fallback. Typed values are taken as they are, and `null` means no initial value. The result
 * is validated under the label `input`.
 */
export const resolveInitial = (
  schema: JsonObject | undefined,
  initial: ProvidedValue | null
): Effect.Effect<Json, SchemaError | WorkflowLoadError> =>
  Effect.suspend((): Effect.Effect<Json, SchemaError | WorkflowLoadError> => {
    if (schema === undefined) {
      return Effect.succeed(initial === null ? null : initial.kind === "typed" ? initial.value : initial.text)
    }
    let value: Json
    if (initial === null) value = null
    else if (initial.kind === "typed") value = initial.value
    else {
      const type = schema["type"]
      if (type === "string") value = initial.text
      else if (typeof type === "string") {
        const notJson = (reason: string) =>
          Effect.fail(new WorkflowLoadError({ reason: { _tag: "InitialNotJson", detail: reason } }))
        try {
          value = JSON.parse(initial.text) as Json
        } catch (e) {
          return notJson(e instanceof Error ? e.message : String(e))
        }
        if (hasNonFiniteNumber(value)) return notJson("a number is out of range")
      } else value = parseTextInput(initial.text)
    }
    return Effect.flatMap(
      checkJson(schema, value, "input"),
      (invalid) => invalid === undefined ? Effect.succeed(value) : Effect.fail(invalid)
    )
  })
