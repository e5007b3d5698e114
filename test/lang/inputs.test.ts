import { describe, expect, test } from "bun:test"
import { Effect, Exit } from "effect"
import { exitCodeOf, LaitError, renderChain } from "../../src/core/errors.ts"
import type { Json, JsonObject } from "../../src/core/json.ts"
import {
  parseInputFlag,
  parseTextInput,
  type ProvidedValue,
  resolveInitial,
  resolveInputs
} from "../../src/lang/inputs.ts"
import type { InputDefinition } from "../../src/lang/model.ts"

const def = (name: string, schema: JsonObject, extra: Partial<Omit<InputDefinition, "name" | "schema">> = {}): InputDefinition => ({
  name,
  schema,
  ...extra
})

const text = (t: string): ProvidedValue => ({ kind: "text", text: t })
const typed = (value: Json): ProvidedValue => ({ kind: "typed", value })

const failureOf = async <E>(effect: Effect.Effect<unknown, E>): Promise<E> => {
  const exit = await Effect.runPromiseExit(effect)
  if (!Exit.isFailure(exit)) throw new Error("expected a failure")
  const reason = exit.cause.reasons.find((r) => r._tag === "Fail")
  if (reason === undefined || reason._tag !== "Fail") throw new Error("expected a typed failure")
  return reason.error as E
}

const resolve = (declared: ReadonlyArray<InputDefinition>, provided: ReadonlyArray<readonly [string, ProvidedValue]>) =>
  Effect.runPromise(resolveInputs(declared, provided))

const resolveFails = async (
  declared: ReadonlyArray<InputDefinition>,
  provided: ReadonlyArray<readonly [string, ProvidedValue]>
): Promise<string> => {
  const error = await failureOf(resolveInputs(declared, provided))
  expect(error).toBeInstanceOf(Error)
  expect(exitCodeOf(error)).toBe(1)
  return renderChain(error)
}

describe("parseInputFlag", () => {
  test("splits at the first '='", async () => {
    expect(await Effect.runPromise(parseInputFlag("lang=ja"))).toEqual(["lang", "ja"])
    expect(await Effect.runPromise(parseInputFlag("q=a=b"))).toEqual(["q", "a=b"])
    expect(await Effect.runPromise(parseInputFlag("empty="))).toEqual(["empty", ""])
  })

  test("usage errors for a missing '=' or an empty key", async () => {
    const noEquals = await failureOf(parseInputFlag("novalue"))
    expect(noEquals).toMatchObject({ _tag: "ArgumentError", reason: { _tag: "BadInputFlag", problem: "no-equals" } })
    expect(exitCodeOf(noEquals)).toBe(2)
    expect(noEquals.message).toBe("invalid --input \"novalue\": expected KEY=VALUE")
    const emptyKey = await failureOf(parseInputFlag("=x"))
    expect(emptyKey).toMatchObject({ _tag: "ArgumentError", reason: { _tag: "BadInputFlag", problem: "empty-key" } })
    expect(emptyKey.message).toBe("invalid --input \"=x\": the key is empty")
  })
})

describe("parseTextInput", () => {
  test("JSON when it is JSON, else the text", () => {
    expect(parseTextInput("42")).toBe(42)
    expect(parseTextInput("{\"a\":[1]}")).toEqual({ a: [1] })
    expect(parseTextInput(" true ")).toBe(true)
    expect(parseTextInput("Alice")).toBe("Alice")
    expect(parseTextInput("")).toBe("")
    expect(parseTextInput("1e999")).toBe("1e999")
  })
})

describe("resolveInputs", () => {
  test("text stays verbatim for type: string, other types parse JSON with a string fallback", async () => {
    const declared = [
      def("id", { type: "string" }),
      def("count", { type: "integer" }),
      def("tags", { type: "array" }),
      def("any", {})
    ]
    const resolved = await resolve(declared, [
      ["id", text("0012")],
      ["count", text("3")],
      ["tags", text("[\"a\"]")],
      ["any", text("hello")]
    ])
    expect(resolved).toEqual({ id: "0012", count: 3, tags: ["a"], any: "hello" })
  })

  test("a union type containing string still parses JSON (only exactly 'string' keeps text)", async () => {
    expect(await resolve([def("v", { type: ["string", "integer"] })], [["v", text("7")]])).toEqual({ v: 7 })
  })

  test("typed values are used as they are", async () => {
    expect(await resolve([def("id", { type: "string" }), def("n", {})], [["id", typed("x")], ["n", typed({ k: 1 })]]))
      .toEqual({ id: "x", n: { k: 1 } })
  })

  test("declaration order, whatever order the values came in", async () => {
    const resolved = await resolve([def("b", {}), def("a", {})], [["a", text("1")], ["b", text("2")]])
    expect(Object.keys(resolved)).toEqual(["b", "a"])
  })

  test("a later value for the same key wins", async () => {
    expect(await resolve([def("lang", { type: "string" })], [["lang", text("en")], ["lang", text("fr")]])).toEqual({
      lang: "fr"
    })
  })

  test("defaults apply when nothing is provided, and a provided value beats the default", async () => {
    const declared = [def("lang", { type: "string" }, { default: "ja" }), def("n", { type: "integer" }, { default: 1 })]
    expect(await resolve(declared, [])).toEqual({ lang: "ja", n: 1 })
    expect(await resolve(declared, [["n", text("5")]])).toEqual({ lang: "ja", n: 5 })
  })

  test("a null default still makes the input optional", async () => {
    expect(await resolve([def("x", { type: ["string", "null"] }, { default: null })], [])).toEqual({ x: null })
  })

  test("missing required inputs, with the description when there is one", async () => {
    expect(await resolveFails([def("text", { type: "string" })], [])).toBe("missing required input 'text'")
    expect(await resolveFails([def("text", { type: "string" }, { description: "the text to translate" })], [])).toBe(
      "missing required input 'text' (the text to translate)"
    )
  })

  test("undeclared keys are errors", async () => {
    expect(await resolveFails([], [["x", text("1")]])).toBe(
      "input 'x' was provided, but the workflow declares no 'inputs:'"
    )
    expect(await resolveFails([def("a", {}), def("b", {})], [["a", text("1")], ["cnt", text("1")]])).toBe(
      "unknown input 'cnt'; the workflow declares: a, b"
    )
  })

  test("an unknown key is reported before a missing one", async () => {
    expect(await resolveFails([def("a", {})], [["zz", text("1")]])).toBe("unknown input 'zz'; the workflow declares: a")
  })

  test("every value is validated under inputs.<name>", async () => {
    expect(await resolveFails([def("count", { type: "integer" })], [["count", text("many")]])).toBe(
      "inputs.count must be of type integer (got string)"
    )
    expect(await resolveFails([def("cfg", { type: "object", required: ["k"] })], [["cfg", typed({})]])).toBe(
      "inputs.cfg is missing required field(s): k"
    )
    expect(
      await resolveFails([def("level", { type: "string", enum: ["low", "high"] }, { default: "mid" })], [])
    ).toBe("inputs.level must be one of [\"low\",\"high\"] (got \"mid\")")
  })
})

describe("resolveInitial", () => {
  const initial = (schema: JsonObject | undefined, value: ProvidedValue | null) =>
    Effect.runPromise(resolveInitial(schema, value))
  const initialFails = async (schema: JsonObject | undefined, value: ProvidedValue | null) =>
    renderChain(await failureOf(resolveInitial(schema, value)))

  test("without input_schema text stays a string, typed values stay typed, null is null", async () => {
    expect(await initial(undefined, text("{\"a\":1}"))).toBe("{\"a\":1}")
    expect(await initial(undefined, typed({ a: 1 }))).toEqual({ a: 1 })
    expect(await initial(undefined, null)).toBeNull()
  })

  test("type: string keeps the text even when it looks like JSON", async () => {
    expect(await initial({ type: "string" }, text("42"))).toBe("42")
  })

  test("any other declared type requires JSON", async () => {
    expect(await initial({ type: "object" }, text("{\"a\":1}"))).toEqual({ a: 1 })
    expect(await initialFails({ type: "object" }, text("hello"))).toBe(
      "the initial input must be JSON matching the workflow's 'input_schema': JSON Parse error: Unexpected identifier \"hello\""
    )
    expect(await initialFails({ type: "number" }, text("1e999"))).toBe(
      "the initial input must be JSON matching the workflow's 'input_schema': a number is out of range"
    )
  })

  test("a schema without type parses JSON with a string fallback", async () => {
    expect(await initial({ minLength: 1 }, text("[1]"))).toEqual([1])
    expect(await initial({ minLength: 1 }, text("plain"))).toBe("plain")
  })

  test("the result is validated under the label input", async () => {
    expect(await initialFails({ type: "object", required: ["q"] }, text("{}"))).toBe(
      "input is missing required field(s): q"
    )
    expect(await initialFails({ type: "string", minLength: 3 }, text("ab"))).toBe(
      "input must NOT have fewer than 3 characters"
    )
    expect(await initialFails({ type: "object" }, typed([1]))).toBe("input must be of type object (got array)")
    expect(await initialFails({ type: "object" }, null)).toBe("input must be of type object (got null)")
  })
})

describe("deeply nested values (issue 12)", () => {
  const deep = (levels: number) => `${"[".repeat(levels)}${"]".repeat(levels)}`

  test("100 000 levels of JSON nesting are checked without overflowing the stack", async () => {
    expect(renderChain(await failureOf(resolveInitial({ type: "object" }, text(deep(100_000)))))).toBe(
      "input must be of type object (got array)"
    )
    const declared: ReadonlyArray<InputDefinition> = [{ name: "n", schema: { type: "integer" } }]
    expect(renderChain(await failureOf(resolveInputs(declared, [["n", text(deep(100_000))]])))).toBe(
      "inputs.n must be of type integer (got array)"
    )
    expect(Array.isArray(parseTextInput(deep(100_000)))).toBe(true)
  })
})
