import { describe, expect, test } from "bun:test"
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { Effect } from "effect"
import { parseTraceText } from "../../src/trace/file.ts"
import { compactJson, parseJson, toJs } from "../../src/trace/json.ts"
import { anyValue, encodeOtlp, otlpBody, spanIdOf, statusText, traceIdOf } from "../../src/trace/otlp.ts"
import { otlpProblems } from "../fixtures/otlp-receiver.ts"
import { TREE_TRACE } from "./fixtures.ts"

const golden = path.join(import.meta.dir, "golden")
const options = { serviceName: "svc", scopeVersion: "0.1.0" }

const load = (text: string) => Effect.runSync(parseTraceText(text, "t.jsonl"))

interface Span {
  readonly traceId: string
  readonly spanId: string
  readonly parentSpanId?: string
  readonly name: string
  readonly kind: number
  readonly startTimeUnixNano: string
  readonly endTimeUnixNano: string
  readonly attributes: ReadonlyArray<{ readonly key: string; readonly value: Record<string, unknown> }>
  readonly status?: { readonly code: number }
}

const spansOf = (body: string): ReadonlyArray<Span> =>
  (JSON.parse(body) as { resourceSpans: Array<{ scopeSpans: Array<{ spans: Array<Span> }> }> }).resourceSpans[0]!
    .scopeSpans[0]!.spans

describe("a file of the original lait", () => {
  const bytes = fs.readFileSync(path.join(golden, "upstream.jsonl"))
  const events = load(bytes.toString("utf8"))

  test("encodes byte for byte as upstream does (golden from an independent implementation)", () => {
    expect(otlpBody(events, bytes, options)).toBe(fs.readFileSync(path.join(golden, "upstream.otlp.json"), "utf8"))
  })

  test("ids: trace id from SHA-256 of the file bytes, span id from the trace id hex and the big-endian seq", () => {
    const traceId = createHash("sha256").update(bytes).digest("hex").slice(0, 32)
    expect(traceIdOf(bytes)).toBe(traceId)
    const seq = Buffer.from([0, 0, 0, 0, 0, 0, 0, 3])
    expect(spanIdOf(traceId, 3n)).toBe(createHash("sha256").update(traceId).update(seq).digest("hex").slice(0, 16))
    // Fixed vectors, so a change to the derivation cannot go unnoticed.
    expect(traceIdOf(new TextEncoder().encode("x"))).toBe("2d711642b726b04401627ca9fbac32f5")
    expect(spanIdOf("2d711642b726b04401627ca9fbac32f5", 0n)).toBe("5ee868cf9335bcba")
  })

  test("spans are flat roots without status, CLIENT except compact", () => {
    const spans = spansOf(otlpBody(events, bytes, options))
    expect(spans.map((s) => [s.name, s.kind, "parentSpanId" in s, "status" in s])).toEqual([
      ["chat summarize", 3, false, false],
      ["execute_tool tool 'tool__ripgrep'", 3, false, false],
      ["compact summarize", 1, false, false],
      ["chat summarize", 3, false, false]
    ])
  })

  test("exporting the same bytes twice gives the same ids; other bytes another trace", () => {
    const a = spansOf(otlpBody(events, bytes, options))
    const b = spansOf(otlpBody(load(bytes.toString("utf8")), Uint8Array.from(bytes), options))
    expect(b.map((s) => [s.traceId, s.spanId])).toEqual(a.map((s) => [s.traceId, s.spanId]))
    const changed = Buffer.concat([bytes, Buffer.from("\n")])
    expect(spansOf(otlpBody(events, changed, options))[0]!.traceId).not.toBe(a[0]!.traceId)
  })
})

describe("AnyValue", () => {
  const encode = (json: string) => toJs(anyValue(parseJson(json)))
  test.each([
    ["\"s\"", { stringValue: "s" }],
    ["true", { boolValue: true }],
    ["null", { stringValue: "" }],
    ["42", { intValue: "42" }],
    ["-9223372036854775808", { intValue: "-9223372036854775808" }],
    ["1.5", { doubleValue: 1.5 }],
    ["[1,\"a\"]", { stringValue: "[1,\"a\"]" }],
    ["{\"b\":1,\"a\":2}", { stringValue: "{\"b\":1,\"a\":2}" }]
  ])("%s", (json, expected) => {
    expect(encode(json)).toEqual(expected)
  })

  test("5.0 is a double and u64 beyond i64 a double, written as serde writes f64", () => {
    expect(compactJson(anyValue(parseJson("5.0")))).toBe("{\"doubleValue\":5.0}")
    expect(compactJson(anyValue(parseJson("18446744073709551615")))).toBe("{\"doubleValue\":1.8446744073709552e19}")
    expect(compactJson(anyValue(parseJson("12345678901234567890")))).toBe("{\"doubleValue\":1.2345678901234567e19}")
  })
})

describe("a file of this project: a span tree", () => {
  const bytes = new TextEncoder().encode(TREE_TRACE)
  const events = load(TREE_TRACE)
  const body = otlpBody(events, bytes, options)
  const spans = spansOf(body)
  const bySeq = (seq: number) => spans[seq]!

  test("the body follows the OTLP/JSON rules", () => {
    expect(otlpProblems(JSON.parse(body))).toEqual([])
  })

  test("parents are the derived ids of the events the file names; an unknown parent leaves a root", () => {
    expect(bySeq(0).parentSpanId).toBe(bySeq(3).spanId)
    expect(bySeq(1).parentSpanId).toBe(bySeq(3).spanId)
    expect(bySeq(2).parentSpanId).toBe(bySeq(3).spanId)
    expect(bySeq(3).parentSpanId).toBe(bySeq(5).spanId)
    expect("parentSpanId" in bySeq(4)).toBe(false)
    expect("parentSpanId" in bySeq(5)).toBe(false)
    expect(spans.map((s) => s.spanId)).toEqual(events.map((e) => spanIdOf(traceIdOf(bytes), e.seq)))
  })

  test("GenAI names and kinds: chat <model> CLIENT, execute_tool <tool> INTERNAL, lait's spans INTERNAL", () => {
    expect(spans.map((s) => [s.name, s.kind])).toEqual([
      ["chat m1", 3],
      ["execute_tool tool__echo", 1],
      ["chat m1", 3],
      ["step plan", 1],
      ["step orphan", 1],
      ["invoke_workflow demo", 1]
    ])
  })

  test("error.type means status ERROR; everything else has no status", () => {
    expect(spans.map((s) => s.status?.code)).toEqual([undefined, undefined, 2, 2, undefined, undefined])
  })

  test("attributes: operation, label, seq, then the event's own, with integers as strings", () => {
    expect(bySeq(0).attributes).toEqual([
      { key: "gen_ai.operation.name", value: { stringValue: "chat" } },
      { key: "lait.label", value: { stringValue: "plan" } },
      { key: "lait.seq", value: { intValue: "0" } },
      { key: "gen_ai.request.model", value: { stringValue: "m1" } },
      { key: "lait.source", value: { stringValue: "live" } },
      { key: "gen_ai.usage.input_tokens", value: { intValue: "12" } },
      { key: "gen_ai.usage.output_tokens", value: { intValue: "3" } },
      { key: "gen_ai.provider.name", value: { stringValue: "openai" } },
      { key: "server.address", value: { stringValue: "127.0.0.1" } },
      { key: "server.port", value: { intValue: "8080" } }
    ])
    expect(bySeq(5).startTimeUnixNano).toBe("1777629600000000000")
    expect(bySeq(5).endTimeUnixNano).toBe("1777629600080000000")
  })

  test("one resource, one scope; service.name and the scope version as given", () => {
    const request = toJs(encodeOtlp(events, bytes, { serviceName: "my-svc", scopeVersion: "9.9.9" })) as {
      resourceSpans: Array<{ resource: unknown; scopeSpans: Array<{ scope: unknown }> }>
    }
    expect(request.resourceSpans).toHaveLength(1)
    expect(request.resourceSpans[0]!.resource).toEqual({ attributes: [{ key: "service.name", value: { stringValue: "my-svc" } }] })
    expect(request.resourceSpans[0]!.scopeSpans.map((s) => s.scope)).toEqual([{ name: "lait", version: "9.9.9" }])
  })
})

test("statusText prints a status as upstream's HTTP client does", () => {
  expect(statusText(404)).toBe("404 Not Found")
  expect(statusText(503)).toBe("503 Service Unavailable")
  expect(statusText(203)).toBe("203 Non Authoritative Information")
  expect(statusText(599)).toBe("599 <unknown status code>")
})

test("span ids without the run and step records: exported flat, exactly as upstream", () => {
  const upstreamBytes = fs.readFileSync(path.join(golden, "upstream.jsonl"))
  const withIds = upstreamBytes.toString("utf8").trimEnd().split("\n").map((line, i) =>
    line.replace(/}$/, `,"span_id":"00000000000000a${i}","parent_span_id":"00000000000000ff"}`)
  ).join("\n") + "\n"
  const bytes = new TextEncoder().encode(withIds)
  const strip = (body: string) => body.replaceAll(traceIdOf(bytes), "T")
  const expected = fs.readFileSync(path.join(golden, "upstream.otlp.json"), "utf8").replaceAll(traceIdOf(upstreamBytes), "T")
  // Span ids derive from the trace id, which hashes the bytes: compare with both replaced by their derivation.
  const ids = (b: Uint8Array) => [0n, 1n, 2n, 3n].map((seq) => spanIdOf(traceIdOf(b), seq))
  let got = strip(otlpBody(load(withIds), bytes, options))
  let want = expected
  ids(bytes).forEach((id, i) => (got = got.replaceAll(id, `S${i}`)))
  ids(upstreamBytes).forEach((id, i) => (want = want.replaceAll(id, `S${i}`)))
  expect(got).toBe(want)
})
