// Usage counts a live server reports are checked: values that are not non-negative integers count as
// absent (the answer is still used), each named by a -v note; without -v nothing extra is printed.
import { afterAll, afterEach, beforeAll, expect, test } from "bun:test"
import { modelsYaml, outcome, prepareCli, server, stopServers, workspace } from "./model-harness.ts"

const ws = workspace("e2e-model-usage")
beforeAll(prepareCli, 300_000)
afterEach(stopServers)
afterAll(() => ws.remove())

const answer = (usage: unknown) => ({
  body: { choices: [{ message: { role: "assistant", content: "hello" }, finish_reason: "stop" }], usage },
  repeat: true
})

const workflow = (baseUrl: string) =>
  `${modelsYaml({ m: [{ baseUrl, modelId: "fixture-model" }] })}\ndefault:\n  model: m\nsteps:\n  - id: ask\n    prompt: 'Say {{ input }}'\n`

test("bad counts are absent: the valid one is kept, each bad one is a -v note", async () => {
  const s = server({ script: [answer({ prompt_tokens: 7, completion_tokens: -3, total_tokens: "10" })] })
  const file = ws.write("partly.yml", workflow(s.baseUrl))
  const quiet = await ws.lait(["run", file, "hi", "--json"])
  expect(outcome(quiet)).toEqual({
    code: 0,
    stdout: '{"content":"hello","reasoning":null,"usage":{"prompt_tokens":7,"completion_tokens":0,"total_tokens":7},"finish_reason":"stop"}\n',
    stderr: "[1] ask\n"
  })
  const verbose = await ws.lait(["run", file, "hi", "--json", "-v"])
  expect(verbose.code).toBe(0)
  const notes = verbose.stderr.split("\n").filter((l) => l.includes("treated as absent"))
  expect(notes).toEqual([
    "lait: [debug] ask: the reported usage.completion_tokens -3 is not a non-negative integer; treated as absent",
    "lait: [debug] ask: the reported usage.total_tokens \"10\" is not a non-negative integer; treated as absent"
  ])
})

test("no valid count at all is no usage", async () => {
  const s = server({ script: [answer({ prompt_tokens: 2 ** 60, completion_tokens: 0.5, total_tokens: [] })] })
  const file = ws.write("none.yml", workflow(s.baseUrl))
  const r = await ws.lait(["run", file, "hi", "--json"])
  expect(outcome(r)).toEqual({ code: 0, stdout: '{"content":"hello","reasoning":null,"usage":null,"finish_reason":"stop"}\n', stderr: "[1] ask\n" })
})
