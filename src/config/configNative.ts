// A config file decoded without Effect Schema when it is plainly valid: evaluating the config schema's
// modules and its first decode (building its parser) were a tenth of the time before an eval's first
// request, for a file of four lines. Accepted: every top-level key but `tools` and `jev`, each value
// exactly as the schema takes it (strings, safe integers in range, finite numbers in range, the
// literal sets, non-empty lists where the schema says so) and no key the schema does not know. The
// result is what `decodeConfigFile` gives (the schema's key order, its defaults filled in:
// test/config/configNative.test.ts compares the two). Anything else — another key, an odd value, any
// doubt, every invalid file — is undefined, and the schema decodes it and words the error as before.
// A workflow's `models:`, the same ModelMap, is decoded the same way (`nativeModels`).
import type { ModelMap } from "./modelSchema.ts"
import type { ConfigFile } from "./schema.ts"

const NO: unique symbol = Symbol("not native")
type Decoder<A = unknown> = (value: unknown) => A | typeof NO

/** A mapping as YAML gives it: a plain object without a `__proto__` key. */
const isMapping = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value) &&
  Object.getPrototypeOf(value) === Object.prototype && !Object.hasOwn(value, "__proto__")

const string: Decoder<string> = (v) => (typeof v === "string" ? v : NO)
const boolean: Decoder<boolean> = (v) => (typeof v === "boolean" ? v : NO)
const notBlank: Decoder<string> = (v) => (typeof v === "string" && v.trim().length > 0 ? v : NO)
const intAtLeast = (min: number): Decoder<number> => (v) =>
  typeof v === "number" && Number.isSafeInteger(v) && v >= min ? v : NO
const finiteIn = (min: number, max: number): Decoder<number> => (v) =>
  typeof v === "number" && Number.isFinite(v) && v >= min && v <= max ? v : NO
const literal = (values: ReadonlyArray<string>): Decoder<string> => (v) =>
  typeof v === "string" && values.includes(v) ? v : NO

const array = <A>(item: Decoder<A>, minLength = 0): Decoder<Array<A>> => (v) => {
  if (!Array.isArray(v) || v.length < minLength) return NO
  const out: Array<A> = []
  for (const x of v) {
    const decoded = item(x)
    if (decoded === NO) return NO
    out.push(decoded)
  }
  return out
}

const record = <A>(value: Decoder<A>): Decoder<Record<string, A>> => (v) => {
  if (!isMapping(v)) return NO
  const out: Record<string, A> = {}
  for (const key of Object.keys(v)) {
    const decoded = value(v[key])
    if (decoded === NO) return NO
    out[key] = decoded
  }
  return out
}

/** `optional`: the key may be absent; `fallback`: absent means this value (the schema's default). */
type Absent = "required" | "optional" | { readonly fallback: () => unknown }
type Field = readonly [key: string, decoder: Decoder, absent: Absent]

/** A struct that rejects excess keys; the result lists its fields in the schema's order. */
const struct = (fields: ReadonlyArray<Field>): Decoder<Record<string, unknown>> => (v) => {
  if (!isMapping(v)) return NO
  for (const key of Object.keys(v)) if (!fields.some(([k]) => k === key)) return NO
  const out: Record<string, unknown> = {}
  for (const [key, decoder, absent] of fields) {
    if (Object.hasOwn(v, key)) {
      const decoded = decoder(v[key])
      if (decoded === NO) return NO
      out[key] = decoded
    } else if (absent === "required") {
      return NO
    } else if (absent !== "optional") {
      out[key] = absent.fallback()
    }
  }
  return out
}

const either = <A, B>(a: Decoder<A>, b: Decoder<B>): Decoder<A | B> => (v) => {
  const first = a(v)
  return first === NO ? b(v) : first
}

// The value types of ./modelSchema.ts and ./schema.ts.
const positiveInt = intAtLeast(1)
const nonNegativeInt = intAtLeast(0)
const names = array(string)
const stringMap = record(string)
const reasoningEffort = literal(["none", "minimal", "low", "medium", "high", "xhigh"])
const commandSpec = either(string, array(string, 1))

const provider = struct([
  ["base_url", string, "required"],
  ["api_key", string, "optional"],
  ["api_key_cmd", commandSpec, "optional"]
])

const modelDefinition = struct([
  ["provider", provider, "required"],
  ["model_id", notBlank, "required"],
  ["default_reasoning_effort", reasoningEffort, "optional"],
  ["default_temperature", finiteIn(0, 2), "optional"],
  ["default_top_p", finiteIn(0, 1), "optional"],
  ["default_max_tokens", positiveInt, "optional"],
  [
    "pricing",
    struct([
      ["input_per_1m", finiteIn(0, Infinity), "required"],
      ["output_per_1m", finiteIn(0, Infinity), "required"]
    ]),
    "optional"
  ],
  ["api", literal(["chat_completions", "responses"]), "optional"]
])

const compaction = struct([
  ["trigger_rounds", positiveInt, "optional"],
  ["trigger_tokens", positiveInt, "optional"],
  ["keep_last_n", nonNegativeInt, { fallback: () => 4 }],
  ["model", string, "optional"]
])

const defaultSettings = struct([
  ["model", string, "optional"],
  ["reasoning_effort", reasoningEffort, "optional"],
  ["system", string, "optional"],
  ["temperature", finiteIn(0, 2), "optional"],
  ["top_p", finiteIn(0, 1), "optional"],
  ["max_tokens", positiveInt, "optional"],
  ["mcp", names, "optional"],
  ["max_tool_rounds", positiveInt, "optional"],
  ["skills", names, "optional"],
  ["subagents", names, "optional"],
  ["tools", names, "optional"],
  ["render", boolean, "optional"],
  ["history", boolean, "optional"],
  ["cache", boolean, "optional"],
  ["cache_ttl", nonNegativeInt, "optional"],
  ["request_timeout", positiveInt, "optional"],
  ["compaction", compaction, "optional"],
  ["skill_progressive_disclosure", boolean, "optional"],
  ["trace_spans", boolean, "optional"],
  ["trace_content", boolean, "optional"]
])

const mcpServer = struct([
  ["command", string, "optional"],
  ["args", names, "optional"],
  ["env", stringMap, "optional"],
  ["cwd", string, "optional"],
  ["url", string, "optional"],
  ["headers", stringMap, "optional"],
  ["allowed_tools", names, "optional"]
])

const promptDefinition = struct([
  ["template", string, "required"],
  ["model", string, "optional"],
  ["vars", stringMap, "optional"]
])

const toolPolicy = struct([
  ["allow", names, { fallback: () => [] }],
  ["deny", names, { fallback: () => [] }]
])

// ModelMap: a config file's `models:` and a workflow's.
const modelMap = record(array(modelDefinition, 1))

// `tools` and `jev` are not here: a file with either goes to the schema.
const configFile = struct([
  ["base_url", string, "optional"],
  ["api_key", string, "optional"],
  ["api_key_cmd", commandSpec, "optional"],
  ["default", defaultSettings, "optional"],
  ["models", modelMap, "optional"],
  ["mcp_servers", record(mcpServer), "optional"],
  ["skills", stringMap, "optional"],
  ["agents", stringMap, "optional"],
  ["prompts", record(promptDefinition), "optional"],
  ["workflows", stringMap, "optional"],
  ["tool_policy", toolPolicy, "optional"]
])

/** The config file as `decodeConfigFile` decodes it, or undefined when the schema must decide. */
export const nativeConfigFile = (value: unknown): ConfigFile | undefined => {
  const decoded = configFile(value)
  return decoded === NO ? undefined : (decoded as ConfigFile)
}

/**
 * A workflow's `models:` as src/lang/load/models.ts decodes it (the same ModelMap, excess keys rejected
 * alike), or undefined when the schema must decide and word the error.
 */
export const nativeModels = (value: unknown): ModelMap | undefined => {
  const decoded = modelMap(value)
  return decoded === NO ? undefined : (decoded as unknown as ModelMap)
}
