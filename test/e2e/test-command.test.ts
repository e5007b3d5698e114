// `lait test` against the recorded fixture suite (test/fixtures/testing, copied into a temporary
// directory), the example suite (examples/tests), and discovery edge cases, run in this process
// (docs/architecture.md#testing); the README's own `dist/lait test` line and Ctrl-C run the compiled
// binary. A fixture OpenAI server listens where every recorded workflow points (127.0.0.1:1234) for the
// whole file and must never see a request: replay never falls back to the network.
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as net from "node:net"
import * as path from "node:path"
import { type OpenAiServer, startOpenAiServer } from "../fixtures/openai-server.ts"
import { lockPort1234 } from "../fixtures/port1234.ts"
import { parseXml, validateJunit } from "../testing/junit.ts"
import { ensureBinary, makeTempDir, repoRoot, type RunResult, runCli } from "./util.ts"

const fixtures = path.join(repoRoot, "test/fixtures/testing")
const work = fs.realpathSync(makeTempDir("e2e-test-command"))
const home = path.join(work, "home")
let sentinel: OpenAiServer | undefined
let releasePort: (() => void) | undefined

const env: Record<string, string | undefined> = {
  ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(OPENAI_|LAIT_)/.test(k))),
  NO_COLOR: "1",
  HOME: home,
  XDG_CONFIG_HOME: path.join(home, ".config")
}

/** A fresh copy of the fixture suite (workflows, cassettes, lait.config.yml, suite/). */
const copyFixtures = (name: string): string => {
  const dir = path.join(work, name)
  fs.cpSync(fixtures, dir, { recursive: true })
  return dir
}

const lait = (
  args: ReadonlyArray<string>,
  cwd: string,
  where: { binary?: boolean } = {}
): Promise<RunResult> => runCli(["--no-env", ...args], { cwd, env, ...where, timeoutMs: 60_000 })

beforeAll(async () => {
  fs.mkdirSync(home, { recursive: true })
  await ensureBinary()
  releasePort = await lockPort1234()
  sentinel = startOpenAiServer({ port: 1234 })
}, 600_000)

afterAll(async () => {
  await sentinel?.stop()
  releasePort?.()
  fs.rmSync(work, { recursive: true, force: true })
})

const FAIL_TEXT = (wf: (name: string) => string) => [
  "suite/fail/bad-definition.yml: ERROR",
  "  failed to parse test definition 'suite/fail/bad-definition.yml': unknown key 'vars'; test definitions accept: workflow, exec, input_mode, env, timeout, http, output_jq, input, inputs, replay, replay_tools, assert, workdir, fixtures (line 3)",
  "suite/fail/cost.yml: FAIL",
  "  assertion 1: cost $0.0004 exceeded max_cost_usd $0.0001",
  "suite/fail/invalid-input.yml: ERROR",
  "  input is missing required field(s): body",
  "suite/fail/messages.yml: FAIL",
  "  assertion 1: expected output to equal \"Summary\", got \"Summary: lait tests workflows offline by replaying recorded answers.\"",
  "  assertion 2: expected output to contain \"結論\", got \"Summary: lait tests workflows offline by replaying recorded answers.\"",
  "  assertion 3: jq expression `contains(\"never\")` was false for output \"Summary: lait tests workflows offline by replaying recorded answers.\"",
  "  assertion 4: jq expression `.[]` failed: jq condition \".[]\" failed: Cannot iterate over string (\"Summary: lait tests work...\")",
  "  assertion 5: llm_judge assertions are not supported here (no judge model available in this context; use `lait eval`)",
  "  assertion 6: expected tool 'tool__word_count' to be called at least 1 time(s), was called 0 time(s)",
  "  assertion 7: completion_tokens 11 exceeded max_completion_tokens 10",
  "  assertion 8: step 'summary': assertion 1: expected output to equal \"say \\\"hi\\\"\", got \"lait tests workflows offline by replaying recorded answers.\"; assertion 3: prompt_tokens 31 exceeded max_prompt_tokens 30",
  "  assertion 9: step 'step-3' produced no output (it may not have run, or the id doesn't exist)",
  "suite/fail/missing-workflow.yml: ERROR",
  `  failed to load workflow '${wf("no-such-workflow.yml")}': failed to read '${wf("no-such-workflow.yml")}': no such file or directory`
]

describe("the fixture suite", () => {
  test("text: PASS/FAIL per file in path order, every failure message, exit 1", async () => {
    const dir = copyFixtures("text")
    const r = await lait(["test", "suite"], dir)
    expect(r.code).toBe(1)
    const wf = (name: string) => `suite/fail/../../workflows/${name}`
    const lines = r.stdout.split("\n")
    expect(lines.slice(0, FAIL_TEXT(wf).length)).toEqual(FAIL_TEXT(wf))
    const rest = lines.slice(FAIL_TEXT(wf).length)
    expect(rest[0]).toBe("suite/fail/replay-miss.yml: ERROR")
    expect(rest[1]).toStartWith(
      `  workflow '${wf("summarize.yml")}': no recorded cassette for this request (model 'fixture-model') at '`
    )
    expect(rest[1]).toContain(
      "differs at messages[0].content (recorded \"…e in one sentence (en): lait replays recorded mo…\", requested \"…e in one sentence (en): a text nobody recorded a…\")"
    )
    expect(rest.slice(2)).toEqual([
      "suite/fail/tools.yml: FAIL",
      "  assertion 1: expected tool 'tool__word_count' to be called at least 2 time(s), was called 1 time(s)",
      "  assertion 2: expected tool 'tool__word_count' to be called at most 0 time(s), was called 1 time(s)",
      // The arguments the tool was called with, as JSON under the message.
      "  assertion 3: no call to tool 'tool__word_count' had arguments satisfying `.text == \"something else\"`; " +
      "the arguments of its 1 call(s):",
      "    {\"text\":\"alpha beta gamma\"}",
      "  assertion 4: expected tool 'mcp__files__read_file' to be called at least 1 time(s), was called 0 time(s)",
      "suite/fail/unknown-input.yml: ERROR",
      "  unknown input 'tone'; the workflow declares: lang",
      "suite/pass/count-one.yml: PASS",
      "suite/pass/count-three.yml: PASS",
      "suite/pass/summarize-en.yml: PASS",
      "suite/pass/summarize-ja.yml: PASS",
      "suite/pass/ticket-billing.yml: PASS",
      "5 passed, 3 failed, 5 errors, 13 total",
      ""
    ])
    // stdout holds results only; the one line on stderr is the summary error.
    expect(r.stderr).toBe("lait: 3 of 13 test file(s) failed and 5 could not run\n")
  }, 60_000)

  test("all passing: exit 0 and nothing on stderr", async () => {
    const dir = copyFixtures("pass")
    const r = await lait(["test", "suite/pass"], dir)
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: "" })
    expect(r.stdout.split("\n").at(-2)).toBe("5 passed, 0 failed, 5 total")
  }, 60_000)

  test("json: one compact line of {file, status, failures}", async () => {
    const dir = copyFixtures("json")
    const r = await lait(["test", "--format", "json", "suite"], dir)
    expect(r.code).toBe(1)
    expect(r.stdout.endsWith("\n")).toBe(true)
    expect(r.stdout.trimEnd()).not.toContain("\n")
    const report = JSON.parse(r.stdout) as Array<{ file: string; status: string; failures: Array<string> }>
    expect(report.map((e) => [e.file, e.status, e.failures.length])).toEqual([
      ["suite/fail/bad-definition.yml", "error", 1],
      ["suite/fail/cost.yml", "fail", 1],
      ["suite/fail/invalid-input.yml", "error", 1],
      ["suite/fail/messages.yml", "fail", 9],
      ["suite/fail/missing-workflow.yml", "error", 1],
      ["suite/fail/replay-miss.yml", "error", 1],
      ["suite/fail/tools.yml", "fail", 4],
      ["suite/fail/unknown-input.yml", "error", 1],
      ["suite/pass/count-one.yml", "pass", 0],
      ["suite/pass/count-three.yml", "pass", 0],
      ["suite/pass/summarize-en.yml", "pass", 0],
      ["suite/pass/summarize-ja.yml", "pass", 0],
      ["suite/pass/ticket-billing.yml", "pass", 0]
    ])
    expect(report[1]).toEqual({
      file: "suite/fail/cost.yml",
      status: "fail",
      failures: ["assertion 1: cost $0.0004 exceeded max_cost_usd $0.0001"]
    })
    expect(r.stderr).toBe("lait: 3 of 13 test file(s) failed and 5 could not run\n")
  }, 60_000)

  test("junit: a valid JUnit report with one testcase per file", async () => {
    const dir = copyFixtures("junit")
    const r = await lait(["test", "--format", "junit", "suite"], dir)
    expect(r.code).toBe(1)
    const root = parseXml(r.stdout.trimEnd())
    validateJunit(root)
    const suite = root.children[0]!
    expect(suite.attributes).toMatchObject({ name: "lait test", tests: "13", failures: "3", errors: "5" })
    const cases = suite.children
    expect(cases.map((c) => c.attributes["name"])).toEqual(JSON.parse((await lait(["test", "--format", "json", "suite"], dir)).stdout).map((e: { file: string }) => e.file))
    const messages = cases.find((c) => c.attributes["name"] === "suite/fail/messages.yml")!
    expect(messages.children.map((f) => [f.name, f.attributes["type"], f.text.split("\n").length])).toEqual([["failure", "assertion", 9]])
    const miss = cases.find((c) => c.attributes["name"] === "suite/fail/replay-miss.yml")!
    expect([miss.children[0]!.name, miss.children[0]!.attributes["type"]]).toEqual(["error", "error"])
    expect(miss.children[0]!.text).toContain("no recorded cassette for this request")
    const passed = cases.find((c) => c.attributes["name"] === "suite/pass/count-one.yml")!
    expect(passed.children).toEqual([])
    // The shell tool sleeps 0.2 s: the file's time covers its run.
    expect(Number(passed.attributes["time"])).toBeGreaterThanOrEqual(0.2)
  }, 60_000)

  test("8 files at once, each with its own trace: tool counts of 1 and 3 never mix", async () => {
    const dir = copyFixtures("isolation")
    // Each tool call marks itself running, waits until 16 calls have been running at once (the first
    // to see it leaves a note; 30 s at most), then appends how many it saw: 8 files at once, four with
    // one call and four with three, make 16; one file at a time makes at most 3, all 16 files 32.
    const running = path.join(dir, "running")
    fs.mkdirSync(running)
    const count = `ls ${running} | grep -c ^run`
    const probe = `touch ${running}/run.$$; i=0; until [ -e ${running}/full ] || [ $i -ge 600 ]; do ` +
      `[ $(${count}) -ge 16 ] && touch ${running}/full || sleep 0.05; i=$((i+1)); done; ` +
      `${count} >> ${dir}/seen; rm ${running}/run.$$;`
    const config = path.join(dir, "lait.config.yml")
    fs.writeFileSync(config, fs.readFileSync(config, "utf8").replace("sleep 0.2;", () => probe))
    const tests = path.join(dir, "many")
    fs.mkdirSync(tests)
    for (let i = 0; i < 16; i++) {
      const source = i % 2 === 0 ? "count-one.yml" : "count-three.yml"
      const text = fs.readFileSync(path.join(dir, "suite/pass", source), "utf8").replaceAll("../../", "../")
      fs.writeFileSync(path.join(tests, `${String(i).padStart(2, "0")}-${source}`), text)
    }
    const r = await lait(["test", "many"], dir)
    expect(r.stdout.split("\n").at(-2)).toBe("16 passed, 0 failed, 16 total")
    expect(r.code).toBe(0)
    const seen = fs.readFileSync(path.join(dir, "seen"), "utf8").trim().split("\n").map(Number)
    expect(seen).toHaveLength(32)
    const most = Math.max(...seen)
    expect({ most, within: most >= 16 && most <= 24 }, `tool calls at once, as each saw them: ${seen.join(" ")}`)
      .toEqual({ most, within: true })
  }, 60_000)
})

describe("discovery through the CLI", () => {
  test("hidden, target/, node_modules/, symlinks, a symlink loop and a FIFO are skipped; duplicates run once", async () => {
    const dir = copyFixtures("discovery")
    const pass = path.join(dir, "suite/pass")
    for (const sub of [".hidden", "target", "node_modules"]) {
      fs.mkdirSync(path.join(pass, sub))
      fs.copyFileSync(path.join(pass, "count-one.yml"), path.join(pass, sub, "copy.yml"))
    }
    fs.symlinkSync("summarize-en.yml", path.join(pass, "linked.yml"))
    fs.symlinkSync(".", path.join(pass, "loop"))
    expect(Bun.spawnSync(["mkfifo", path.join(pass, "pipe.yml")]).exitCode).toBe(0)
    // A real process (the binary: it starts faster than `bun src/main.ts`), so that a FIFO waited on
    // blocks a child that can be killed, not this test process.
    const r = await lait(["test", "suite/pass/summarize-en.yml", "suite/pass", "./suite/pass/summarize-ja.yml"], dir, {
      binary: true
    })
    expect(r.stdout).toBe([
      "suite/pass/count-one.yml: PASS",
      "suite/pass/count-three.yml: PASS",
      "suite/pass/summarize-en.yml: PASS",
      "suite/pass/summarize-ja.yml: PASS",
      "suite/pass/ticket-billing.yml: PASS",
      "5 passed, 0 failed, 5 total",
      ""
    ].join("\n"))
    expect(r.code).toBe(0)
  }, 60_000)

  test("an explicit symlink, FIFO or socket is an error, before any config is read", async () => {
    const dir = copyFixtures("explicit")
    fs.symlinkSync("suite/pass/summarize-en.yml", path.join(dir, "link.yml"))
    expect(Bun.spawnSync(["mkfifo", path.join(dir, "pipe.yml")]).exitCode).toBe(0)
    const server = net.createServer()
    await new Promise<void>((resolve) => server.listen(path.join(dir, "s.sock"), resolve))
    // A broken config would fail any command that loads it: discovery errors come first.
    fs.writeFileSync(path.join(dir, "lait.config.yml"), "not_a_key: 1\n")
    try {
      expect(await lait(["test", "link.yml"], dir)).toMatchObject({
        code: 1,
        stdout: "",
        stderr: "lait: test target 'link.yml' is a symbolic link; pass a regular file or directory\n"
      })
      // A real process: see the FIFO in the walk above.
      expect(await lait(["test", "pipe.yml"], dir, { binary: true })).toMatchObject({
        code: 1,
        stderr: "lait: test target 'pipe.yml' is not a regular file or directory\n"
      })
      expect(await lait(["test", "s.sock"], dir)).toMatchObject({
        code: 1,
        stderr: "lait: test target 's.sock' is not a regular file or directory\n"
      })
      expect(await lait(["test", "missing"], dir)).toMatchObject({
        code: 1,
        stderr: "lait: failed to read test target 'missing': no such file or directory\n"
      })
    } finally {
      server.close()
    }
  }, 60_000)
})

describe("a suite that finds nothing", () => {
  test("paths with no test file are an error (exit 1) naming every path, before any config is read", async () => {
    const dir = copyFixtures("empty")
    fs.mkdirSync(path.join(dir, "empty-dir/nested"), { recursive: true })
    fs.writeFileSync(path.join(dir, "empty-dir/nested/notes.txt"), "not a test\n")
    fs.mkdirSync(path.join(dir, "other/.hidden"), { recursive: true })
    fs.copyFileSync(path.join(dir, "suite/pass/count-one.yml"), path.join(dir, "other/.hidden/skipped.yml"))
    fs.mkdirSync(path.join(dir, "third"))
    fs.writeFileSync(path.join(dir, "lait.config.yml"), "not_a_key: 1\n")
    expect(await lait(["test", "empty-dir/"], dir)).toMatchObject({
      code: 1,
      stdout: "",
      stderr: "lait: no test files found in 'empty-dir/'\n"
    })
    expect(await lait(["test", "empty-dir", "other"], dir)).toMatchObject({
      code: 1,
      stdout: "",
      stderr: "lait: no test files found in 'empty-dir' or 'other'\n"
    })
    expect(await lait(["test", "empty-dir", "other", "./third", "--format", "json"], dir)).toMatchObject({
      code: 1,
      stdout: "",
      stderr: "lait: no test files found in 'empty-dir', 'other' or './third'\n"
    })
    // One path with tests among empty ones runs those tests.
    fs.writeFileSync(path.join(dir, "lait.config.yml"), fs.readFileSync(path.join(fixtures, "lait.config.yml")))
    const some = await lait(["test", "empty-dir", "suite/pass/summarize-en.yml"], dir)
    expect({ code: some.code, stdout: some.stdout }).toEqual({
      code: 0,
      stdout: "suite/pass/summarize-en.yml: PASS\n1 passed, 0 failed, 1 total\n"
    })
  }, 60_000)
})

describe("tool_called bounds", () => {
  test("max without min is an upper bound only (max: 0 = never called); name alone means at least once", async () => {
    const dir = copyFixtures("tool-bounds")
    // count-one's recorded run called tool__word_count once; summarize-en's called no tool.
    const countOne = (name: string, assertion: string) =>
      fs.writeFileSync(
        path.join(dir, "suite", name),
        "workflow: ../workflows/count-words.yml\ninput: alpha beta gamma\nreplay: ../cassettes/count-one\n" +
          `assert:\n  - type: tool_called\n    name: tool__word_count\n${assertion}`
      )
    const summarize = (name: string, assertion: string) =>
      fs.writeFileSync(
        path.join(dir, "suite", name),
        fs.readFileSync(path.join(dir, "suite/pass/summarize-en.yml"), "utf8")
          .replace(/\nassert:\n[^]*$/, "\n")
          .replaceAll("../../", "../") +
          `assert:\n  - type: tool_called\n    name: tool__word_count\n${assertion}`
      )
    summarize("a-never-called.yml", "    max: 0\n")
    summarize("b-not-called-at-all.yml", "")
    countOne("c-called-once-max-0.yml", "    max: 0\n")
    countOne("d-called-once-max-2.yml", "    max: 2\n")
    const files = ["a-never-called", "b-not-called-at-all", "c-called-once-max-0", "d-called-once-max-2"]
      .map((f) => `suite/${f}.yml`)
    const run = await lait(["test", ...files], dir)
    expect(run.stdout).toBe([
      "suite/a-never-called.yml: PASS",
      "suite/b-not-called-at-all.yml: FAIL",
      "  assertion 1: expected tool 'tool__word_count' to be called at least 1 time(s), was called 0 time(s)",
      "suite/c-called-once-max-0.yml: FAIL",
      "  assertion 1: expected tool 'tool__word_count' to be called at most 0 time(s), was called 1 time(s)",
      "suite/d-called-once-max-2.yml: PASS",
      "2 passed, 2 failed, 4 total",
      ""
    ].join("\n"))
    expect(run).toMatchObject({ code: 1, stderr: "lait: 2 of 4 test file(s) failed\n" })
  }, 60_000)
})

describe("flags", () => {
  test("--filter runs the files whose path contains TEXT; no match is an error", async () => {
    const dir = copyFixtures("filter")
    const r = await lait(["test", "--filter", "count-", "suite"], dir)
    expect(r.stdout).toBe("suite/pass/count-one.yml: PASS\nsuite/pass/count-three.yml: PASS\n2 passed, 0 failed, 2 total\n")
    expect(r.code).toBe(0)
    expect(await lait(["test", "suite", "--filter", "nothing-like-this"], dir)).toMatchObject({
      code: 1,
      stdout: "",
      stderr: "lait: --filter 'nothing-like-this' matched none of the 13 test file(s) found\n"
    })
  }, 60_000)

  test("--update rewrites failing equals values in place and says so", async () => {
    const dir = copyFixtures("update")
    const file = path.join(dir, "suite/fail/messages.yml")
    const before = fs.readFileSync(file, "utf8")
    const r = await lait(["test", "--update", "suite/fail/messages.yml"], dir)
    expect(r.stderr).toBe([
      "note: updated 'suite/fail/messages.yml': assertion 1: value \"Summary\" -> \"Summary: lait tests workflows offline by replaying recorded answers.\"",
      "note: updated 'suite/fail/messages.yml': assertion 8 (step 'summary'): assertion 1: value \"say \\\"hi\\\"\" -> \"lait tests workflows offline by replaying recorded answers.\"",
      "lait: 1 of 1 test file(s) failed",
      ""
    ].join("\n"))
    expect(r.code).toBe(1)
    expect(r.stdout).not.toContain("assertion 1: expected output to equal")
    expect(r.stdout).toContain("  assertion 8: step 'summary': assertion 3: prompt_tokens 31 exceeded max_prompt_tokens 30\n")
    expect(fs.readFileSync(file, "utf8")).toBe(
      before
        .replace("    value: Summary\n", "    value: \"Summary: lait tests workflows offline by replaying recorded answers.\"\n")
        .replace("        value: \"say \\\"hi\\\"\"\n", "        value: \"lait tests workflows offline by replaying recorded answers.\"\n")
    )
  }, 60_000)

  test("usage errors exit 2", async () => {
    expect((await lait(["test"], work)).code).toBe(2)
    expect((await lait(["test", "--format", "xml", "x"], work)).code).toBe(2)
  }, 60_000)
})

describe("examples/tests", () => {
  test("the README's first command passes with no model server", async () => {
    const readme = fs.readFileSync(path.join(repoRoot, "examples/tests/README.md"), "utf8")
    const first = /```sh\n(.+)\n/.exec(readme)![1]!
    expect(first).toBe("dist/lait test examples/tests/cases")
    // The README's command as written: the compiled binary.
    const r = await lait(first.split(" ").slice(1), repoRoot, { binary: true })
    expect(r).toMatchObject({
      code: 0,
      stdout: "examples/tests/cases/billing.yml: PASS\nexamples/tests/cases/outage.yml: PASS\n2 passed, 0 failed, 2 total\n",
      stderr: ""
    })
  }, 60_000)

  test("the README names only flags lait run/test have, and its OPENAI_BASE_URL note holds", async () => {
    const readme = fs.readFileSync(path.join(repoRoot, "examples/tests/README.md"), "utf8")
    const help = (await lait(["run", "--help"], work)).stdout + (await lait(["test", "--help"], work)).stdout +
      (await lait(["cassettes", "prune", "--help"], work)).stdout
    const known = new Set(help.match(/--[a-z][a-z-]*/g))
    expect([...new Set(readme.match(/--[a-z][a-z-]*/g))].filter((flag) => !known.has(flag))).toEqual([])

    expect(readme).toContain("`env -u OPENAI_BASE_URL dist/lait test examples/tests/cases`")
    const moved = (args: ReadonlyArray<string>) =>
      runCli(["--no-env", "test", "examples/tests/cases", ...args], {
        cwd: repoRoot,
        env: { ...env, OPENAI_BASE_URL: "http://127.0.0.1:9/v1" },
        timeoutMs: 60_000
      })
    const r = await moved([])
    expect(r.code).toBe(0)
    expect(r.stdout).toContain("examples/tests/cases/billing.yml: PASS\n")
    expect(r.stderr).toContain("recorded for http://localhost:1234/v1 (requested http://127.0.0.1:9/v1)\n")
    const strict = await moved(["--strict-replay"])
    expect(strict.code).toBe(1)
    expect(strict.stdout).toContain("examples/tests/cases/billing.yml: ERROR\n")
    expect(strict.stdout).toContain("matches everything but the base URL (requested http://127.0.0.1:9/v1)")
  }, 60_000)
})

/** PIDs of running processes whose argv is exactly `argv`. */
const processesRunning = (argv: ReadonlyArray<string>): Array<number> =>
  fs.readdirSync("/proc").filter((p) => /^\d+$/.test(p)).filter((pid) => {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8")
      if (stat.slice(stat.lastIndexOf(")") + 2)[0] === "Z") return false
      return fs.readFileSync(`/proc/${pid}/cmdline`, "utf8") === `${argv.join("\0")}\0`
    } catch {
      return false
    }
  }).map(Number)

describe("Ctrl-C", () => {
  test("stops the whole suite: exit 130, no report, the running tool processes are gone", async () => {
    const dir = copyFixtures("ctrl-c")
    // The tool's command is not part of the recorded request, so the cassettes still answer. A
    // duration of its own tells this run's sleeps apart from anything else on the machine.
    const seconds = `${30 + Math.floor(Math.random() * 1000) / 1000}`
    const config = path.join(dir, "lait.config.yml")
    fs.writeFileSync(config, fs.readFileSync(config, "utf8").replace("sleep 0.2;", `sleep ${seconds};`))
    const child = Bun.spawn([await ensureBinary(), "--no-env", "test", "suite/pass"], {
      cwd: dir,
      env: env as Record<string, string>,
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe"
    })
    try {
      const sleeper = ["sleep", seconds]
      const deadline = Date.now() + 40_000
      // count-one's call and count-three's three calls, all at once (two files, calls dispatched together).
      while (processesRunning(sleeper).length < 4 && Date.now() < deadline) await Bun.sleep(50)
      expect({ waitedFor: "the four tool calls' sleeps to start (40 s)", running: processesRunning(sleeper).length })
        .toEqual({ waitedFor: "the four tool calls' sleeps to start (40 s)", running: 4 })
      child.kill("SIGINT")
      const [stdout, stderr] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text()])
      expect(await child.exited).toBe(130)
      expect(stdout).toBe("")
      expect(stderr).toBe("\nlait: received Ctrl-C, stopping (press Ctrl-C again to exit immediately)...\n")
      // Killed, not left to sleep their 30 s: a killed process may take a moment to be scheduled
      // and vanish on a busy machine, so they are given 10 s.
      const gone = Date.now() + 10_000
      while (processesRunning(sleeper).length > 0 && Date.now() < gone) await Bun.sleep(50)
      expect({ waitedFor: "the tool processes to be gone (10 s)", running: processesRunning(sleeper) })
        .toEqual({ waitedFor: "the tool processes to be gone (10 s)", running: [] })
    } finally {
      child.kill("SIGKILL")
    }
  }, 120_000)
})

// Last in the file: everything above replayed without one request reaching the server, and the server
// does receive what a live run of the same workflow sends (so it would have seen any leak).
describe("the network", () => {
  test("no test above sent a request to the model endpoint of the recordings", async () => {
    expect(sentinel!.requests).toEqual([])
    const dir = copyFixtures("live")
    const live = await lait(["run", "workflows/summarize.yml", "a live run"], dir)
    expect(live.code).toBe(0)
    expect(sentinel!.requests.map((r) => `${r.method} ${r.path}`)).toEqual(["POST /v1/chat/completions"])
  }, 60_000)
})
