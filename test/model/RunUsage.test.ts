import { expect, test } from "bun:test"
import { Effect } from "effect"
import { formatUsage, makeRunUsage } from "../../src/model/RunUsage.ts"

const summary = (records: Array<Parameters<ReturnType<typeof makeRunUsage>["record"]>[0]>) =>
  Effect.runSync(Effect.gen(function*() {
    const u = makeRunUsage()
    for (const r of records) yield* u.record(r)
    return formatUsage(yield* u.entries, yield* u.total)
  }))

test("--show-usage formats: none, one label, several labels with requests and cost", () => {
  expect(summary([])).toBe("usage: (the server reported no usage)")
  expect(summary([{ label: "a", prompt: 10, completion: 5, total: 15 }])).toBe("usage: prompt=10 completion=5 total=15")
  const pricing = { input_per_1m: 1, output_per_1m: 2 }
  expect(summary([
    { label: "summarize", prompt: 1000, completion: 500, total: 1500, pricing },
    { label: "summarize", prompt: 1000, completion: 500, total: 1500, pricing },
    { label: "llm_judge", prompt: 10, completion: 2, total: 12 }
  ])).toBe([
    "usage:",
    "  summarize: prompt=2000 completion=1000 total=3000 (2 requests) ($0.0040)",
    "  llm_judge: prompt=10 completion=2 total=12",
    "  total: prompt=2010 completion=1002 total=3012 (3 requests) ($0.0040)"
  ].join("\n"))
})

const withCacheHits = (hits: number, records: Array<Parameters<ReturnType<typeof makeRunUsage>["record"]>[0]>) =>
  Effect.runSync(Effect.gen(function*() {
    const u = makeRunUsage()
    for (const r of records) yield* u.record(r)
    for (let i = 0; i < hits; i++) yield* u.recordCacheHit
    return formatUsage(yield* u.entries, yield* u.total)
  }))

test("requests answered from the cache are counted, not reported as a silent server", () => {
  expect(withCacheHits(3, [])).toBe("usage: 0 tokens (3 requests answered from the cache)")
  expect(withCacheHits(1, [])).toBe("usage: 0 tokens (1 request answered from the cache)")
  expect(withCacheHits(2, [{ label: "a", prompt: 10, completion: 5, total: 15 }])).toBe(
    "usage: prompt=10 completion=5 total=15; 2 requests answered from the cache"
  )
  expect(withCacheHits(1, [
    { label: "a", prompt: 10, completion: 5, total: 15 },
    { label: "b", prompt: 1, completion: 1, total: 2 }
  ])).toBe([
    "usage:",
    "  a: prompt=10 completion=5 total=15",
    "  b: prompt=1 completion=1 total=2",
    "  total: prompt=11 completion=6 total=17 (2 requests); 1 request answered from the cache"
  ].join("\n"))
})
