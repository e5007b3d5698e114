// `lait test` and `lait lint` on a folder as `lait init` leaves it (config, workflow, test, eval and
// agent side by side), run in this process (docs/architecture.md#testing): a directory walk runs only the test files and
// counts the rest on stderr, lint names the command that records a test's missing `replay:`
// directory, and that command (against the fixture OpenAI server) makes the folder pass. Then how a
// failing assertion shows a JSON output: indented, cut when long.
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as path from "node:path"
import { type OpenAiServer, startOpenAiServer } from "../fixtures/openai-server.ts"
import { makeTempDir, runCli } from "./util.ts"

let server: OpenAiServer
const home = makeTempDir("test-folder-home")

beforeAll(() => {
  server = startOpenAiServer({ script: [{ content: "lait replays answers.\nCI needs no model.", repeat: true }] })
})
afterAll(async () => {
  await server.stop()
  fs.rmSync(home, { recursive: true, force: true })
})

const lait = (args: ReadonlyArray<string>, cwd: string) =>
  runCli(args, {
    cwd,
    env: { PATH: process.env["PATH"], HOME: home, NO_COLOR: "1", OPENAI_BASE_URL: server.baseUrl },
    timeoutMs: 60_000
  })

const write = (dir: string, name: string, text: string) => {
  fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true })
  fs.writeFileSync(path.join(dir, name), text)
}

describe("a folder made by lait init", () => {
  test("lait test DIR runs only the test files; lint says how to record; that command makes it pass", async () => {
    const dir = makeTempDir("test-folder")
    for (const kind of [[], ["workflow"], ["test"], ["eval"], ["agent"]]) {
      expect((await lait(["init", ...kind], dir)).code).toBe(0)
    }
    // Beside them, an eval's list of cases (lint skips it too) and a test file that does not parse,
    // which must still be reported rather than skipped.
    write(dir, "cases.yml", "- input: a\n- input: b\n")
    write(dir, "sub/broken.yml", "workflow: [unclosed\n")

    const unrecorded = await lait(["test", "."], dir)
    expect(unrecorded.code).toBe(1)
    const lines = unrecorded.stdout.split("\n")
    expect(lines.filter((l) => /: (PASS|FAIL|ERROR)$/.test(l))).toEqual([
      "./sub/broken.yml: ERROR",
      "./workflow.test.yml: ERROR"
    ])
    expect(unrecorded.stdout).toContain("no recorded cassette for this request")
    expect(unrecorded.stderr).toBe(
      "note: skipped 4 YAML file(s) that are not test files (-v names them)\n" +
        "lait: 2 of 2 test file(s) could not run\n"
    )
    const verbose = await lait(["test", "-v", "."], dir)
    expect(verbose.stderr.split("\n").filter((l) => l.includes("test: skipped"))).toEqual([
      "lait: [debug] test: skipped './cases.yml': a list (an eval's cases), not a test file",
      "lait: [debug] test: skipped './lait.config.yml': a config, not a test file",
      "lait: [debug] test: skipped './workflow.eval.yml': an eval, not a test file",
      "lait: [debug] test: skipped './workflow.yml': a workflow, not a test file"
    ])
    // Named explicitly, any file is a test file, as always.
    const explicit = await lait(["test", "workflow.yml"], dir)
    expect([explicit.code, explicit.stdout.split("\n")[0]]).toEqual([1, "workflow.yml: ERROR"])
    expect(explicit.stdout).toContain("failed to parse test definition 'workflow.yml': unknown key 'name'")
    expect(explicit.stderr).not.toContain("skipped")

    fs.rmSync(path.join(dir, "sub"), { recursive: true })
    const lint = await lait(["lint", "."], dir)
    const record = "lait test --record-missing ./workflow.test.yml"
    expect([lint.code, lint.stdout]).toEqual([
      0,
      [
        "./agent.md: OK",
        "./lait.config.yml: OK",
        "./workflow.eval.yml: OK",
        "./workflow.test.yml:",
        `  warning: 'replay' directory 'recordings' does not exist yet; record it with \`${record}\``,
        "./workflow.yml: OK",
        ""
      ].join("\n")
    ])

    // The command lint names, run as it says: it records, and from then on the folder passes.
    const recorded = await lait(record.split(" ").slice(1), dir)
    expect([recorded.code, recorded.stdout]).toEqual([
      0,
      "./workflow.test.yml: PASS (recorded 1)\n1 passed, 0 failed, 1 total\n"
    ])
    expect(server.requests.length).toBe(1)
    const replayed = await lait(["test", "."], dir)
    expect([replayed.code, replayed.stdout, replayed.stderr]).toEqual([
      0,
      "./workflow.test.yml: PASS\n1 passed, 0 failed, 1 total\n",
      "note: skipped 4 YAML file(s) that are not test files (-v names them)\n"
    ])
    const clean = await lait(["lint", "workflow.test.yml"], dir)
    expect([clean.code, clean.stdout]).toEqual([0, "workflow.test.yml: OK\n"])
    expect(server.requests.length).toBe(1)
  })
})

describe("a failing assertion on JSON output", () => {
  test("shows the output as indented JSON, cut with a note when long", async () => {
    const dir = makeTempDir("test-json")
    fs.mkdirSync(path.join(dir, "cas"))
    write(dir, "wf.yml", "steps:\n  - jq: '{summary: \"lait replays \\\"answers\\\"\", words: 3}'\n")
    write(dir, "long.yml", "steps:\n  - jq: '[range(60)]'\n")
    write(
      dir,
      "tests/json.yml",
      [
        "workflow: ../wf.yml",
        "replay: ../cas",
        "assert:",
        "  - {type: contains, value: recordings}",
        "  - {type: jq, expr: '.words > 5'}",
        "  - {type: contains, value: replays}",
        ""
      ].join("\n")
    )
    write(dir, "tests/long.yml", "workflow: ../long.yml\nreplay: ../cas\nassert:\n  - {type: equals, value: '[]'}\n")
    const r = await lait(["test", "tests"], dir)
    expect([r.code, r.stdout]).toEqual([
      1,
      [
        "tests/json.yml: FAIL",
        "  assertion 1: expected output to contain \"recordings\", got:",
        "    {",
        "      \"summary\": \"lait replays \\\"answers\\\"\",",
        "      \"words\": 3",
        "    }",
        "  assertion 2: jq expression `.words > 5` was false for output:",
        "    {",
        "      \"summary\": \"lait replays \\\"answers\\\"\",",
        "      \"words\": 3",
        "    }",
        "tests/long.yml: FAIL",
        "  assertion 1: expected output to equal \"[]\", got:",
        "    [",
        ...Array.from({ length: 39 }, (_, i) => `      ${i},`),
        "    … (22 more lines cut)",
        "0 passed, 2 failed, 2 total",
        ""
      ].join("\n")
    ])
    // The JSON report carries the same text.
    const json = await lait(["test", "--format", "json", "tests/long.yml"], dir)
    const [report] = JSON.parse(json.stdout) as Array<{ failures: Array<string> }>
    expect(report!.failures[0]!.split("\n").at(-1)).toBe("  … (22 more lines cut)")
  })
})
