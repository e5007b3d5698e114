// `lait test` isolation, ERROR outcomes and shards, run in this process (runCli's default: nothing
// here is about the process itself; docs/architecture.md#testing-in-process-first) against the
// recorded fixture suite (test/fixtures/testing, copied into a temporary directory). A fixture OpenAI
// server listens where the recordings point (127.0.0.1:1234) and must never see a request. Every lait
// run gets a private TMPDIR, so what `workdir: temp` leaves behind (or not) can be listed.
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as path from "node:path"
import { type OpenAiServer, startOpenAiServer } from "../fixtures/openai-server.ts"
import { lockPort1234 } from "../fixtures/port1234.ts"
import { parseXml, validateJunit } from "../testing/junit.ts"
import { makeTempDir, repoRoot, type RunResult, runCli } from "./util.ts"

const fixtures = path.join(repoRoot, "test/fixtures/testing")
const work = fs.realpathSync(makeTempDir("e2e-test-isolation"))
let sentinel: OpenAiServer | undefined
let releasePort: (() => void) | undefined

const EN_INPUT = "lait replays recorded model answers so that workflow tests never call a model."
const JA_INPUT = "lait は記録済みの応答を再生するので、ワークフローのテストはモデルを呼びません。"
const EN_ANSWER = "lait tests workflows offline by replaying recorded answers."
const JA_ANSWER = "結論: lait は記録を再生してオフラインでテストする。"

// The recorded summarize request, then its answer written to a fixed relative path, then read back
// once two files have written theirs (a barrier: each leaves a `ready-*` file in the suite's barrier/
// folder, whatever its working directory, and waits for a second one): in one shared directory the
// last writer wins for everybody, in directories of their own each reads its own. The barrier's bound
// (30 s) is a hang guard for a machine many times slower than this one; a test whose file runs alone
// puts the second `ready-*` file there itself (barrier()).
const WRITES_PR = (barrierDir: string) => `models:
  local:
    - provider: { base_url: 'http://localhost:1234/v1' }
      model_id: fixture-model
default:
  model: local
inputs:
  lang: {type: string, default: en}
steps:
  - id: summary
    prompt: "Summarize in one sentence ({{ inputs.lang }}): {{ input }}"
  - write: pr.diff
  - run:
      - sh
      - -c
      - 'touch "${barrierDir}/ready-$$"; i=0; while [ "$(ls "${barrierDir}" | wc -l)" -lt 2 ] && [ $i -lt 1500 ]; do sleep 0.02; i=$((i+1)); done; cat pr.diff'
`

/** A fresh copy of the fixture suite with a private TMPDIR; returns its directory. */
const suiteCopy = (name: string): string => {
  const dir = path.join(work, name)
  fs.cpSync(fixtures, dir, { recursive: true })
  fs.mkdirSync(path.join(dir, ".tmp"))
  fs.writeFileSync(path.join(dir, "workflows/writes-pr.yml"), WRITES_PR(path.join(dir, "barrier")))
  return dir
}

/** An empty barrier for the next `lait test` of the suite in `dir`, or one already passed by `arrived` files. */
const barrier = (dir: string, arrived = 0) => {
  fs.rmSync(path.join(dir, "barrier"), { recursive: true, force: true })
  fs.mkdirSync(path.join(dir, "barrier"))
  for (let i = 0; i < arrived; i++) fs.writeFileSync(path.join(dir, "barrier", `ready-test-${i}`), "")
}

const write = (dir: string, file: string, text: string) => {
  fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true })
  fs.writeFileSync(path.join(dir, file), text)
}

const lait = (args: ReadonlyArray<string>, cwd: string, extraEnv: Record<string, string> = {}): Promise<RunResult> =>
  runCli(["--no-env", ...args], {
    cwd,
    env: {
      ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(OPENAI_|LAIT_)/.test(k))),
      NO_COLOR: "1",
      HOME: work,
      XDG_CONFIG_HOME: path.join(work, ".config"),
      TMPDIR: path.join(cwd, ".tmp"),
      ...extraEnv
    },
    timeoutMs: 60_000
  })

/** The two summarize cases writing pr.diff, in `dir`/`sub`, with `extra` lines (workdir...). */
const writesPrTests = (dir: string, sub: string, extra: string) => {
  write(dir, `${sub}/en.yml`, `workflow: ../workflows/writes-pr.yml
input: ${JSON.stringify(EN_INPUT)}
replay: ../cassettes/summarize-en
${extra}assert:
  - {type: equals, value: ${JSON.stringify(EN_ANSWER)}}
`)
  write(dir, `${sub}/ja.yml`, `workflow: ../workflows/writes-pr.yml
input: ${JSON.stringify(JA_INPUT)}
inputs: {lang: ja}
replay: ../cassettes/summarize-ja
${extra}assert:
  - {type: equals, value: ${JSON.stringify(JA_ANSWER)}}
`)
}

beforeAll(async () => {
  // Other files listen on port 1234 too (test-command.test.ts for its whole file): take turns.
  releasePort = await lockPort1234()
  sentinel = startOpenAiServer({ port: 1234 })
}, 600_000)

afterAll(async () => {
  await sentinel?.stop()
  releasePort?.()
  fs.rmSync(work, { recursive: true, force: true })
})

describe("workdir: temp", () => {
  test("two files writing the same relative path race in one directory, and both pass in their own", async () => {
    const dir = suiteCopy("race")
    writesPrTests(dir, "shared", "")
    writesPrTests(dir, "isolated", "workdir: temp\n")

    // Without a workdir both run in lait's directory: whoever wrote pr.diff last wins for both.
    barrier(dir)
    const raced = await lait(["test", "-j", "8", "shared"], dir)
    expect(raced.code).toBe(1)
    expect(raced.stdout).toContain("1 passed, 1 failed, 2 total")
    expect(fs.existsSync(path.join(dir, "pr.diff"))).toBe(true)
    fs.rmSync(path.join(dir, "pr.diff"))

    for (let round = 0; round < 3; round++) {
      barrier(dir)
      const r = await lait(["test", "-j", "8", "isolated"], dir)
      expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({
        code: 0,
        stdout: "isolated/en.yml: PASS\nisolated/ja.yml: PASS\n2 passed, 0 failed, 2 total\n",
        stderr: ""
      })
    }
    // Nothing landed in lait's own directory, and every temp directory is gone.
    expect(fs.existsSync(path.join(dir, "pr.diff"))).toBe(false)
    expect(fs.readdirSync(path.join(dir, ".tmp"))).toEqual([])
  }, 60_000)

  test("fixtures are copied in first (files and directories); shell tools start there", async () => {
    const dir = suiteCopy("fixtures")
    write(dir, "iso/data/notes.txt", "from the notes fixture\n")
    write(dir, "iso/data/tree/inner/deep.txt", "deep file\n")
    write(dir, "iso/fixtures.yml", `workflow: ../workflows/fixtures.yml
replay: ../cassettes/summarize-en
workdir: temp
fixtures: [data/notes.txt, data/tree]
assert:
  - {type: equals, value: "from the notes fixture|deep file|notes.txt tree"}
`)
    write(dir, "workflows/fixtures.yml", `steps:
  - run: [sh, -c, 'printf "%s|%s|%s" "$(cat notes.txt)" "$(cat tree/inner/deep.txt)" "$(ls | tr "\\n" " " | sed "s/ $//")"']
`)
    // The recorded tool-calling request, with the word_count tool's command changed (the command is
    // not part of the request) to say where it ran; a run step then reads that back.
    const config = path.join(dir, "lait.config.yml")
    fs.writeFileSync(config, fs.readFileSync(config, "utf8").replace("sleep 0.2;", "pwd > tool-ran-in.txt;"))
    write(dir, "workflows/tool-cwd.yml", fs.readFileSync(path.join(dir, "workflows/count-words.yml"), "utf8") +
      "  - run: [cat, tool-ran-in.txt]\n")
    write(dir, "iso/tool-cwd.yml", `workflow: ../workflows/tool-cwd.yml
input: alpha beta gamma
replay: ../cassettes/count-one
workdir: temp
assert:
  - {type: tool_called, name: tool__word_count, min: 1, max: 1}
  - {type: jq, expr: 'startswith(${JSON.stringify(path.join(dir, ".tmp", "lait-test-"))})'}
`)
    const r = await lait(["test", "iso"], dir)
    expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({
      code: 0,
      stdout: "iso/fixtures.yml: PASS\niso/tool-cwd.yml: PASS\n2 passed, 0 failed, 2 total\n",
      stderr: ""
    })
    expect(fs.existsSync(path.join(dir, "tool-ran-in.txt"))).toBe(false)
    expect(fs.readdirSync(path.join(dir, ".tmp"))).toEqual([])
  }, 60_000)

  test("a missing fixture is an ERROR naming it; fixtures without workdir: temp are refused", async () => {
    const dir = suiteCopy("missing-fixture")
    write(dir, "iso/missing.yml", "workflow: ../workflows/fixtures.yml\nreplay: ../cassettes/summarize-en\nworkdir: temp\nfixtures: [data/nope.txt]\n")
    write(dir, "iso/no-temp.yml", "workflow: ../workflows/fixtures.yml\nreplay: ../cassettes/summarize-en\nfixtures: [data/nope.txt]\n")
    write(dir, "workflows/fixtures.yml", "steps:\n  - run: [true]\n")
    const r = await lait(["test", "iso"], dir)
    expect(r.stdout).toBe([
      "iso/missing.yml: ERROR",
      "  failed to copy fixture 'iso/data/nope.txt': no such file or directory",
      "iso/no-temp.yml: ERROR",
      "  failed to parse test definition 'iso/no-temp.yml': 'fixtures' needs 'workdir: temp' (line 3)",
      "0 passed, 0 failed, 2 errors, 2 total",
      ""
    ].join("\n"))
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 1, stderr: "lait: 2 of 2 test file(s) could not run\n" })
    expect(fs.readdirSync(path.join(dir, ".tmp"))).toEqual([])
  }, 60_000)

  test("--keep-workdirs keeps the directory of a file that did not pass and names it; passing ones go", async () => {
    const dir = suiteCopy("keep")
    writesPrTests(dir, "iso", "workdir: temp\n")
    // The same run, asserting the wrong answer.
    write(dir, "iso/wrong.yml", fs.readFileSync(path.join(dir, "iso/en.yml"), "utf8").replace("replaying", "REPLAYING"))
    barrier(dir)
    const kept = await lait(["test", "--keep-workdirs", "iso"], dir)
    expect(kept.code).toBe(1)
    const note = /^note: kept the working directory of 'iso\/wrong\.yml': (.+)\nlait: 1 of 3 test file\(s\) failed\n$/
      .exec(kept.stderr)
    expect(note).not.toBeNull()
    const keptDir = note![1]!
    expect(path.dirname(keptDir)).toBe(path.join(dir, ".tmp"))
    expect(fs.readFileSync(path.join(keptDir, "pr.diff"), "utf8")).toBe(EN_ANSWER)
    expect(fs.readdirSync(path.join(dir, ".tmp"))).toEqual([path.basename(keptDir)])
    fs.rmSync(keptDir, { recursive: true })

    // Without the flag nothing is kept, failures included.
    barrier(dir)
    const plain = await lait(["test", "iso"], dir)
    expect({ code: plain.code, stderr: plain.stderr }).toEqual({ code: 1, stderr: "lait: 1 of 3 test file(s) failed\n" })
    expect(fs.readdirSync(path.join(dir, ".tmp"))).toEqual([])
  }, 60_000)
})

describe("workdir: <path>", () => {
  test("runs in that directory (relative to the test file); a missing one is an ERROR", async () => {
    const dir = suiteCopy("workdir-path")
    fs.mkdirSync(path.join(dir, "sandbox"))
    write(dir, "iso/path.yml", `workflow: ../workflows/writes-pr.yml
input: ${JSON.stringify(EN_INPUT)}
replay: ../cassettes/summarize-en
workdir: ../sandbox
assert:
  - {type: equals, value: ${JSON.stringify(EN_ANSWER)}}
`)
    write(dir, "iso/gone.yml", "workflow: ../workflows/writes-pr.yml\nreplay: ../cassettes/summarize-en\nworkdir: no-such-dir\n")
    // path.yml is the only file that runs the workflow: nobody else comes to the barrier.
    barrier(dir, 1)
    const r = await lait(["test", "iso"], dir)
    expect(r.stdout).toBe([
      "iso/gone.yml: ERROR",
      "  failed to use workdir 'iso/no-such-dir': no such file or directory",
      "iso/path.yml: PASS",
      "1 passed, 0 failed, 1 error, 2 total",
      ""
    ].join("\n"))
    expect(r.code).toBe(1)
    // The file stays where the test ran (lait made none of it).
    expect(fs.readFileSync(path.join(dir, "sandbox/pr.diff"), "utf8")).toBe(EN_ANSWER)
    expect(fs.existsSync(path.join(dir, "pr.diff"))).toBe(false)
  }, 60_000)
})

describe("-j", () => {
  test("-j 1 runs files one after another; -j 8 at once; 0, negative or not a number is a usage error", async () => {
    const dir = suiteCopy("jobs")
    const log = path.join(dir, "order.log")
    // With E2E_MEET set, each file ends only once all three have started (or after 30 s, a hang guard
    // for a machine many times slower than this one): files run at once all start, however busy the
    // machine. Without it each sleeps, long enough for a second file that started too early to show.
    const meet = `i=0; while [ "$(grep -c "^start" ${log})" -lt 3 ] && [ $i -lt 1500 ]; do sleep 0.02; i=$((i+1)); done`
    write(dir, "workflows/log.yml", `steps:
  - run: [sh, -c, 'echo "start $0" >> ${log}; if [ -n "$E2E_MEET" ]; then ${meet}; else sleep 0.4; fi; echo "end $0" >> ${log}', '{{ input }}']
`)
    for (const name of ["a", "b", "c"]) {
      write(dir, `order/${name}.yml`, `workflow: ../workflows/log.yml\ninput: ${name}\nreplay: ../cassettes/summarize-en\n`)
    }
    const one = await lait(["test", "-j", "1", "order"], dir)
    expect(one.stdout).toBe("order/a.yml: PASS\norder/b.yml: PASS\norder/c.yml: PASS\n3 passed, 0 failed, 3 total\n")
    expect(fs.readFileSync(log, "utf8")).toBe("start a\nend a\nstart b\nend b\nstart c\nend c\n")
    fs.rmSync(log)
    const eight = await lait(["test", "--jobs", "8", "order"], dir, { E2E_MEET: "1" })
    expect(eight.code).toBe(0)
    // All three started before any ended.
    expect(fs.readFileSync(log, "utf8").split("\n").slice(0, 3).every((l) => l.startsWith("start "))).toBe(true)

    for (const bad of ["0", "-1"]) {
      expect(await lait(["test", "-j", bad, "order"], dir)).toMatchObject({
        code: 2,
        stdout: "",
        stderr: `lait: invalid value '${bad}' for '--jobs <N>': expected an integer of at least 1\n`
      })
    }
    const word = await lait(["test", "--jobs", "many", "order"], dir)
    expect(word.code).toBe(2)
    expect(word.stderr).toContain("--jobs")
  }, 60_000)
})

describe("ERROR is not FAIL", () => {
  test("a cassette miss and an unreachable MCP server are ERRORs, a failing step and assertion FAILs: text, json, junit", async () => {
    const dir = suiteCopy("errors")
    write(dir, "lait.config.yml", fs.readFileSync(path.join(dir, "lait.config.yml"), "utf8") +
      "mcp_servers:\n  down:\n    url: http://127.0.0.1:9/mcp\n")
    write(dir, "workflows/mcp.yml", fs.readFileSync(path.join(dir, "workflows/summarize.yml"), "utf8")
      .replace("    prompt: \"Summarize", "    mcp: [down]\n    prompt: \"Summarize"))
    write(dir, "workflows/step-fails.yml", "steps:\n  - run: [sh, -c, 'echo broken >&2; exit 3']\n")
    write(dir, "e/a-miss.yml", `workflow: ../workflows/summarize.yml\ninput: nobody recorded this\nreplay: ../cassettes/summarize-en\n`)
    write(dir, "e/b-unreachable.yml", `workflow: ../workflows/mcp.yml\ninput: ${JSON.stringify(EN_INPUT)}\nreplay: ../cassettes/summarize-en\n`)
    write(dir, "e/c-step-fails.yml", "workflow: ../workflows/step-fails.yml\nreplay: ../cassettes/summarize-en\n")
    write(dir, "e/d-assertion.yml", `workflow: ../workflows/summarize.yml\ninput: ${JSON.stringify(EN_INPUT)}\nreplay: ../cassettes/summarize-en\nassert:\n  - {type: contains, value: nowhere}\n`)
    write(dir, "e/e-pass.yml", `workflow: ../workflows/summarize.yml\ninput: ${JSON.stringify(EN_INPUT)}\nreplay: ../cassettes/summarize-en\n`)

    const text = await lait(["test", "e"], dir)
    const lines = text.stdout.split("\n")
    expect(lines[0]).toBe("e/a-miss.yml: ERROR")
    expect(lines[1]).toStartWith("  workflow 'e/../workflows/summarize.yml': no recorded cassette for this request")
    expect(lines[2]).toBe("e/b-unreachable.yml: ERROR")
    expect(lines[3]).toStartWith("  workflow 'e/../workflows/mcp.yml': ")
    expect(lines[3]).toContain("failed to initialize MCP server 'down'")
    expect(lines.slice(4)).toEqual([
      "e/c-step-fails.yml: FAIL",
      "  workflow 'e/../workflows/step-fails.yml': step 'step-1 (run)': command 'sh' exited with exit status: 3: broken",
      "e/d-assertion.yml: FAIL",
      `  assertion 1: expected output to contain "nowhere", got "Summary: ${EN_ANSWER}"`,
      "e/e-pass.yml: PASS",
      "1 passed, 2 failed, 2 errors, 5 total",
      ""
    ])
    expect({ code: text.code, stderr: text.stderr }).toEqual({
      code: 1,
      stderr: "lait: 2 of 5 test file(s) failed and 2 could not run\n"
    })

    const json = await lait(["test", "--format", "json", "e"], dir)
    expect(json.code).toBe(1)
    const report = JSON.parse(json.stdout) as Array<{ file: string; status: string; failures: Array<string> }>
    expect(report.map((o) => [o.file, o.status, o.failures.length])).toEqual([
      ["e/a-miss.yml", "error", 1],
      ["e/b-unreachable.yml", "error", 1],
      ["e/c-step-fails.yml", "fail", 1],
      ["e/d-assertion.yml", "fail", 1],
      ["e/e-pass.yml", "pass", 0]
    ])

    const junit = await lait(["test", "--format", "junit", "e"], dir)
    const root = parseXml(junit.stdout.trimEnd())
    validateJunit(root)
    expect(root.attributes).toMatchObject({ tests: "5", failures: "2", errors: "2" })
    expect(root.children[0]!.attributes).toMatchObject({ tests: "5", failures: "2", errors: "2" })
    expect(root.children[0]!.children.map((c) => c.children.map((f) => `${f.name}/${f.attributes["type"]}`))).toEqual([
      ["error/error"],
      ["error/error"],
      ["failure/workflow"],
      ["failure/assertion"],
      []
    ])
  }, 60_000)
})

describe("--shard K/N", () => {
  test("the shards are disjoint, their union is the suite, and the path spelling does not matter", async () => {
    const dir = suiteCopy("shards")
    const filesOf = async (args: ReadonlyArray<string>, prefix: string) => {
      const r = await lait(["test", "--format", "json", ...args], dir)
      return (JSON.parse(r.stdout) as Array<{ file: string }>).map((o) => o.file.slice(prefix.length))
    }
    const all = await filesOf(["suite"], "suite/")
    expect(all.length).toBe(13)
    const shards = await Promise.all([1, 2, 3].map((k) => filesOf(["--shard", `${k}/3`, "suite"], "suite/")))
    expect(shards.flat().sort()).toEqual([...all].sort())
    expect(new Set(shards.flat()).size).toBe(all.length)
    // Every spelling of the same directory, from the same working directory, gives the same shards.
    const spelled = await Promise.all(shards.map((_, k) =>
      Promise.all([
        filesOf(["--shard", `${k + 1}/3`, "./suite/"], "./suite/"),
        filesOf(["--shard", `${k + 1}/3`, path.join(dir, "suite")], `${dir}/suite/`)
      ])
    ))
    for (const [k, shard] of shards.entries()) {
      expect(spelled[k]![0]).toEqual(shard)
      expect(spelled[k]![1]).toEqual(shard)
    }
    // JUnit of each shard is a valid report of its own.
    const junit = await lait(["test", "--format", "junit", "--shard", "2/3", "suite"], dir)
    validateJunit(parseXml(junit.stdout.trimEnd()))
    expect(parseXml(junit.stdout.trimEnd()).attributes["tests"]).toBe(String(shards[1]!.length))

    expect(await lait(["test", "--shard", "4/3", "suite"], dir)).toMatchObject({
      code: 2,
      stdout: "",
      stderr: "lait: invalid value '4/3' for '--shard <K/N>': expected K/N with 1 <= K <= N\n"
    })
    expect((await lait(["test", "--shard", "0/3", "suite"], dir)).code).toBe(2)
  }, 60_000)

  test("a shard that gets no file prints totals of 0 and exits 0", async () => {
    const dir = suiteCopy("empty-shard")
    const file = "suite/pass/summarize-en.yml"
    const counts = await Promise.all([1, 2].map(async (k) => (await lait(["test", "--shard", `${k}/2`, file], dir))))
    const empty = counts.find((r) => r.stdout === "0 passed, 0 failed, 0 total\n")
    const full = counts.find((r) => r.stdout !== "0 passed, 0 failed, 0 total\n")
    expect(empty).toMatchObject({ code: 0, stderr: "" })
    expect(full).toMatchObject({ code: 0, stdout: `${file}: PASS\n1 passed, 0 failed, 1 total\n` })
  }, 60_000)

  test("no request reached the model server", () => {
    expect(sentinel!.requests).toEqual([])
  })
})
