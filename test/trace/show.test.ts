import { describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { parseTraceText } from "../../src/trace/file.ts"
import { EXCERPT_LENGTH } from "../../src/trace/contentLines.ts"
import { renderShow, renderShowFiles, renderTree, summarize } from "../../src/trace/show.ts"
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

const event = (seq: number, operation: string, label: string, attributes: object, extra = "") =>
  `{"seq":${seq},"operation":"${operation}","label":"${label}","start":"2026-01-01T00:00:0${seq}Z",` +
  `"end":"2026-01-01T00:00:0${seq}.004Z","duration_ms":4,"attributes":${JSON.stringify(attributes)}${extra}}`

describe("content (--trace-content)", () => {
  const long = "word ".repeat(40).trim()
  const content = Effect.runSync(parseTraceText(
    [
      event(0, "chat", "plan", {
        "gen_ai.request.model": "m",
        "gen_ai.input.messages": [
          { role: "system", parts: [{ type: "text", content: "Be brief." }] },
          { role: "user", parts: [{ type: "text", content: `first line\nsecond ${long}` }] }
        ],
        "gen_ai.output.messages": [{
          role: "assistant",
          parts: [{ type: "tool_call", id: "c", name: "tool__x", arguments: { a: 1 } }],
          finish_reason: "tool_calls"
        }]
      }),
      event(1, "execute_tool", "tool 'tool__x'", {
        "gen_ai.tool.name": "tool__x",
        "gen_ai.tool.call.arguments": { a: 1 },
        "gen_ai.tool.call.result": "done"
      })
    ].join("\n"),
    "c.jsonl"
  ))

  test("excerpts: one line per attribute under the event, which no longer lists them", () => {
    const lines = renderShow(content, plain).split("\n")
    expect(lines[0]).toEndWith("(gen_ai.request.model=m)")
    const excerpt = `user: first line \u23ce second ${long}`.slice(0, EXCERPT_LENGTH)
    expect(lines[1]).toBe(`           > (2 messages) ${excerpt}\u2026`)
    expect(lines.slice(2)).toEqual([
      "           < assistant: tool_call tool__x {\"a\":1} (tool_calls)",
      "[     4ms] execute_tool tool 'tool__x' \u2014 00:00:01.000  (gen_ai.tool.name=tool__x)",
      "           > arguments: {\"a\":1}",
      "           < result: done"
    ])
  })

  test("--content: every message whole, continuation lines indented", () => {
    expect(renderShow(content, { ...plain, content: true, operation: "chat" }).split("\n").slice(1)).toEqual([
      "           > system: Be brief.",
      "           > user: first line",
      `               second ${long}`,
      "           < assistant: tool_call tool__x {\"a\":1} (tool_calls)"
    ])
  })

  test("--json keeps the content as it is in the file", () => {
    expect(JSON.parse(renderShow(content, { json: true, summary: false }))[1].attributes["gen_ai.tool.call.result"]).toBe(
      "done"
    )
  })
})

describe("several files", () => {
  const failed = Effect.runSync(parseTraceText(
    [
      event(0, "chat", "plan", { "gen_ai.usage.input_tokens": 3, "gen_ai.usage.output_tokens": 1 }),
      event(1, "step", "plan", { "error.type": "LaitError" }),
      event(2, "invoke_workflow", "w", { "error.type": "LaitError" })
    ].join("\n"),
    "f.jsonl"
  ))
  const files = [{ path: "a.jsonl", events: upstream }, { path: "b.jsonl", events: failed }, {
    path: "c.jsonl",
    events: tree
  }]

  test("--summary: the labels across all files, then the totals with the files and runs", () => {
    const lines = renderShow(upstream, { json: false, summary: true }).split("\n")
    const out = renderShowFiles(files, { json: false, summary: true }).split("\n")
    // The failed steps of a flat file are not counted, like the steps of a tree.
    expect(out[0]).toBe("summarize: chat=2 execute_tool=0 compact=1 total=100ms tokens(in=150 out=55)")
    expect(out[0]).toBe(lines[0]!)
    expect(out.filter((l) => l.startsWith("plan: chat=3 execute_tool=0 compact=0 "))).toHaveLength(1)
    expect(out.at(-1)).toMatch(/^3 files, 3 runs \(1 failed\): chat=5 execute_tool=2 compact=1 total=\d+ms tokens\(in=\d+ out=\d+\)$/)
    const json = JSON.parse(renderShowFiles(files, { json: true, summary: true }))
    expect([json.files, json.runs, json.failed_runs, json.total.chat, json.labels.length]).toEqual([3, 3, 1, 5, out.length - 1])
  })

  test("without --summary: each file under a header", () => {
    const out = renderShowFiles(files.slice(0, 2), { json: false, summary: false })
    expect(out).toBe(`==> a.jsonl <==\n${renderShow(upstream, plain)}\n\n==> b.jsonl <==\n${renderShow(failed, plain)}`)
    expect(JSON.parse(renderShowFiles(files, { json: true, summary: false, operation: "compact" }))).toEqual([
      { file: "a.jsonl", events: [expect.objectContaining({ operation: "compact" })] },
      { file: "b.jsonl", events: [] },
      { file: "c.jsonl", events: [] }
    ])
  })
})
