// The files lait keeps under `.lait/` (sessions, checkpoints, cache entries), through the CLI as a
// real process against the fixture OpenAI server: they are private (0600 files in 0700 directories);
// no symlink on the way to one is followed, for reading, appending or deleting; a FIFO in their
// place (or as `.env`) fails at once; a session never grows past what `--session` can read back; and
// what they hold reaches the terminal with its control characters escaped. docs/chat.md#sessions,
// docs/checkpoints.md, docs/cli.md.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as path from "node:path"
import type { RunResult } from "./util.ts"
import { outcome, prepareCli, server, stopServers, workspace } from "./model-harness.ts"

const ws = workspace("e2e-lait-files")
beforeAll(prepareCli, 300_000)
afterEach(stopServers)
afterAll(() => ws.remove())

const LIMIT = 16 * 1024 * 1024
/** What a test waits for before calling a command hung: far beyond any healthy run. */
const HANG = 60_000

let counter = 0
/** A fresh project directory (the current directory of its runs). */
const project = () => {
  const name = `p${++counter}`
  const dir = path.join(ws.dir, name)
  fs.mkdirSync(dir, { recursive: true })
  const at = (rel: string) => path.join(dir, rel)
  return {
    dir,
    at,
    write: (rel: string, text: string | Uint8Array) => {
      fs.mkdirSync(path.dirname(at(rel)), { recursive: true })
      fs.writeFileSync(at(rel), text)
    },
    lait: (args: ReadonlyArray<string>) => ws.lait(args, { cwd: dir }),
    mode: (rel: string) => fs.statSync(at(rel)).mode & 0o777
  }
}

const mkfifo = (file: string) => {
  const r = Bun.spawnSync(["mkfifo", file])
  if (r.exitCode !== 0) throw new Error(`mkfifo ${file} failed`)
}

/** The outcome of a command that must end on its own: a run killed by the HANG guard fails here. */
const finished = (r: RunResult) => {
  expect(r.timedOut).toBe(false)
  return outcome(r)
}

const line = (role: string, content: string) => `${JSON.stringify({ role, content })}\n`

/** A valid session file of exactly `size` bytes: one long question, one short answer. */
const sessionOfSize = (size: number): string => {
  const answer = line("assistant", "ok")
  const empty = line("user", "")
  return empty.replace('""', `"${"a".repeat(size - answer.length - empty.length)}"`) + answer
}

/** A format-2 checkpoint, as `lait run --checkpoint` writes one, with `fields` replaced. */
const checkpoint = (fields: Record<string, unknown>) =>
  JSON.stringify({
    format: 2,
    run_id: "r1",
    workflow_path: "wf.yml",
    initial_input: "x",
    inputs: {},
    top_level_labels: ["a", "b"],
    completed_index: 1,
    counter: 1,
    current_value: "x",
    steps_outputs: { a: "x" },
    status: "failed",
    ...fields
  }, null, 2)

const WORKFLOW = "steps:\n  - id: a\n    jq: .\n  - id: b\n    jq: .\n"

describe("private files", () => {
  test("a session, a checkpoint and a cache entry are 0600 in 0700 directories", async () => {
    const s = server({ script: [{ content: "hi there", repeat: true }] })
    const p = project()
    p.write("wf.yml", WORKFLOW)
    expect((await p.lait(["--model", "m", "--base-url", s.baseUrl, "--session", "s", "hello"])).code).toBe(0)
    expect((await p.lait(["--model", "m", "--base-url", s.baseUrl, "--cache", "cached?"])).code).toBe(0)
    expect((await p.lait(["run", "wf.yml", "x", "--checkpoint"])).code).toBe(0)
    for (const dir of [".lait", ".lait/sessions", ".lait/cache", ".lait/runs"]) expect([dir, p.mode(dir)]).toEqual([dir, 0o700])
    const files = [
      ".lait/sessions/s.jsonl",
      ...fs.readdirSync(p.at(".lait/cache")).map((f) => `.lait/cache/${f}`),
      ...fs.readdirSync(p.at(".lait/runs")).map((f) => `.lait/runs/${f}`)
    ]
    expect(files).toHaveLength(3)
    for (const file of files) expect([file, p.mode(file)]).toEqual([file, 0o600])
  })

  test("a session file an older lait left world-readable is narrowed to 0600 by the next turn", async () => {
    const s = server()
    const p = project()
    p.write(".lait/sessions/old.jsonl", line("user", "q") + line("assistant", "a"))
    fs.chmodSync(p.at(".lait/sessions/old.jsonl"), 0o644)
    expect((await p.lait(["--model", "m", "--base-url", s.baseUrl, "--session", "old", "again"])).code).toBe(0)
    expect(p.mode(".lait/sessions/old.jsonl")).toBe(0o600)
    expect(fs.readFileSync(p.at(".lait/sessions/old.jsonl"), "utf8").split("\n")).toHaveLength(5)
  })
})

describe("no symlink is followed under .lait", () => {
  const chat = (p: ReturnType<typeof project>, baseUrl: string, ...args: Array<string>) =>
    p.lait(["--model", "m", "--base-url", baseUrl, ...args])

  test("a symlinked .lait: --session, sessions show and delete are refused; the target is untouched", async () => {
    const s = server()
    const p = project()
    p.write("elsewhere/sessions/s.jsonl", line("user", "q") + line("assistant", "a"))
    fs.symlinkSync("elsewhere", p.at(".lait"))
    const refusal = (action: string) =>
      `lait: failed to ${action} session file '.lait/sessions/s.jsonl': refusing to follow symbolic link '.lait'\n`
    expect(outcome(await chat(p, s.baseUrl, "--session", "s", "hi"))).toEqual({ code: 1, stdout: "", stderr: refusal("read") })
    expect(outcome(await p.lait(["sessions", "show", "s"]))).toEqual({ code: 1, stdout: "", stderr: refusal("read") })
    expect(outcome(await p.lait(["sessions", "delete", "s"]))).toEqual({ code: 1, stdout: "", stderr: refusal("delete") })
    expect(outcome(await p.lait(["sessions", "list"]))).toEqual({
      code: 1,
      stdout: "",
      stderr: "lait: failed to read session file '.lait/sessions': refusing to follow symbolic link '.lait'\n"
    })
    expect(s.requests).toHaveLength(0)
    expect(fs.readFileSync(p.at("elsewhere/sessions/s.jsonl"), "utf8")).toBe(line("user", "q") + line("assistant", "a"))
  })

  test("sessions delete through a symlinked sessions directory removes nothing", async () => {
    const p = project()
    p.write("outside/s.jsonl", line("user", "q") + line("assistant", "a"))
    fs.mkdirSync(p.at(".lait"))
    fs.symlinkSync("../outside", p.at(".lait/sessions"))
    const r = await p.lait(["sessions", "delete", "s"])
    expect(r.code).toBe(1)
    expect(r.stderr).toBe(
      "lait: failed to delete session file '.lait/sessions/s.jsonl': refusing to follow symbolic link '.lait/sessions'\n"
    )
    expect(fs.existsSync(p.at("outside/s.jsonl"))).toBe(true)
  })

  test("sessions delete of a session file that is a link to a file outside removes neither", async () => {
    const p = project()
    p.write("outside.jsonl", line("user", "q") + line("assistant", "a"))
    fs.mkdirSync(p.at(".lait/sessions"), { recursive: true })
    fs.symlinkSync("../../outside.jsonl", p.at(".lait/sessions/s.jsonl"))
    expect(outcome(await p.lait(["sessions", "delete", "s"]))).toEqual({
      code: 1,
      stdout: "",
      stderr: "lait: failed to delete session file '.lait/sessions/s.jsonl': " +
        "refusing to follow symbolic link '.lait/sessions/s.jsonl'\n"
    })
    expect(fs.readFileSync(p.at("outside.jsonl"), "utf8")).toBe(line("user", "q") + line("assistant", "a"))
    expect(fs.lstatSync(p.at(".lait/sessions/s.jsonl")).isSymbolicLink()).toBe(true)
  })

  test("a dangling symlink as the session file is refused, and its target is never created", async () => {
    const s = server()
    const p = project()
    fs.mkdirSync(p.at(".lait/sessions"), { recursive: true })
    fs.symlinkSync("../../victim.txt", p.at(".lait/sessions/s.jsonl"))
    expect(outcome(await chat(p, s.baseUrl, "--session", "s", "hi"))).toEqual({
      code: 1,
      stdout: "",
      stderr: "lait: failed to read session file '.lait/sessions/s.jsonl': " +
        "refusing to follow symbolic link '.lait/sessions/s.jsonl'\n"
    })
    expect(s.requests).toHaveLength(0)
    expect(fs.existsSync(p.at("victim.txt"))).toBe(false)
    // Listing warns about it and goes on.
    p.write(".lait/sessions/good.jsonl", line("user", "q") + line("assistant", "a"))
    expect(outcome(await p.lait(["sessions", "list"]))).toEqual({
      code: 0,
      stdout: "good  (1 turns)\n",
      stderr: "warning: failed to read session file '.lait/sessions/s.jsonl': " +
        "refusing to follow symbolic link '.lait/sessions/s.jsonl' (skipped)\n"
    })
  })

  test("a symlinked .lait/cache fails a --cache request before it is sent; the target stays empty", async () => {
    const s = server()
    const p = project()
    fs.mkdirSync(p.at("outside-cache"))
    fs.mkdirSync(p.at(".lait"))
    fs.symlinkSync("../outside-cache", p.at(".lait/cache"))
    const r = await chat(p, s.baseUrl, "--cache", "hi")
    expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 1, stdout: "" })
    expect(r.stderr).toMatch(
      new RegExp(`^lait: failed to read '[^']+\\.json': refusing to follow symbolic link '${p.dir}/\\.lait/cache'\\n$`)
    )
    expect(s.requests).toHaveLength(0)
    expect(fs.readdirSync(p.at("outside-cache"))).toEqual([])
  })

  test("runs: a symlinked .lait/runs, .lait or checkpoint file is refused by run, resume, list and show", async () => {
    const p = project()
    p.write("wf.yml", WORKFLOW)
    p.write("outside/runs/r1.json", checkpoint({}))
    fs.mkdirSync(p.at(".lait"))
    fs.symlinkSync("../outside/runs", p.at(".lait/runs"))
    const viaDir = { code: 1, stdout: "", stderr: "lait: refusing to follow symbolic link '.lait/runs'\n" }
    // Refused before the first step runs: no `[1] a` progress line.
    expect(outcome(await p.lait(["run", "wf.yml", "x", "--checkpoint"]))).toEqual(viaDir)
    expect(outcome(await p.lait(["run", "wf.yml", "--resume", "r1"]))).toEqual(viaDir)
    expect(outcome(await p.lait(["runs", "list"]))).toEqual(viaDir)
    expect(outcome(await p.lait(["runs", "show", "r1"]))).toEqual(viaDir)
    expect(fs.readdirSync(p.at("outside/runs"))).toEqual(["r1.json"])

    fs.rmSync(p.at(".lait"), { recursive: true })
    fs.symlinkSync("outside", p.at(".lait"))
    expect(outcome(await p.lait(["runs", "list"]))).toEqual({ ...viaDir, stderr: viaDir.stderr.replace("/runs", "") })

    fs.rmSync(p.at(".lait"))
    fs.mkdirSync(p.at(".lait/runs"), { recursive: true })
    fs.symlinkSync("../../outside/runs/r1.json", p.at(".lait/runs/r1.json"))
    const viaFile = "refusing to follow symbolic link '.lait/runs/r1.json'"
    expect(outcome(await p.lait(["runs", "show", "r1"]))).toEqual({ code: 1, stdout: "", stderr: `lait: ${viaFile}\n` })
    expect(outcome(await p.lait(["runs", "list"]))).toEqual({
      code: 0,
      stdout: "no checkpointed runs saved yet; start one with `lait run <FILE> <PROMPT> --checkpoint`\n",
      stderr: `warning: ${viaFile} (skipped)\n`
    })
  })

  test("a resume lock that is a symbolic link is refused; its target is neither read nor removed", async () => {
    const p = project()
    p.write("wf.yml", WORKFLOW)
    p.write(".lait/runs/r1.json", checkpoint({}))
    p.write("outside.lock", "1\n")
    fs.symlinkSync("../../outside.lock", p.at(".lait/runs/r1.lock"))
    expect(outcome(await p.lait(["run", "wf.yml", "--resume", "r1"]))).toEqual({
      code: 1,
      stdout: "",
      stderr: "lait: refusing to follow symbolic link '.lait/runs/r1.lock'\n"
    })
    expect(fs.readFileSync(p.at("outside.lock"), "utf8")).toBe("1\n")
    expect(fs.lstatSync(p.at(".lait/runs/r1.lock")).isSymbolicLink()).toBe(true)
  })
})

describe("a FIFO in place of a file fails at once", () => {
  test(".env: config show", async () => {
    const p = project()
    mkfifo(p.at(".env"))
    expect(finished(await ws.lait(["config", "show"], { cwd: p.dir }))).toEqual({
      code: 1,
      stdout: "",
      stderr: `lait: failed to read '${p.dir}/.env': it is a FIFO with no writer\n`
    })
  }, HANG + 10_000)

  test("a run file: runs show fails, runs list warns and lists the others", async () => {
    const p = project()
    p.write(".lait/runs/good.json", checkpoint({ run_id: "good" }))
    mkfifo(p.at(".lait/runs/r1.json"))
    const fifo = "failed to read '.lait/runs/r1.json': it is a FIFO with no writer"
    expect(finished(await p.lait(["runs", "show", "r1"]))).toEqual({ code: 1, stdout: "", stderr: `lait: ${fifo}\n` })
    expect(finished(await p.lait(["runs", "list"]))).toEqual({
      code: 0,
      stdout: "good  (failed, step 1/2, wf.yml)\n",
      stderr: `warning: ${fifo} (skipped)\n`
    })
  }, 2 * HANG + 10_000)

  test("a session file: sessions show and --session fail, sessions list warns and lists the others", async () => {
    const s = server()
    const p = project()
    p.write(".lait/sessions/good.jsonl", line("user", "q") + line("assistant", "a"))
    mkfifo(p.at(".lait/sessions/f.jsonl"))
    const fifo = "failed to read session file '.lait/sessions/f.jsonl': it is a FIFO with no writer"
    expect(finished(await p.lait(["sessions", "show", "f"]))).toEqual({ code: 1, stdout: "", stderr: `lait: ${fifo}\n` })
    expect(finished(await p.lait(["--model", "m", "--base-url", s.baseUrl, "--session", "f", "hi"]))).toEqual({
      code: 1,
      stdout: "",
      stderr: `lait: ${fifo}\n`
    })
    expect(s.requests).toHaveLength(0)
    expect(finished(await p.lait(["sessions", "list"]))).toEqual({
      code: 0,
      stdout: "good  (1 turns)\n",
      stderr: `warning: ${fifo} (skipped)\n`
    })
  }, 3 * HANG + 10_000)
})

describe("a session stays readable", () => {
  const full = (name: string) =>
    `lait: session file '.lait/sessions/${name}.jsonl' would exceed the read limit of ${LIMIT} bytes, ` +
    `so --session could not read it back; continue in a new session, or delete this one with \`lait sessions delete ${name}\`\n`

  test("a question that cannot fit is refused before the request; the file is unchanged", async () => {
    const s = server()
    const p = project()
    const text = sessionOfSize(LIMIT - 40)
    p.write(".lait/sessions/big.jsonl", text)
    const r = await p.lait(["--model", "m", "--base-url", s.baseUrl, "--session", "big", "hello"])
    expect(outcome(r)).toEqual({ code: 1, stdout: "", stderr: full("big") })
    expect(s.requests).toHaveLength(0)
    expect(fs.statSync(p.at(".lait/sessions/big.jsonl")).size).toBe(LIMIT - 40)
  })

  test("an answer that would push it past the limit is printed but not stored, and --session still works", async () => {
    const s = server({ script: [{ content: "z".repeat(300) }, { content: "short" }] })
    const p = project()
    p.write(".lait/sessions/big.jsonl", sessionOfSize(LIMIT - 200))
    const r = await p.lait(["--model", "m", "--base-url", s.baseUrl, "--session", "big", "hi"])
    expect(outcome(r)).toEqual({ code: 1, stdout: `${"z".repeat(300)}\n`, stderr: full("big") })
    expect(fs.statSync(p.at(".lait/sessions/big.jsonl")).size).toBe(LIMIT - 200)
    const next = await p.lait(["--model", "m", "--base-url", s.baseUrl, "--session", "big", "hi"])
    expect(outcome(next)).toEqual({ code: 0, stdout: "short\n", stderr: "" })
    expect(fs.statSync(p.at(".lait/sessions/big.jsonl")).size).toBeLessThanOrEqual(LIMIT)
  })

  test("sessions list warns about a session over the limit and lists the others", async () => {
    const p = project()
    p.write(".lait/sessions/huge.jsonl", sessionOfSize(LIMIT + 1))
    p.write(".lait/sessions/small.jsonl", line("user", "q") + line("assistant", "a"))
    expect(outcome(await p.lait(["sessions", "list"]))).toEqual({
      code: 0,
      stdout: "small  (1 turns)\n",
      stderr: "warning: failed to read session file '.lait/sessions/huge.jsonl': " +
        `file contents exceed the configured read limit of ${LIMIT} bytes (skipped)\n`
    })
  })
})

describe("control characters from files reach the terminal escaped", () => {
  test("sessions list and show: ESC, C1 and CR escaped; newline and tab kept in a message", async () => {
    const p = project()
    p.write(".lait/sessions/s.jsonl", line("user", "\u001b]0;owned\u0007hi") + line("assistant", "a\u009b2J\n\tb\rc"))
    p.write(".lait/sessions/x\u001b[2J.jsonl", "")
    expect(outcome(await p.lait(["sessions", "show", "s"]))).toEqual({
      code: 0,
      stdout: "user: \\u001b]0;owned\\u0007hi\nassistant: a\\u009b2J\n\tb\\rc\n",
      stderr: ""
    })
    expect(outcome(await p.lait(["sessions", "list"]))).toEqual({
      code: 0,
      stdout: "s  (1 turns)\nx\\u001b[2J  (0 turns)\n",
      stderr: ""
    })
  })

  test("runs list and show, a skipped file's name, and the resume mismatch error", async () => {
    const p = project()
    p.write("wf.yml", WORKFLOW)
    p.write(
      ".lait/runs/r1.json",
      checkpoint({ workflow_path: "other\u001b[2J.yml", current_value: "one\ntwo\u001b[31m", inputs: { k: "\u009b" } })
    )
    p.write(".lait/runs/\u001b[31m.json", "{")
    const list = await p.lait(["runs", "list"])
    expect(list.code).toBe(0)
    expect(list.stdout).toBe("r1  (failed, step 1/2, other\\u001b[2J.yml)\n")
    expect(list.stderr).toStartWith("warning: failed to parse checkpoint file '.lait/runs/\\u001b[31m.json'")
    expect(list.stderr).not.toContain("\u001b")
    expect(outcome(await p.lait(["runs", "show", "r1"]))).toEqual({
      code: 0,
      stdout: "run_id: r1\nworkflow: other\\u001b[2J.yml\nstatus: failed\ncompleted: 1/2 top-level step(s)\n" +
        "initial input: x\ncurrent value: one\ntwo\\u001b[31m\ninputs: {\"k\":\"\\u009b\"}\n",
      stderr: ""
    })
    expect(outcome(await p.lait(["run", "wf.yml", "--resume", "r1"]))).toEqual({
      code: 1,
      stdout: "",
      stderr: "lait: run 'r1' was checkpointed against workflow 'other\\u001b[2J.yml', not 'wf.yml'; " +
        "pass the same FILE to resume it\n"
    })
  })

  test("eval: a case name in the text report", async () => {
    const p = project()
    p.write("plain.yml", "steps:\n  - jq: .\n")
    p.write(
      "ev.yml",
      "target: {workflow: plain.yml}\ncases:\n  - name: \"evil\\e]0;owned\\a\\e[2J\"\n    input: x\n" +
        "    assert:\n      - type: contains\n        value: x\n"
    )
    const r = await p.lait(["eval", "ev.yml"])
    expect(r.code).toBe(0)
    expect(r.stdout).toBe("evil\\u001b]0;owned\\u0007\\u001b[2J: 1/1 (100%) PASS\n1 of 1 case(s) fully passed\n")
  })

  test("cassettes ls: a model id and a C1 control in the first message", async () => {
    const s = server()
    const p = project()
    p.write(
      `c/${"b".repeat(64)}.json`,
      JSON.stringify({
        recorded_at: "2020-01-01T00:00:00Z",
        request: { base_url: s.baseUrl, model_id: "m\u001b[8m", messages: [{ role: "user", content: "hi\u009b2J" }] },
        response: {}
      })
    )
    expect(outcome(await p.lait(["cassettes", "ls", "c"]))).toEqual({
      code: 0,
      stdout: `${"b".repeat(12)}  2020-01-01T00:00:00Z  m\\u001b[8m  "hi\\u009b2J"\n`,
      stderr: ""
    })
  })
})
