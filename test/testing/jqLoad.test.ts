// jq (a large wasm module) is compiled only for an assertion list that uses it: an eval of
// `contains` assertions must not pay its compile time and memory in its first run.
import { expect, test } from "bun:test"
import * as path from "node:path"

const probe = path.join(import.meta.dir, "../fixtures/jq-load-probe.ts")

const compiledFor = (assertions: unknown): number => {
  const r = Bun.spawnSync([process.execPath, probe, JSON.stringify(assertions)], { stderr: "pipe" })
  expect(r.stderr.toString()).toBe("")
  return Number(r.stdout.toString().trim())
}

test("a list without jq compiles no wasm; jq, tool_called args_jq and nested jq do", () => {
  expect(compiledFor([{ type: "contains", value: "a" }, { type: "equals", value: "x" }, { type: "usage" }])).toBe(0)
  expect(compiledFor([{ type: "jq", expr: ".a == 1" }])).toBe(1)
  expect(compiledFor([{ type: "tool_called", name: "t", args_jq: ".x" }])).toBe(1)
  expect(compiledFor([{ type: "step_output", id: "s", assert: [{ type: "jq", expr: "." }] }])).toBe(1)
}, 30_000)
