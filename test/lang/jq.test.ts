import { beforeAll, describe, expect, test } from "bun:test"
import { Effect, Exit, Fiber } from "effect"
import { renderChain } from "../../src/core/errors.ts"
import type { Json } from "../../src/core/json.ts"
import { JqError } from "../../src/lang/languageErrors.ts"
import {
  checkJqSyntax,
  evalJqAll,
  evalJqOne,
  isTruthy,
  type JqVars,
  loadJq,
  MAX_FILTER_BYTES,
  MAX_INPUT_BYTES,
  MAX_OUTPUT_BYTES,
  MAX_OUTPUTS
} from "../../src/lang/jq.ts"

const vars = (over: Partial<JqVars> = {}): JqVars => ({ steps: {}, inputs: {}, loop: null, ...over })

const one = (filter: string, input: Json = null, v: JqVars = vars(), what: "filter" | "condition" = "filter") =>
  Effect.runPromise(evalJqOne(filter, input, v, what))

const failure = async (effect: Effect.Effect<unknown, JqError>): Promise<string> => {
  const exit = await Effect.runPromiseExit(effect)
  if (!Exit.isFailure(exit)) throw new Error("expected a failure")
  const reason = exit.cause.reasons.find((r) => r._tag === "Fail")
  if (reason === undefined || reason._tag !== "Fail") throw new Error("expected a typed failure")
  expect(reason.error).toBeInstanceOf(JqError)
  return renderChain(reason.error)
}

const oneFails = (filter: string, input: Json = null, v: JqVars = vars(), what: "filter" | "condition" = "filter") =>
  failure(evalJqOne(filter, input, v, what))

const nested = (depth: number): Json => {
  let value: Json = 1
  for (let i = 0; i < depth; i++) value = [value]
  return value
}

beforeAll(() => Effect.runPromise(loadJq))

describe("loading", () => {
  test("loadJq is idempotent and cheap once loaded", async () => {
    // Cheap because nothing is loaded again: no WebAssembly module is compiled or instantiated.
    const wasm = WebAssembly as unknown as Record<"instantiate" | "compile", (...args: Array<unknown>) => unknown>
    const original = { instantiate: wasm.instantiate, compile: wasm.compile }
    let loads = 0
    wasm.instantiate = (...args) => (loads++, original.instantiate.apply(WebAssembly, args))
    wasm.compile = (...args) => (loads++, original.compile.apply(WebAssembly, args))
    try {
      for (let i = 0; i < 100; i++) await Effect.runPromise(loadJq)
    } finally {
      Object.assign(wasm, original)
    }
    expect(loads, "WebAssembly compiles and instantiations during 100 loadJq").toBe(0)
    expect(await one(".a", { a: 1 })).toBe(1)
  })
})

describe("exactly one value", () => {
  test("the single value is returned as typed JSON", async () => {
    expect(await one(".name", { name: "Alice" })).toBe("Alice")
    expect(await one(".items", { items: [1, 2, 3] })).toEqual([1, 2, 3])
    expect(await one("{n: .name, k: (.k // null)}", { name: "A" })).toEqual({ n: "A", k: null })
    expect(await one(".missing", {})).toBeNull()
  })

  test("no output", async () => {
    expect(await oneFails(".[]", [])).toBe("jq filter \".[]\" produced no output; expected exactly one value")
    expect(await oneFails("empty", null, vars(), "condition")).toBe(
      "jq condition \"empty\" produced no output; expected exactly one value"
    )
  })

  test("several outputs, stopping an endless stream at the second", async () => {
    expect(await oneFails(".[]", [1, 2])).toBe(
      "jq filter \".[]\" produced 2 outputs; expected exactly one value (wrap a stream in '[...]' to collect it into an array)"
    )
    expect(await oneFails("range(0; 1000000000)", null, vars(), "condition")).toBe(
      "jq condition \"range(0; 1000000000)\" produced 2 outputs; expected exactly one value (wrap a stream in '[...]' to collect it into an array)"
    )
    expect(await one("[.[]]", [1, 2])).toEqual([1, 2])
  })

  test("a filter is quoted with escapes, on one line", async () => {
    expect(await oneFails(".[] # two\n| .", [1, 2])).toStartWith("jq filter \".[] # two\\n| .\" produced 2 outputs")
  })
})

describe("runtime errors", () => {
  test("report jq's reason", async () => {
    expect(await oneFails("error(\"boom\")")).toBe("jq filter \"error(\\\"boom\\\")\" failed: boom")
    expect(await oneFails(".foo.bar", 1)).toBe("jq filter \".foo.bar\" failed: Cannot index number with string (\"foo\")")
    expect(await oneFails("error({a: 1})", null, vars(), "condition")).toBe(
      "jq condition \"error({a: 1})\" failed: {\"a\":1} (not a string)"
    )
  })

  test("a multi-line error message becomes one line", async () => {
    expect(await oneFails("error(\"a\\nb\")")).toBe("jq filter \"error(\\\"a\\\\nb\\\")\" failed: a b")
  })

  test("an error after the first value still fails", async () => {
    expect(await oneFails("1, error(\"late\")")).toBe("jq filter \"1, error(\\\"late\\\")\" failed: late")
  })

  test("a reason that quotes a whole input or value is cut to one readable line", async () => {
    const deep = `${"[".repeat(20_000)}${"]".repeat(20_000)}`
    expect(await oneFails("fromjson", deep)).toBe(
      `jq filter "fromjson" failed: Exceeds depth limit for parsing at line 1, column 10001 (while parsing '${
        "[".repeat(40)
      }…')`
    )
    const message = await oneFails("error(.)", "x".repeat(10_000))
    expect(message).toBe(`jq filter "error(.)" failed: ${"x".repeat(500)}… (9500 more characters)`)
  })

  test("there is only one input: input fails and inputs is empty", async () => {
    expect(await oneFails("input", 1)).toBe("jq filter \"input\" failed: No more inputs")
    expect(await one("[inputs]", 1)).toEqual([])
  })
})

describe("globals", () => {
  const v = vars({
    steps: { extract: { city: "Tokyo" } },
    inputs: { lang: "英語" },
    loop: { index: 2, item: "x" }
  })

  test("$steps, $inputs and $loop", async () => {
    expect(await one("$steps.extract.city", null, v)).toBe("Tokyo")
    expect(await one("$inputs.lang", null, v)).toBe("英語")
    expect(await one("$loop", null, v)).toEqual({ index: 2, item: "x" })
    expect(await one("[$steps, $inputs, $loop, .]", "in", v)).toEqual([
      { extract: { city: "Tokyo" } },
      { lang: "英語" },
      { index: 2, item: "x" },
      "in"
    ])
  })

  test("an unrecorded $steps.x is null, and $loop is null outside loops", async () => {
    expect(await one("$steps.later", null, v)).toBeNull()
    expect(await one("$steps", null, vars())).toEqual({})
    expect(await one("$loop", null, vars())).toBeNull()
  })

  test("a global the filter does not mention is not sent to jq at all", async () => {
    // Too deeply nested to be sent; unused, so it does not matter.
    const heavy = vars({ steps: { deep: nested(2000) } })
    expect(await one(".a", { a: 1 }, heavy)).toBe(1)
    expect(await oneFails("$steps | length", null, heavy)).toBe(
      "jq filter \"$steps | length\": jq '$steps' exceeds the configured nesting limit of 1024"
    )
  })

  test("$__loc__ sees the filter's own first line", async () => {
    expect(await one("$__loc__")).toEqual({ file: "<top-level>", line: 1 })
  })

  test("definitions, bindings and a comment ending in a backslash", async () => {
    expect(await one("def f: . * 2; f", 21)).toBe(42)
    expect(await one(". as $x | $x + 1 # note \\", 1)).toBe(2)
  })
})

describe("truthiness", () => {
  test("only false and null are falsy", async () => {
    expect(isTruthy(false)).toBe(false)
    expect(isTruthy(null)).toBe(false)
    for (const value of [true, 0, "", [], {}, "false"] as const) expect(isTruthy(value)).toBe(true)
    expect(isTruthy(await one(".flag", { flag: false }, vars(), "condition"))).toBe(false)
    expect(isTruthy(await one(".missing", {}, vars(), "condition"))).toBe(false)
    expect(isTruthy(await one(".n", { n: 0 }, vars(), "condition"))).toBe(true)
  })
})

describe("syntax checks", () => {
  test("valid filters pass, including every global", () => {
    expect(checkJqSyntax(".foo.bar")).toBeUndefined()
    expect(checkJqSyntax("$steps.extract.city | $inputs.lang, $loop.index, $__loc__, $ENV.HOME")).toBeUndefined()
  })

  test("the filter is compiled, never run", () => {
    expect(checkJqSyntax("error(\"boom\")")).toBeUndefined()
    expect(checkJqSyntax(".foo / 0")).toBeUndefined()
    expect(checkJqSyntax("def f: f; f")).toBeUndefined()
  })

  test("compiling terminates even for programs that are slow to compile (checks stay synchronous)", () => {
    // Nested labels are the slowest construct found: compile time grows faster than linearly, up to
    // seconds near the 64 KiB limit, but it is bounded by that limit. Nothing here runs the program.
    expect(checkJqSyntax(`${"label $out | ".repeat(600)}def f: f; f`)).toBeUndefined()
    expect(checkJqSyntax(`${"try ".repeat(3000)}repeat(.)`)).toBeUndefined()
  }, 30_000)

  test("syntax errors are one line with jq's reason", () => {
    expect(checkJqSyntax(".[")).toBe(
      "failed to parse jq filter \".[\": syntax error, unexpected end of file at <top-level>, line 1, column 2"
    )
    expect(checkJqSyntax("$nope")).toBe(
      "failed to parse jq filter \"$nope\": $nope is not defined at <top-level>, line 1, column 1"
    )
    expect(checkJqSyntax("foo(1) | $x")).toBe(
      "failed to parse jq filter \"foo(1) | $x\": foo/1 is not defined at <top-level>, line 1, column 1; $x is not defined at <top-level>, line 1, column 10"
    )
    expect(checkJqSyntax("")).toBe("failed to parse jq filter \"\": Top-level program not given (try \".\")")
  })

  test("an evaluation of a filter that does not parse fails the same way", async () => {
    expect(await oneFails(".a) | (.b")).toBe(
      "failed to parse jq filter \".a) | (.b\": syntax error, unexpected INVALID_CHARACTER, expecting end of file at <top-level>, line 1, column 3"
    )
  })
})

describe("limits", () => {
  test("filter source: 64 KiB passes, one byte more does not", async () => {
    const atLimit = `"${"x".repeat(MAX_FILTER_BYTES - 2)}"`
    expect(new TextEncoder().encode(atLimit).length).toBe(MAX_FILTER_BYTES)
    expect(checkJqSyntax(atLimit)).toBeUndefined()
    expect(await one(atLimit)).toBe("x".repeat(MAX_FILTER_BYTES - 2))
    const over = `"${"x".repeat(MAX_FILTER_BYTES - 1)}"`
    expect(checkJqSyntax(over)).toBe("jq filter exceeds the configured limit of 65536 bytes")
    expect(await oneFails(over)).toBe("jq filter exceeds the configured limit of 65536 bytes")
  })

  test("filter source is measured in UTF-8 bytes", () => {
    const multibyte = `"${"é".repeat(MAX_FILTER_BYTES / 2)}"` // 65538 bytes, 32770 characters
    expect(checkJqSyntax(multibyte)).toBe("jq filter exceeds the configured limit of 65536 bytes")
  })

  test("filter nesting: 1024 passes, 1025 does not", () => {
    expect(checkJqSyntax(`${"(".repeat(1024)}.${")".repeat(1024)}`)).toBeUndefined()
    expect(checkJqSyntax(`${"[".repeat(1025)}1${"]".repeat(1025)}`)).toBe(
      "jq filter exceeds the configured nesting limit of 1024"
    )
    // Brackets inside strings and comments are not nesting.
    expect(checkJqSyntax(`"${"[".repeat(2000)}" # ${"(".repeat(2000)}`)).toBeUndefined()
  })

  test("input nesting: depth 1024 passes, 1025 does not", async () => {
    expect(await one("length", nested(1024))).toBe(1)
    expect(await oneFails(".", nested(1025))).toBe("jq filter \".\": jq input exceeds the configured nesting limit of 1024")
    expect(await oneFails("length", { a: nested(1024) })).toBe(
      "jq filter \"length\": jq input exceeds the configured nesting limit of 1024"
    )
  })

  test("globals have the same nesting limit", async () => {
    expect(await oneFails("$loop", null, vars({ loop: nested(1025) }), "condition")).toBe(
      "jq condition \"$loop\": jq '$loop' exceeds the configured nesting limit of 1024"
    )
    expect(await oneFails("$inputs", null, vars({ inputs: { x: nested(1024) } }))).toBe(
      "jq filter \"$inputs\": jq '$inputs' exceeds the configured nesting limit of 1024"
    )
  })

  test("input size: more than 64 MiB serialised is refused before jq runs", async () => {
    // 32 Mi two-byte characters plus quotes: under the limit in characters, over it in bytes.
    const big = "é".repeat(MAX_INPUT_BYTES / 2)
    expect(await oneFails("length", big)).toBe(
      "jq filter \"length\": jq input exceeds the configured limit of 67108864 bytes"
    )
    expect(await oneFails("length", "x".repeat(MAX_INPUT_BYTES - 1))).toBe(
      "jq filter \"length\": jq input exceeds the configured limit of 67108864 bytes"
    )
  })

  test("rendered output: 16 MiB passes, one byte more does not", async () => {
    const exact = await one(`"x" * ${MAX_OUTPUT_BYTES - 2}`)
    expect(typeof exact === "string" && exact.length).toBe(MAX_OUTPUT_BYTES - 2)
    expect(await oneFails(`"x" * ${MAX_OUTPUT_BYTES - 1}`)).toBe(
      `jq filter "\\"x\\" * ${MAX_OUTPUT_BYTES - 1}": jq rendered output exceeds the configured limit of 16777216 bytes`
    )
  })

  test("a value too deep for jq-wasm's stack fails cleanly, and the next evaluation still works", async () => {
    const message = await oneFails("reduce range(2000) as $i (null; [.])")
    expect(message).toStartWith("jq filter \"reduce range(2000) as $i (null; [.])\" failed: the jq engine aborted (")
    expect(message).toEndWith(
      "); it ran out of memory or stack: values of tens of megabytes or nested a few hundred levels deep can exhaust it"
    )
    expect(await one(".a + 1", { a: 1 })).toBe(2)
    expect(checkJqSyntax(".a")).toBeUndefined()
  })
})

describe("evalJqAll", () => {
  test("returns every output in order, or none", async () => {
    expect(await Effect.runPromise(evalJqAll(".[]", [1, "a", { b: null }], vars()))).toEqual([1, "a", { b: null }])
    expect(await Effect.runPromise(evalJqAll("empty", null, vars()))).toEqual([])
    expect(await Effect.runPromise(evalJqAll("$steps.a, $inputs.b", null, vars({ steps: { a: 1 }, inputs: { b: 2 } }))))
      .toEqual([1, 2])
  })

  test("an endless stream is cut off at the configured number of outputs", async () => {
    expect(await failure(evalJqAll("range(0; infinite)", null, vars()))).toBe(
      `jq filter "range(0; infinite)": jq produced more than ${MAX_OUTPUTS} outputs, the configured limit`
    )
    expect(await Effect.runPromise(evalJqAll(`range(0; ${MAX_OUTPUTS})`, null, vars()))).toHaveLength(MAX_OUTPUTS)
  })

  test("errors are reported as for evalJqOne", async () => {
    expect(await failure(evalJqAll("1, error(\"x\")", null, vars()))).toBe("jq filter \"1, error(\\\"x\\\")\" failed: x")
  })
})

describe("interruption", () => {
  test("a loop of evaluations stops when its fiber is interrupted", async () => {
    let count = 0
    const loop = Effect.forever(Effect.map(evalJqOne(". + 1", 1, vars(), "filter"), () => count++))
    const exit = await Effect.runPromise(
      Effect.gen(function*() {
        const fiber = yield* Effect.forkChild(loop)
        yield* Effect.sleep("50 millis")
        yield* Fiber.interrupt(fiber)
        return yield* Fiber.await(fiber)
      })
    )
    expect(Exit.isFailure(exit) && exit.cause.reasons.every((r) => r._tag === "Interrupt")).toBe(true)
    const after = count
    await Effect.runPromise(Effect.sleep("20 millis"))
    expect(count).toBe(after)
    expect(after).toBeGreaterThan(0)
  })
})
