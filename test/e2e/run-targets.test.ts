// `lait run` finds out where its answer and its trace go before it spends anything: an `-o` or
// `--trace-file` target that can never be written fails before the first model request (the fixture
// server's request log stays empty). When a target breaks during the run anyway, the answer already
// paid for is still delivered, and the trace is kept when only the answer's target broke.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as path from "node:path"
import { outcome, prepareCli, server, stopServers, workspace } from "./model-harness.ts"

const ws = workspace("e2e-run-targets")
beforeAll(prepareCli, 300_000)
afterEach(stopServers)
afterAll(() => ws.remove())

const PROMPT_WORKFLOW = "steps:\n  - id: ask\n    prompt: 'Say hi to {{ input }}'\n"

/** A fresh project whose model answers `hello`; returns its directory and the server. */
const project = (name: string, workflow = PROMPT_WORKFLOW) => {
  const s = server({ script: [{ content: "hello", repeat: true, usage: { prompt_tokens: 5, completion_tokens: 1 } }] })
  ws.write(`${name}/lait.config.yml`, `base_url: '${s.baseUrl}'\ndefault:\n  model: fixture-model\n`)
  ws.write(`${name}/wf.yml`, workflow)
  ws.write(`${name}/plain`, "a file, not a directory\n")
  fs.mkdirSync(path.join(ws.dir, name, "adir"), { recursive: true })
  return { cwd: path.join(ws.dir, name), s }
}

describe("targets that can never be written fail before any model request", () => {
  test.each([
    [["-o", "missing/out.txt"], "failed to write the response to 'missing/out.txt': No such file or directory (os error 2)"],
    [["-o", "adir"], "failed to write the response to 'adir': Is a directory (os error 21)"],
    [["-o", "plain/out.txt"], "failed to write the response to 'plain/out.txt': Not a directory (os error 20)"],
    [["--trace-file", "adir"], "failed to write trace file 'adir': is a directory"],
    [["--trace-file", "plain/t.jsonl"], "failed to write trace file 'plain/t.jsonl': a component of the path is not a directory"],
    [["-o", "out.txt", "--trace-file", "adir"], "failed to write trace file 'adir': is a directory"]
  ])("%p", async (flags, message) => {
    const { cwd, s } = project(`early-${flags.join("_").replace(/[^a-z]/g, "")}`)
    const r = await ws.lait(["run", "wf.yml", "you", ...flags], { cwd })
    expect(outcome(r)).toEqual({ code: 1, stdout: "", stderr: `lait: ${message}\n` })
    expect(s.requests).toEqual([])
    expect(fs.existsSync(path.join(cwd, "out.txt"))).toBe(false)
  })

  test("a trace file's missing parent directories are not a problem: they are made after the run", async () => {
    const { cwd, s } = project("late-dirs")
    const r = await ws.lait(["run", "wf.yml", "you", "--trace-file", "new/dir/t.jsonl"], { cwd })
    expect(r.code).toBe(0)
    expect(s.requests).toHaveLength(1)
    expect(fs.readFileSync(path.join(cwd, "new/dir/t.jsonl"), "utf8").split("\n")).toHaveLength(2)
  })
})

describe("a target that breaks during the run never costs the answer", () => {
  // The run step turns the given paths into directories after the checks, before the model call.
  const breaking = (...paths: Array<string>) =>
    `steps:\n  - run: [mkdir, -p, ${paths.join(", ")}]\n  - id: ask\n    prompt: 'Say hi'\n`

  test("the trace cannot be written: the answer is printed first, then the error (exit 1)", async () => {
    const { cwd, s } = project("late-trace", breaking("t.jsonl"))
    const r = await ws.lait(["run", "wf.yml", "you", "--trace-file", "t.jsonl", "--show-usage"], { cwd })
    expect(r.code).toBe(1)
    expect(r.stdout).toBe("hello\n")
    expect(s.requests).toHaveLength(1)
    expect(r.stderr.trimEnd().split("\n").slice(-2)).toEqual([
      "usage: prompt=5 completion=1 total=6",
      "lait: failed to write trace file 't.jsonl': is a directory"
    ])
  })

  test("the trace cannot be written with -o: the answer is in the file", async () => {
    const { cwd } = project("late-trace-o", breaking("t.jsonl"))
    const r = await ws.lait(["run", "wf.yml", "you", "--trace-file", "t.jsonl", "-o", "answer.txt"], { cwd })
    expect(r.code).toBe(1)
    expect(fs.readFileSync(path.join(cwd, "answer.txt"), "utf8")).toBe("hello\n")
    expect(r.stderr.trimEnd().split("\n").at(-1)).toBe("lait: failed to write trace file 't.jsonl': is a directory")
  })

  test("-o cannot be written: the trace of the paid-for call is still written; -o's error is the one reported", async () => {
    const { cwd } = project("late-output", breaking("answer.txt"))
    const r = await ws.lait(["run", "wf.yml", "you", "--trace-file", "t.jsonl", "-o", "answer.txt"], { cwd })
    expect(r.code).toBe(1)
    expect(r.stderr).toContain("note: trace written to 't.jsonl' (1 event)\n")
    expect(r.stderr.trimEnd().split("\n").at(-1)).toBe("lait: failed to write the response to 'answer.txt': Is a directory (os error 21)")
    expect(JSON.parse(fs.readFileSync(path.join(cwd, "t.jsonl"), "utf8")).operation).toBe("chat")

    const both = project("late-both", breaking("answer.txt", "t.jsonl"))
    const r2 = await ws.lait(["run", "wf.yml", "you", "--trace-file", "t.jsonl", "-o", "answer.txt"], { cwd: both.cwd })
    expect(r2.code).toBe(1)
    expect(r2.stderr.trimEnd().split("\n").slice(-2)).toEqual([
      "warning: failed to write trace file 't.jsonl': is a directory",
      "lait: failed to write the response to 'answer.txt': Is a directory (os error 21)"
    ])
  })
})
