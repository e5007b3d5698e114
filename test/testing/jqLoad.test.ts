// jq-wasm (a large wasm module) is compiled only for an assertion list that needs it: an eval of
// `contains` assertions, or of jq filters the native evaluator runs, must not pay its compile time
// and memory in its first run.
import { expect, test } from "bun:test"
import * as path from "node:path"

const probe = path.join(import.meta.dir, "../fixtures/jq-load-probe.ts")

const compiledFor = (assertions: unknown): number => {
  const r = Bun.spawnSync([process.execPath, probe, JSON.stringify(assertions)], { stderr: "pipe" })
  expect(r.stderr.toString()).toBe("")
  return Number(r.stdout.toString().trim())
}

test("a list without jq, or with native jq filters only, compiles no wasm; other filters do", () => {
  expect(compiledFor([{ type: "contains", value: "a" }, { type: "equals", value: "x" }, { type: "usage" }])).toBe(0)
  expect(compiledFor([{ type: "jq", expr: ".a == 1" }])).toBe(0)
  expect(compiledFor([{ type: "jq", expr: ".a | tostring | test(\"^[0-9]+$\")" }])).toBe(1)
  expect(compiledFor([{ type: "tool_called", name: "t", args_jq: ".x" }])).toBe(0)
  expect(compiledFor([{ type: "step_output", id: "s", assert: [{ type: "jq", expr: "." }] }])).toBe(0)
  // natively parsed, but jq spells 0.00001 its own way: evaluated by jq-wasm
  expect(compiledFor([{ type: "jq", expr: "(.a / 100000 | tostring) == \"1e-05\"" }])).toBe(1)
}, 30_000)
