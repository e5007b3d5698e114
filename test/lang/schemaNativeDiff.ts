// The native JSON Schema validator (src/lang/schemaNative.ts) against Ajv configured as
// src/lang/jsonschema.ts configures it, for the differential tests.
import Ajv07 from "ajv"
import Ajv2019 from "ajv/dist/2019.js"
import Ajv2020 from "ajv/dist/2020.js"
import type { Json, JsonObject } from "../../src/core/json.ts"
import { AJV_OPTIONS, type Dialect, dialectOf } from "../../src/lang/jsonschema.ts"
import { compileNative } from "../../src/lang/schemaNative.ts"

// A fresh instance per schema: Ajv remembers `$id`s across compiles, which must not leak between cases.
const ajvCompile = (schema: JsonObject): ((value: Json) => boolean) | string => {
  const dialect: Dialect = dialectOf(schema)
  const ajv = dialect === "07" ? new Ajv07(AJV_OPTIONS) : dialect === "2019" ? new Ajv2019(AJV_OPTIONS) : new Ajv2020(AJV_OPTIONS)
  try {
    const validate = ajv.compile(schema)
    // Ajv's comparison throws on some values (an own `toString` that is not a function): not valid.
    return (value) => {
      try {
        return validate(value) as boolean
      } catch {
        return false
      }
    }
  } catch (e) {
    return e instanceof Error ? e.message : String(e)
  }
}

export interface Verdict {
  /** The native validator took the schema. */
  readonly native: boolean
  /** Problems: native took a schema Ajv rejects, or answered valid where Ajv did not, or the reverse. */
  readonly problems: Array<string>
  /** How many of the values native called valid. */
  readonly valid: number
}

/**
 * Compares native and Ajv on `schema` and `values`. Native must never accept a schema Ajv does not
 * compile nor call valid what Ajv rejects; it must agree with Ajv on every value unless the value is
 * listed in `undecided` (values native leaves to Ajv on purpose).
 */
export const differential = (
  schema: JsonObject,
  values: ReadonlyArray<Json>,
  undecided: ReadonlyArray<Json> = []
): Verdict => {
  const native = compileNative(schema)
  const ajv = ajvCompile(schema)
  const shown = JSON.stringify(schema)
  if (native === undefined) return { native: false, problems: [], valid: 0 }
  if (typeof ajv === "string") return { native: true, problems: [`native took ${shown}, which Ajv rejects: ${ajv}`], valid: 0 }
  const problems: Array<string> = []
  let valid = 0
  for (const value of values) {
    const mine = native(value)
    const theirs = ajv(value)
    if (mine) valid++
    if (mine === theirs) continue
    if (!mine && undecided.includes(value)) continue
    problems.push(`${shown} on ${JSON.stringify(value)}: native ${mine}, Ajv ${theirs}`)
  }
  return { native: true, problems, valid }
}
