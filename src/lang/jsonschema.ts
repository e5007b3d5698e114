// JSON Schema validation for `inputs:`, `input_schema`, `output_schema` and agents' schemas: Ajv,
// draft 2020-12 unless the schema's `$schema` names draft-07/-06 or 2019-09.
//
// Settings, and why:
// - strict mode off: unknown keywords are tolerated (schemas written for OpenAI structured outputs or
//   other tools carry extra annotations).
// - no meta-schema validation: compiling Ajv's 2020-12 meta-schema costs ~45 ms per process, while
//   compiling a schema without it still rejects malformed keywords (`type: strin`, `required: "a"`,
//   an unresolvable `$ref`, a bad `pattern`).
// - `format` is an annotation only: no format vocabulary is bundled.
// - schemas are not registered by `$id`, so two files that reuse an `$id` do not collide.
// - the dialect's meta-schemas (which Ajv registers in each instance, ≈ 1.5 ms per process) only in the
//   instance for schemas that could reach them: a schema with no `$ref`, `$dynamicRef`, `$recursiveRef`
//   or `$id` anywhere can neither refer to a meta-schema nor clash with one, so another instance
//   without them compiles it, to the same validator.
// - the first failure is reported (allErrors off), with the label and the path of the failing value:
//   `inputs.cfg.items[0] must be of type integer (got string)`.
// - no optimisation pass over the generated code: it only drops unused names and constant branches
//   (the validator accepts and rejects the same values, with the same errors), and a process compiles
//   each schema once, so the pass cost more than it saved (a quarter of compiling a workflow's schemas).
//
// Ajv is loaded on first need only: `checkJson` and `checkSchemaDocument` load it themselves,
// `loadSchemaValidator` before the synchronous `validateJson` and `validateSchemaDocument`.
import { excerpt } from "../core/excerpt.ts"
import { Effect } from "effect"
import type Ajv07 from "ajv"
import type { ErrorObject, Options, ValidateFunction } from "ajv"
import type Ajv2019 from "ajv/dist/2019.js"
import type Ajv2020 from "ajv/dist/2020.js"
import { SchemaError } from "./languageErrors.ts"
import { type Json, type JsonObject, jsonTypeName } from "../core/json.ts"

const AJV_OPTIONS: Options = {
  strict: false,
  allErrors: false,
  validateSchema: false,
  addUsedSchema: false,
  validateFormats: false,
  verbose: true,
  logger: false,
  code: { optimize: false }
}

export type Dialect = "2020" | "2019" | "07"

type AjvInstance = { compile: (schema: object) => ValidateFunction }

const instances = new Map<string, AjvInstance>()

interface AjvClasses {
  readonly draft07: typeof Ajv07
  readonly draft2019: typeof Ajv2019
  readonly draft2020: typeof Ajv2020
}

let classes: AjvClasses | undefined

/** Loads Ajv (once); needed before `validateJson` or `validateSchemaDocument`. */
export const loadSchemaValidator: Effect.Effect<void> = Effect.suspend(() =>
  classes !== undefined ? Effect.void : Effect.promise(() =>
    Promise.all([import("ajv"), import("ajv/dist/2019.js"), import("ajv/dist/2020.js")]).then(
      ([draft07, draft2019, draft2020]) => {
        classes ??= { draft07: draft07.default, draft2019: draft2019.default, draft2020: draft2020.default }
      }
    )
  )
)

export const schemaValidatorLoaded = (): boolean => classes !== undefined

const ajvFor = (dialect: Dialect, meta: boolean): AjvInstance => {
  const key = meta ? `${dialect}+meta` : dialect
  let ajv = instances.get(key)
  if (ajv === undefined) {
    if (classes === undefined) throw new Error("internal error: a JSON Schema was used before loadSchemaValidator")
    const options = { ...AJV_OPTIONS, meta }
    ajv = dialect === "07"
      ? new classes.draft07(options)
      : dialect === "2019"
      ? new classes.draft2019(options)
      : new classes.draft2020(options)
    instances.set(key, ajv)
  }
  return ajv
}

/** Whether a schema (its JSON text) could refer to a meta-schema or clash with one's `$id`. */
const mayReachMetaSchemas = (text: string): boolean => /"\$(?:ref|dynamicRef|recursiveRef|id)"/.test(text)

export const dialectOf = (schema: JsonObject): Dialect => {
  const uri = schema["$schema"]
  if (typeof uri !== "string") return "2020"
  if (/draft-0[67]\b/.test(uri)) return "07"
  if (uri.includes("2019-09")) return "2019"
  return "2020"
}

type Compiled = { readonly validate: ValidateFunction } | { readonly invalid: string }

// Per schema text: Ajv's compiled validator, once a schema or value needed it.
interface Entry {
  readonly meta: boolean
  ajv?: Compiled
}

const byIdentity = new WeakMap<object, Entry>()
const byText = new Map<string, Entry>()

const entryOf = (schema: JsonObject): Entry => {
  const same = byIdentity.get(schema)
  if (same !== undefined) return same
  const text = JSON.stringify(schema)
  let entry = byText.get(text)
  if (entry === undefined) {
    entry = { meta: mayReachMetaSchemas(text) }
    byText.set(text, entry)
  }
  byIdentity.set(schema, entry)
  return entry
}

const compiledOf = (entry: Entry, schema: JsonObject): Compiled => {
  if (entry.ajv === undefined) {
    try {
      entry.ajv = { validate: ajvFor(dialectOf(schema), entry.meta).compile(schema) }
    } catch (e) {
      entry.ajv = { invalid: (e instanceof Error ? e.message : String(e)).replace(/\s*\n\s*/g, " ") }
    }
  }
  return entry.ajv
}

// ---------------------------------------------------------------------------------------------------
// Messages

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_-]*$/

/** `/items/0/a b` (over the actual value) → `.items[0]["a b"]`. */
const readablePath = (pointer: string, value: Json): string => {
  if (pointer === "") return ""
  let out = ""
  let current: Json | undefined = value
  for (const raw of pointer.slice(1).split("/")) {
    const key = raw.replace(/~1/g, "/").replace(/~0/g, "~")
    if (Array.isArray(current)) {
      out += `[${key}]`
      current = current[Number(key)]
    } else {
      out += IDENTIFIER.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`
      current = current !== null && typeof current === "object" ? (current as JsonObject)[key] : undefined
    }
  }
  return out
}

/** A value in a message: its JSON, cut to an excerpt. */
const shown = (value: unknown): string => excerpt(JSON.stringify(value) ?? String(value), 100)

const describe = (error: ErrorObject): string => {
  const data = error.data as Json
  switch (error.keyword) {
    case "type": {
      const expected = Array.isArray(error.schema) ? (error.schema as Array<string>).join(" or ") : String(error.schema)
      return `must be of type ${expected} (got ${jsonTypeName(data)})`
    }
    case "enum":
      return `must be one of ${shown(error.schema)} (got ${shown(data)})`
    case "const":
      return `must be ${shown(error.schema)} (got ${shown(data)})`
    case "required": {
      const required = Array.isArray(error.schema) ? (error.schema as Array<unknown>) : []
      const present = data !== null && typeof data === "object" && !Array.isArray(data) ? data : {}
      const missing = required.filter((k): k is string => typeof k === "string" && !Object.hasOwn(present, k))
      const names = missing.length > 0 ? missing : [String(error.params["missingProperty"])]
      return `is missing required field(s): ${names.join(", ")}`
    }
    case "additionalProperties":
      return `must not have additional property '${String(error.params["additionalProperty"])}'`
    case "unevaluatedProperties":
      return `must not have unevaluated property '${String(error.params["unevaluatedProperty"])}'`
    default:
      return error.message ?? `fails '${error.keyword}'`
  }
}

const failureMessage = (errors: ReadonlyArray<ErrorObject>, value: Json, label: string): string => {
  // Without allErrors Ajv stops at the first failing keyword; for anyOf/oneOf it also lists the
  // failures of each branch before the combinator's own error, which is the one that explains it.
  const error = errors[errors.length - 1]
  if (error === undefined) return `${label} does not match its schema`
  return `${label}${readablePath(error.instancePath, value)} ${describe(error)}`
}

// ---------------------------------------------------------------------------------------------------

/**
 * Validates `value` against `schema`. Undefined when it matches; else a SchemaError such as
 * `inputs.count must be of type integer (got string)`, or `<label>: invalid JSON Schema: <reason>` when
 * the schema itself does not compile. Needs Ajv loaded (loadSchemaValidator). Validators are
 * cached (by object, then by JSON text).
 */
export const validateJson = (schema: JsonObject, value: Json, label: string): SchemaError | undefined => {
  const entry = entryOf(schema)
  const compiled = compiledOf(entry, schema)
  if ("invalid" in compiled) return new SchemaError({ reason: { _tag: "Invalid", label, detail: compiled.invalid } })
  if (compiled.validate(value)) return undefined
  const detail = failureMessage(compiled.validate.errors ?? [], value, label)
  return new SchemaError({ reason: { _tag: "Mismatch", detail } })
}

/**
 * Checks that `schema` compiles (at load time): undefined, or `<label>: invalid JSON Schema: <reason>`.
 * Needs Ajv loaded (loadSchemaValidator).
 */
export const validateSchemaDocument = (schema: JsonObject, label: string): SchemaError | undefined => {
  const entry = entryOf(schema)
  const compiled = compiledOf(entry, schema)
  return "invalid" in compiled
    ? new SchemaError({ reason: { _tag: "Invalid", label, detail: compiled.invalid } })
    : undefined
}

/** `validateJson`, loading Ajv first. */
export const checkJson = (schema: JsonObject, value: Json, label: string): Effect.Effect<SchemaError | undefined> =>
  Effect.map(loadSchemaValidator, () => validateJson(schema, value, label))

/** `validateSchemaDocument`, loading Ajv first. */
export const checkSchemaDocument = (schema: JsonObject, label: string): Effect.Effect<SchemaError | undefined> =>
  Effect.map(loadSchemaValidator, () => validateSchemaDocument(schema, label))
