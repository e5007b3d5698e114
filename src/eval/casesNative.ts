// The inline cases of an eval file decoded without Effect Schema when they are plainly valid: the
// schema's first decode (building its parser) and its per-case work were a fifth of the time before
// an eval's first request. Accepted: mappings with only the case keys, `name` a string, `input` plain
// JSON, `inputs`/`vars` mappings of plain JSON, `assert` a list of `equals`/`contains`/`jq` assertions
// written with exactly their keys. The result is what EvalCaseSchema decodes them to (the same keys in
// the same order: test/eval/casesNative.test.ts compares the two). Anything else — a null, another
// assertion type, a mistake — is undefined, and the schema decodes it and words the error as before.
// So is a target written with strings only (`{model, prompt, name?}`, `{workflow, name?}`): the first
// decode of the target schema built its parser before the first request. And `default_assert:` of
// those assertions.

type Plain = string | number | boolean | null | ReadonlyArray<Plain> | { readonly [key: string]: Plain }

const isMapping = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value) &&
  Object.getPrototypeOf(value) === Object.prototype

/** JSON as YAML gives it: finite numbers, plain objects without a `__proto__` key. */
const isPlainJson = (value: unknown, depth = 0): value is Plain => {
  if (depth > 64) return false
  if (value === null || typeof value === "string" || typeof value === "boolean") return true
  if (typeof value === "number") return Number.isFinite(value)
  if (Array.isArray(value)) return value.every((v) => isPlainJson(v, depth + 1))
  if (!isMapping(value)) return false
  return Object.keys(value).every((k) => k !== "__proto__" && isPlainJson(value[k], depth + 1))
}

const onlyKeys = (value: Record<string, unknown>, keys: ReadonlyArray<string>): boolean =>
  Object.keys(value).every((k) => keys.includes(k))

const TEXT_FIELD: Readonly<Record<string, string>> = { equals: "value", contains: "value", jq: "expr" }

const nativeAssertion = (value: unknown): { readonly type: string } | undefined => {
  if (!isMapping(value) || typeof value["type"] !== "string") return undefined
  const type = value["type"]
  const field = Object.hasOwn(TEXT_FIELD, type) ? TEXT_FIELD[type]! : undefined
  if (field === undefined || typeof value[field] !== "string" || !onlyKeys(value, ["type", field])) return undefined
  return { type, [field]: value[field] }
}

const plainRecord = (value: unknown): value is Record<string, Plain> => isMapping(value) && isPlainJson(value)

/** `default_assert:` as the schema decodes it (null, or a list of assertions), or undefined. */
export const nativeAssertList = (value: unknown): Array<{ readonly type: string }> | null | undefined => {
  if (value === null) return null
  if (!Array.isArray(value)) return undefined
  const out: Array<{ readonly type: string }> = []
  for (const a of value) {
    const decoded = nativeAssertion(a)
    if (decoded === undefined) return undefined
    out.push(decoded)
  }
  return out
}

/** The cases as EvalCaseSchema decodes them, or undefined when the schema must decide. */
export const nativeCases = <Case>(value: unknown): Array<Case> | undefined => {
  if (!Array.isArray(value)) return undefined
  const cases: Array<Record<string, unknown>> = []
  for (const c of value) {
    if (!isMapping(c) || !("input" in c) || !onlyKeys(c, ["name", "input", "inputs", "vars", "assert"])) {
      return undefined
    }
    if ("name" in c && typeof c["name"] !== "string") return undefined
    if (!isPlainJson(c["input"])) return undefined
    if ("inputs" in c && !plainRecord(c["inputs"])) return undefined
    if ("vars" in c && !plainRecord(c["vars"])) return undefined
    let assert: Array<{ readonly type: string }> | undefined
    if ("assert" in c) {
      const list = c["assert"]
      if (!Array.isArray(list)) return undefined
      assert = []
      for (const a of list) {
        const decoded = nativeAssertion(a)
        if (decoded === undefined) return undefined
        assert.push(decoded)
      }
    }
    // The schema's key order, whatever the file's.
    cases.push({
      ...("name" in c ? { name: c["name"] } : {}),
      input: c["input"],
      ...("inputs" in c ? { inputs: c["inputs"] } : {}),
      ...("vars" in c ? { vars: c["vars"] } : {}),
      ...(assert === undefined ? {} : { assert })
    })
  }
  return cases as Array<Case>
}

type NativeTarget =
  | { readonly kind: "prompt"; readonly name: string; readonly model: string; readonly prompt: string }
  | { readonly kind: "workflow"; readonly name: string; readonly workflow: string; readonly inputs: {} }

/** A target as decodeTarget (./schema.ts) builds it from the schema's decode, or undefined. */
export const nativeTarget = (value: unknown): NativeTarget | undefined => {
  if (!isMapping(value)) return undefined
  const name = value["name"]
  if ("name" in value && typeof name !== "string") return undefined
  const { model, prompt, workflow } = value
  if (onlyKeys(value, ["name", "model", "prompt"]) && typeof model === "string" && typeof prompt === "string") {
    return { kind: "prompt", name: typeof name === "string" ? name : model, model, prompt }
  }
  if (onlyKeys(value, ["name", "workflow"]) && typeof workflow === "string") {
    return { kind: "workflow", name: typeof name === "string" ? name : workflow, workflow, inputs: {} }
  }
  return undefined
}
