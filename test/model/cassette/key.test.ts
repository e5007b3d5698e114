import { describe, expect, test } from "bun:test"
import { keyMaterial, requestKey } from "../../../src/model/cassette/key.ts"
import { formatRustFloat, rustJson, rustJsonOfData } from "../../../src/model/rustJson.ts"

describe("request key (compatible with the Rust lait)", () => {
  test("golden vector 1: empty request", () => {
    const k = { base_url: "http://x", model_id: "m", messages: [], tools: [], response_format: null }
    expect(keyMaterial(k)).toBe(
      "{\"base_url\":\"http://x\",\"model_id\":\"m\",\"reasoning_effort\":null,\"temperature\":null,\"top_p\":null,\"max_tokens\":null,\"messages\":[],\"tools\":[],\"response_format\":null}"
    )
    expect(requestKey(k)).toBe("4f31bb16957772afd4b0e91ec7cc92478f9b67169bbcb8b9271768cf9e6e92ef")
  })

  test("golden vector 2: every field set", () => {
    const k = {
      base_url: "http://x",
      model_id: "m",
      reasoning_effort: "high",
      temperature: 0.5,
      top_p: 0.9,
      max_tokens: 256,
      messages: [{ role: "user" as const, content: "hello" }],
      tools: [{
        type: "function" as const,
        function: { name: "tool__example", description: "an example tool", parameters: { type: "object" } }
      }],
      response_format: {
        type: "json_schema" as const,
        json_schema: { name: "out", schema: { type: "object" }, strict: true as const }
      }
    }
    expect(requestKey(k)).toBe("c709b731bbd10d404af85bfb35cc73063ad9787b0ad40ae994a08fabce04f47f")
  })

  test("whole floats keep their fraction as Rust prints them", () => {
    expect(formatRustFloat(1)).toBe("1.0")
    expect(formatRustFloat(0)).toBe("0.0")
    expect(formatRustFloat(0.7)).toBe("0.7")
    expect(formatRustFloat(1e21)).toBe("1e21")
    const k = { base_url: "b", model_id: "m", temperature: 1, top_p: 1, messages: [], tools: [], response_format: null }
    expect(keyMaterial(k)).toContain("\"temperature\":1.0,\"top_p\":1.0,")
  })

  test("message fields follow async-openai's order and omit absent ones", () => {
    const k = {
      base_url: "b",
      model_id: "m",
      messages: [
        { role: "system" as const, content: "s" },
        {
          role: "assistant" as const,
          content: null,
          tool_calls: [{ id: "c1", type: "function" as const, function: { name: "t", arguments: "{}" } }]
        },
        { role: "tool" as const, tool_call_id: "c1", content: "r" }
      ],
      tools: [],
      response_format: null
    }
    expect(keyMaterial(k)).toContain(
      "\"messages\":[{\"role\":\"system\",\"content\":\"s\"},{\"role\":\"assistant\",\"tool_calls\":[{\"id\":\"c1\",\"type\":\"function\",\"function\":{\"name\":\"t\",\"arguments\":\"{}\"}}]},{\"role\":\"tool\",\"content\":\"r\",\"tool_call_id\":\"c1\"}]"
    )
  })

  test("strings escape like serde_json (non-ASCII kept, control characters as \\u00XX)", () => {
    expect(rustJson("日本語 \"q\" \\ \n\t\u0001/")).toBe("\"日本語 \\\"q\\\" \\\\ \\n\\t\\u0001/\"")
  })

  test("JSON data renders as rustJson does, exponents and look-alike strings included", () => {
    const data = [
      { a: 1, b: [2.5, -0, 1e21, 1e-7, 123456789012345680000], c: "x", d: null, e: true, skipped: undefined },
      { text: "1e+21 and e+ inside a string", nested: { deep: [{ n: 3 }] } },
      [],
      {},
      "plain",
      null,
      [undefined, { u: undefined }]
    ]
    for (const value of data) expect(rustJsonOfData(value)).toBe(rustJson(value))
    expect(rustJsonOfData({ big: 1e21 })).toBe("{\"big\":1e21}")
  })

  test("a tool whose schema has an exponent keeps the original key", () => {
    const k = {
      base_url: "http://h/v1",
      model_id: "m",
      messages: [{ role: "user" as const, content: "q" }],
      tools: [{ type: "function" as const, function: { name: "t", parameters: { maximum: 1e21, minimum: 0.5 } } }],
      response_format: null
    }
    expect(keyMaterial(k)).toContain("\"parameters\":{\"maximum\":1e21,\"minimum\":0.5}")
  })
})
