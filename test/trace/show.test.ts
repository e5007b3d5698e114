import { describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { parseTraceText } from "../../src/trace/file.ts"
import { renderShow, renderTree, summarize } from "../../src/trace/show.ts"
import { TREE_TRACE, UPSTREAM_TRACE } from "./fixtures.ts"

const upstream = Effect.runSync(parseTraceText(UPSTREAM_TRACE, "u.jsonl"))
const tree = Effect.runSync(parseTraceText(TREE_TRACE, "t.jsonl"))
const plain = { json: false, summary: false }

describe("one line per event", () => {
  test("the seed's layout: right-aligned ms, padded operation, em dash, UTC clock, strings unquoted", () => {
    expect(renderShow(upstream, plain)).toBe(
      [
        "[    42ms] chat         summarize \u2014 14:03:11.204  (gen_ai.request.model=workflow-model lait.source=live gen_ai.usage.input_tokens=120 gen_ai.usage.output_tokens=48)",
        "[     3ms] execute_tool tool 'tool__ripgrep' \u2014 14:03:11.260  (gen_ai.tool.name=tool__ripgrep gen_ai.tool.arguments={\"pattern\":\"TODO\"} lait.step.label=summarize lait.tool.round=1 lait.tool.decision=allowed)",
        "[     0ms] compact      summarize \u2014 14:03:11.270  (lait.compaction.round=2 lait.compaction.messages_before=9 lait.compaction.messages_after=4)",
        "[    58ms] chat         summarize \u2014 14:03:11.280  (gen_ai.request.model=workflow-model lait.source=cache gen_ai.usage.input_tokens=30 gen_ai.usage.output_tokens=7 weird=[1,{\"x\":null}] ratio=0.5 flag=true nothing=null)"
      ].join("\n")
    )
  })

  test("an event without attributes has no parentheses; a long operation is not cut", () => {
    const [event] = Effect.runSync(parseTraceText(
      "{\"seq\":0,\"operation\":\"invoke_workflow\",\"label\":\"w\",\"start\":\"2026-01-01T09:08:07.006Z\",\"end\":\"2026-01-01T09:08:07.006Z\",\"duration_ms\":1234567,\"attributes\":{}}",
      "x"
    ))
    expect(renderShow([event!], plain)).toBe("[1234567ms] invoke_workflow w \u2014 09:08:07.006")
  })

  test("(no events)", () => {
    expect(renderShow([], plain)).toBe("(no events)")
    expect(renderShow(upstream, { ...plain, operation: "nothing" })).toBe("(no events)")
  })
})

describe("filters", () => {
  test("--operation is exact, --label a substring, both together", () => {
    expect(renderShow(upstream, { ...plain, operation: "execute_tool" }).split("\n")).toHaveLength(1)
    expect(renderShow(upstream, { ...plain, operation: "chat" }).split("\n")).toHaveLength(2)
    expect(renderShow(upstream, { ...plain, operation: "cha" })).toBe("(no events)")
    expect(renderShow(upstream, { ...plain, label: "ripgrep" })).toStartWith("[     3ms] execute_tool tool 'tool__ripgrep'")
    expect(renderShow(upstream, { ...plain, label: "summ", operation: "compact" })).toStartWith("[     0ms] compact ")
  })

  test("--json prints the kept events as a pretty array", () => {
    const out = renderShow(upstream, { json: true, summary: false, operation: "compact" })
    expect(JSON.parse(out)).toEqual([{
      seq: 2,
      operation: "compact",
      label: "summarize",
      start: "2026-05-01T14:03:11.270Z",
      end: "2026-05-01T14:03:11.270Z",
      duration_ms: 0,
      attributes: { "lait.compaction.round": 2, "lait.compaction.messages_before": 9, "lait.compaction.messages_after": 4 }
    }])
    expect(out).toStartWith("[\n  {\n    \"seq\": 2,\n")
    expect(renderShow([], { json: true, summary: false })).toBe("[]")
  })
})

describe("--summary", () => {
  test("per label in first-appearance order, after the filters", () => {
    expect(renderShow(upstream, { json: false, summary: true })).toBe(
      [
        "summarize: chat=2 execute_tool=0 compact=1 total=100ms tokens(in=150 out=55)",
        "tool 'tool__ripgrep': chat=0 execute_tool=1 compact=0 total=3ms tokens(in=0 out=0)"
      ].join("\n")
    )
    expect(renderShow(upstream, { json: false, summary: true, operation: "chat" })).toBe(
      "summarize: chat=2 execute_tool=0 compact=0 total=100ms tokens(in=150 out=55)"
    )
    expect(renderShow(upstream, { json: false, summary: true, label: "nothing" })).toBe("(no events)")
  })

  test("--json --summary", () => {
    expect(renderShow(upstream, { json: true, summary: true, label: "tool" })).toBe(`[
  {
    "label": "tool 'tool__ripgrep'",
    "chat": 0,
    "execute_tool": 1,
    "compact": 0,
    "duration_ms": 3,
    "input_tokens": 0,
    "output_tokens": 0
  }
]`)
    expect(renderShow([], { json: true, summary: true })).toBe("[]")
  })

  test("the run and step spans are structure: they are listed but not totalled", () => {
    expect(renderShow(tree, { json: false, summary: true })).toBe(
      [
        "plan: chat=2 execute_tool=0 compact=0 total=49ms tokens(in=12 out=3)",
        "tool 'tool__echo': chat=0 execute_tool=1 compact=0 total=9ms tokens(in=0 out=0)"
      ].join("\n")
    )
    expect(renderShow(tree, { ...plain, operation: "step" }).split("\n")).toHaveLength(2)
  })

  test("token counts only take non-negative integers, as serde's as_u64", () => {
    const events = Effect.runSync(parseTraceText(
      [1.5, -3, 18446744073709551615, 4].map((n, i) =>
        `{"seq":${i},"operation":"chat","label":"l","start":"2026-01-01T00:00:00Z","end":"2026-01-01T00:00:00Z","duration_ms":1,"attributes":{"gen_ai.usage.input_tokens":${
          n === 18446744073709551615 ? "18446744073709551615" : n
        }}}`
      ).join("\n"),
      "x"
    ))
    const [s] = summarize(events)
    // 2^64-1 + 4 saturates at u64::MAX, as upstream's saturating_add.
    expect(s!.input_tokens).toBe(18446744073709551615n)
    expect(s!.chat).toBe(4n)
  })
})

describe("--tree", () => {
  const head = (line: string) => line.slice(0, line.indexOf(" \u2014")).replace(/\[ *\d+ms\] /, "")

  test("children indented under their parent, each level in start order; an unknown parent is a root", () => {
    expect(renderShow(tree, { ...plain, tree: true }).split("\n").map(head)).toEqual([
      "invoke_workflow demo",
      "  step         plan",
      "    chat         plan",
      "    execute_tool tool 'tool__echo'",
      "    chat         plan",
      "step         orphan"
    ])
  })

  test("after the filters an event hangs under its nearest kept ancestor", () => {
    expect(renderShow(tree, { ...plain, tree: true, operation: "chat" }).split("\n").map(head)).toEqual([
      "chat         plan",
      "chat         plan"
    ])
    const noSteps = tree.filter((e) => e.operation !== "step")
    expect(renderTree(tree, noSteps).split("\n").map(head)).toEqual([
      "invoke_workflow demo",
      "  chat         plan",
      "  execute_tool tool 'tool__echo'",
      "  chat         plan"
    ])
  })

  test("a file without span ids is its events in start order; a cycle does not lose events", () => {
    expect(renderShow(upstream, { ...plain, tree: true })).toBe(renderShow(upstream, plain))
    const cycle = Effect.runSync(parseTraceText(
      ["a", "b"].map((id, i) =>
        `{"seq":${i},"operation":"step","label":"${id}","start":"2026-01-01T00:00:0${i}Z","end":"2026-01-01T00:00:05Z","duration_ms":1,"attributes":{},"span_id":"${id}","parent_span_id":"${
          id === "a" ? "b" : "a"
        }"}`
      ).join("\n"),
      "x"
    ))
    expect(renderShow(cycle, { ...plain, tree: true }).split("\n").map(head)).toEqual(["step         a", "  step         b"])
  })
})
