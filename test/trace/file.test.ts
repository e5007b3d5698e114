import { afterAll, describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Effect, Exit } from "effect"
import { renderChain } from "../../src/core/errors.ts"
import { FileLoader } from "../../src/platform/FileLoader.ts"
import {
  checkTraceTarget,
  eventsAsPrettyJson,
  parseTraceText,
  readTraceFile,
  toJsonl,
  traceFileEvents,
  writeTraceFile
} from "../../src/trace/file.ts"
import { toJs } from "../../src/trace/json.ts"
import type { RecordedEvent } from "../../src/trace/RunTracer.ts"
import { UPSTREAM_TRACE } from "./fixtures.ts"

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "lait-trace-file-"))
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

const parse = (text: string, file = "t.jsonl") => Effect.runSync(parseTraceText(text, file))

const parseError = (text: string, file = "t.jsonl") => {
  const exit = Effect.runSyncExit(parseTraceText(text, file))
  if (Exit.isSuccess(exit)) throw new Error("expected a parse failure")
  const reason = exit.cause.reasons[0]
  return reason?._tag === "Fail" ? renderChain(reason.error) : String(exit.cause)
}

describe("reading", () => {
  test("an upstream file: every field, nanosecond timestamps, attribute order", () => {
    const events = parse(UPSTREAM_TRACE)
    expect(events.map((e) => e.seq)).toEqual([0n, 1n, 2n, 3n])
    const first = events[0]!
    expect(first.operation).toBe("chat")
    expect(first.label).toBe("summarize")
    expect(first.start).toBe(1777644191204123456n)
    expect(first.duration_ms).toBe(42n)
    expect(first.attributes.entries.map(([k]) => k)).toEqual([
      "gen_ai.request.model",
      "lait.source",
      "gen_ai.usage.input_tokens",
      "gen_ai.usage.output_tokens"
    ])
    expect(first.span_id).toBeUndefined()
    expect("parent_span_id" in first).toBe(false)
  })

  test("events come back sorted by seq; blank lines and CRLF endings are fine", () => {
    const lines = UPSTREAM_TRACE.trim().split("\n")
    const events = parse(`\n${lines[2]}\r\n   \r\n${lines[0]}\r\n${lines[1]}`)
    expect(events.map((e) => e.seq)).toEqual([0n, 1n, 2n])
  })

  test("an empty file has no events", () => {
    expect(parse("")).toEqual([])
    expect(parse("\n  \n")).toEqual([])
  })

  test("unknown fields are ignored; span ids are read when present", () => {
    const [e] = parse(
      "{\"seq\":7,\"operation\":\"step\",\"label\":\"x\",\"start\":\"2026-01-01T00:00:00Z\",\"end\":\"2026-01-01T00:00:01Z\"," +
        "\"duration_ms\":1000,\"attributes\":{},\"span_id\":\"ab\",\"parent_span_id\":null,\"extra\":[1]}"
    )
    expect(e!.span_id).toBe("ab")
    expect(e!.parent_span_id).toBeNull()
  })

  test.each([
    ["not json", "expected value at column 1"],
    ["{\"seq\":0}", "missing field 'operation'"],
    ["{\"seq\":-1,\"operation\":\"chat\",\"label\":\"l\",\"start\":\"2026-01-01T00:00:00Z\",\"end\":\"2026-01-01T00:00:00Z\",\"duration_ms\":0,\"attributes\":{}}", "'seq' must be a non-negative integer"],
    ["{\"seq\":1.0,\"operation\":\"chat\",\"label\":\"l\",\"start\":\"2026-01-01T00:00:00Z\",\"end\":\"2026-01-01T00:00:00Z\",\"duration_ms\":0,\"attributes\":{}}", "'seq' must be a non-negative integer"],
    ["{\"seq\":1,\"operation\":\"chat\",\"label\":\"l\",\"start\":\"yesterday\",\"end\":\"2026-01-01T00:00:00Z\",\"duration_ms\":0,\"attributes\":{}}", "'start' must be an RFC 3339 timestamp"],
    ["{\"seq\":1,\"operation\":\"chat\",\"label\":\"l\",\"start\":\"2026-01-01T00:00:00Z\",\"end\":\"2026-01-01T00:00:00Z\",\"duration_ms\":0,\"attributes\":[]}", "'attributes' must be an object"],
    ["{\"seq\":1,\"seq\":2,\"operation\":\"chat\",\"label\":\"l\",\"start\":\"2026-01-01T00:00:00Z\",\"end\":\"2026-01-01T00:00:00Z\",\"duration_ms\":0,\"attributes\":{}}", "duplicate field 'seq'"],
    ["{\"seq\":1,\"operation\":\"chat\",\"label\":\"l\",\"start\":\"2026-01-01T00:00:00Z\",\"end\":\"2026-01-01T00:00:00Z\",\"duration_ms\":0,\"attributes\":{},\"span_id\":5}", "'span_id' must be a string"],
    ["[1]", "invalid type: expected an event object"]
  ])("a bad line names its number: %s", (line, cause) => {
    const good = UPSTREAM_TRACE.split("\n")[0]!
    expect(parseError(`${good}\n\n${line}\n${good}`, "dir/bad.jsonl")).toBe(
      `failed to parse trace event on line 3 of 'dir/bad.jsonl': ${cause}`
    )
  })

  test("readTraceFile: a missing file and invalid UTF-8 are read failures", async () => {
    const read = (p: string) =>
      Effect.runPromiseExit(readTraceFile(p, { waitForWriter: false }).pipe(Effect.provide(FileLoader.layer)))
    const failure = (exit: Exit.Exit<unknown, unknown>) => {
      const reason = Exit.isFailure(exit) ? exit.cause.reasons[0] : undefined
      return reason?._tag === "Fail" ? renderChain(reason.error) : "no failure"
    }
    expect(failure(await read(path.join(dir, "nope.jsonl"))))
      .toBe(`failed to read trace file '${path.join(dir, "nope.jsonl")}': no such file or directory`)
    const binary = path.join(dir, "binary.jsonl")
    fs.writeFileSync(binary, Uint8Array.from([0xff, 0xfe, 0x00]))
    expect(failure(await read(binary))).toBe(`failed to read trace file '${binary}': stream did not contain valid UTF-8`)
  })
})

const recorded: ReadonlyArray<RecordedEvent> = [
  {
    seq: 0,
    operation: "chat",
    label: "plan",
    start: "2026-05-01T10:00:00.010Z",
    end: "2026-05-01T10:00:01Z",
    duration_ms: 990,
    attributes: { "gen_ai.request.model": "m", "lait.source": "replay", "gen_ai.usage.input_tokens": 3 },
    span_id: "1111111111111111",
    parent_span_id: "2222222222222222"
  },
  {
    seq: 1,
    operation: "invoke_workflow",
    label: "demo",
    start: "2026-05-01T10:00:00Z",
    end: "2026-05-01T10:00:01.500Z",
    duration_ms: 1500,
    attributes: {},
    span_id: "2222222222222222",
    parent_span_id: null
  }
]

const withSpans = traceFileEvents(recorded, { spans: true })

describe("writing", () => {
  test("by default only the seed's events, numbered from 0 among themselves, without span ids", () => {
    const interleaved: ReadonlyArray<RecordedEvent> = [
      { ...recorded[1]!, seq: 0, operation: "step", label: "one" },
      { ...recorded[0]!, seq: 1 },
      { ...recorded[0]!, seq: 2, operation: "execute_tool", label: "tool 'x'", attributes: {} },
      { ...recorded[1]!, seq: 3 }
    ]
    expect(toJsonl(traceFileEvents(interleaved, { spans: false }))).toBe(
      "{\"seq\":0,\"operation\":\"chat\",\"label\":\"plan\",\"start\":\"2026-05-01T10:00:00.010Z\",\"end\":\"2026-05-01T10:00:01Z\"," +
        "\"duration_ms\":990,\"attributes\":{\"gen_ai.request.model\":\"m\",\"lait.source\":\"replay\",\"gen_ai.usage.input_tokens\":3}}\n" +
        "{\"seq\":1,\"operation\":\"execute_tool\",\"label\":\"tool 'x'\",\"start\":\"2026-05-01T10:00:00.010Z\",\"end\":\"2026-05-01T10:00:01Z\"," +
        "\"duration_ms\":990,\"attributes\":{}}\n"
    )
    expect(traceFileEvents(interleaved, { spans: true }).map((e) => [e.seq, e.operation])).toEqual([
      [0n, "step"],
      [1n, "chat"],
      [2n, "execute_tool"],
      [3n, "invoke_workflow"]
    ])
  })

  test("a run that did not succeed also keeps, without span ids, the run and step spans that failed", () => {
    const failing: ReadonlyArray<RecordedEvent> = [
      { ...recorded[1]!, seq: 0, operation: "step", label: "fine" },
      { ...recorded[0]!, seq: 1 },
      { ...recorded[1]!, seq: 2, operation: "step", label: "boom", attributes: { "error.type": "LaitError" } },
      { ...recorded[1]!, seq: 3, attributes: { "error.type": "LaitError" } }
    ]
    const kept = (outcome: "succeeded" | "failed" | "interrupted") =>
      traceFileEvents(failing, { spans: false, outcome }).map((e) => [e.seq, e.operation, e.label, e.span_id])
    expect(kept("failed")).toEqual([
      [0n, "chat", "plan", undefined],
      [1n, "step", "boom", undefined],
      [2n, "invoke_workflow", "demo", undefined]
    ])
    expect(kept("interrupted")).toEqual(kept("failed"))
    expect(kept("succeeded")).toEqual([[0n, "chat", "plan", undefined]])
  })

  test("with spans: one compact line per record, upstream's keys first, then the span ids", () => {
    expect(toJsonl(withSpans)).toBe(
      "{\"seq\":0,\"operation\":\"chat\",\"label\":\"plan\",\"start\":\"2026-05-01T10:00:00.010Z\",\"end\":\"2026-05-01T10:00:01Z\"," +
        "\"duration_ms\":990,\"attributes\":{\"gen_ai.request.model\":\"m\",\"lait.source\":\"replay\",\"gen_ai.usage.input_tokens\":3}," +
        "\"span_id\":\"1111111111111111\",\"parent_span_id\":\"2222222222222222\"}\n" +
        "{\"seq\":1,\"operation\":\"invoke_workflow\",\"label\":\"demo\",\"start\":\"2026-05-01T10:00:00Z\",\"end\":\"2026-05-01T10:00:01.500Z\"," +
        "\"duration_ms\":1500,\"attributes\":{},\"span_id\":\"2222222222222222\",\"parent_span_id\":null}\n"
    )
  })

  test("what is written reads back as the same events", () => {
    const events = parse(toJsonl(withSpans))
    expect(events.map((e) => [e.seq, e.operation, e.span_id, e.parent_span_id, toJs(e.attributes)])).toEqual([
      [0n, "chat", "1111111111111111", "2222222222222222", { "gen_ai.request.model": "m", "lait.source": "replay", "gen_ai.usage.input_tokens": 3 }],
      [1n, "invoke_workflow", "2222222222222222", null, {}]
    ])
  })

  test("writeTraceFile creates parent directories and leaves no temp file", async () => {
    const target = path.join(dir, "deep", "er", "run.jsonl")
    await Effect.runPromise(writeTraceFile(target, withSpans).pipe(Effect.provide(FileLoader.layer)))
    expect(fs.readFileSync(target, "utf8")).toBe(toJsonl(withSpans))
    expect(fs.readdirSync(path.dirname(target))).toEqual(["run.jsonl"])
  })

  test("checkTraceTarget: a missing parent will be made; a directory, a file as parent, no permission fail now", async () => {
    const check = async (target: string) => {
      const exit = await Effect.runPromiseExit(checkTraceTarget(target))
      if (Exit.isSuccess(exit)) return "ok"
      const reason = exit.cause.reasons[0]!
      return reason._tag === "Fail" ? renderChain(reason.error) : String(exit.cause)
    }
    fs.writeFileSync(path.join(dir, "plain"), "")
    fs.mkdirSync(path.join(dir, "locked"), { recursive: true })
    fs.chmodSync(path.join(dir, "locked"), 0o500)
    expect(await check(path.join(dir, "new", "deeper", "t.jsonl"))).toBe("ok")
    expect(await check(path.join(dir, "plain"))).toBe("ok")
    expect(await check(dir)).toBe(`failed to write trace file '${dir}': is a directory`)
    expect(await check(path.join(dir, "plain", "t.jsonl")))
      .toBe(`failed to write trace file '${path.join(dir, "plain", "t.jsonl")}': a component of the path is not a directory`)
    expect(await check(path.join(dir, "plain", "x", "t.jsonl")))
      .toBe(`failed to write trace file '${path.join(dir, "plain", "x", "t.jsonl")}': a component of the path is not a directory`)
    // root may write anywhere; the permission case only means something for other users.
    if (process.getuid?.() !== 0) {
      expect(await check(path.join(dir, "locked", "t.jsonl")))
        .toBe(`failed to write trace file '${path.join(dir, "locked", "t.jsonl")}': permission denied`)
    }
    fs.chmodSync(path.join(dir, "locked"), 0o700)
    expect(fs.existsSync(path.join(dir, "new"))).toBe(false)
  })

  test("a write failure names the trace file", async () => {
    const occupied = path.join(dir, "occupied")
    fs.mkdirSync(occupied)
    const exit = await Effect.runPromiseExit(writeTraceFile(occupied, withSpans).pipe(Effect.provide(FileLoader.layer)))
    if (Exit.isSuccess(exit)) throw new Error("expected failure")
    const reason = exit.cause.reasons[0]!
    expect(reason._tag === "Fail" ? renderChain(reason.error) : "").toBe(`failed to write trace file '${occupied}': is a directory`)
    // Callers can tell what failed without reading the text.
    expect(reason._tag === "Fail" ? reason.error : undefined).toMatchObject({
      _tag: "TraceError",
      reason: { _tag: "WriteFailed", path: occupied, detail: "is a directory" }
    })
    expect(fs.readdirSync(dir).filter((f) => f.endsWith(".tmp"))).toEqual([])
  })
})

test("--json form: serde's pretty printing, chrono's timestamps, attribute values kept as written", () => {
  const [first] = parse(UPSTREAM_TRACE)
  expect(eventsAsPrettyJson([first!])).toBe(`[
  {
    "seq": 0,
    "operation": "chat",
    "label": "summarize",
    "start": "2026-05-01T14:03:11.204123456Z",
    "end": "2026-05-01T14:03:11.246987Z",
    "duration_ms": 42,
    "attributes": {
      "gen_ai.request.model": "workflow-model",
      "lait.source": "live",
      "gen_ai.usage.input_tokens": 120,
      "gen_ai.usage.output_tokens": 48
    }
  }
]`)
})
