// `lait test` and `lait eval` for CI (docs/ci.md#annotations-and-summaries): `--format github` workflow
// commands read back from stdout (unescaped as GitHub's runner does) and checked against the lines of
// the YAML they point at, the Markdown appended to GITHUB_STEP_SUMMARY, and `--format markdown`. The
// tests run the recorded fixture suite (test/fixtures/testing, no model server) and an eval against
// the fixture OpenAI server, in this process.
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as path from "node:path"
import { type OpenAiServer, startOpenAiServer } from "../fixtures/openai-server.ts"
import { makeTempDir, repoRoot, runCli } from "./util.ts"

const work = fs.realpathSync(makeTempDir("e2e-ci-annotations"))
let server: OpenAiServer | undefined
afterAll(async () => {
  await server?.stop()
  fs.rmSync(work, { recursive: true, force: true })
})

const baseEnv = (home: string): Record<string, string | undefined> => ({
  ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(OPENAI_|LAIT_|GITHUB_)/.test(k))),
  NO_COLOR: "1",
  HOME: home,
  XDG_CONFIG_HOME: path.join(home, ".config")
})

interface Command {
  readonly level: string
  readonly properties: Readonly<Record<string, string>>
  readonly message: string
}

// The inverse of @actions/core's escaping, as the runner applies it.
const unescapeData = (s: string) => s.replace(/%0D/g, "\r").replace(/%0A/g, "\n").replace(/%25/g, "%")
const unescapeProperty = (s: string) => unescapeData(s.replace(/%3A/g, ":").replace(/%2C/g, ","))

/** The workflow commands of an output; every other line is left out. */
const commandsOf = (stdout: string): Array<Command> =>
  stdout.split("\n").filter((line) => line.startsWith("::")).map((line) => {
    const match = /^::(\w+) ([^:]*)::(.*)$/.exec(line)
    if (match === null) throw new Error(`not a workflow command: ${line}`)
    const properties = Object.fromEntries(match[2]!.split(",").map((p) => {
      const eq = p.indexOf("=")
      return [p.slice(0, eq), unescapeProperty(p.slice(eq + 1))]
    }))
    return { level: match[1]!, properties, message: unescapeData(match[3]!) }
  })

/** 1-based lines of `text` that start with `prefix`, in order. */
const linesStarting = (text: string, prefix: string): Array<number> =>
  text.split("\n").flatMap((line, i) => (line.startsWith(prefix) ? [i + 1] : []))

describe("lait test", () => {
  const dir = path.join(work, "repo", "checkout")
  const home = path.join(work, "home")
  beforeAll(() => {
    fs.mkdirSync(home, { recursive: true })
    fs.cpSync(path.join(repoRoot, "test/fixtures/testing"), dir, { recursive: true })
    // A name with the characters a property must escape.
    fs.copyFileSync(path.join(dir, "suite/fail/cost.yml"), path.join(dir, "suite/fail/cost,50%.yml"))
  })

  test("--format github: the text report, then an ::error per failure at its line; the summary appended", async () => {
    const summary = path.join(work, "summary.md")
    fs.writeFileSync(summary, "# earlier step\n")
    const r = await runCli(["--no-env", "test", "suite", "--format", "github"], {
      cwd: dir,
      env: { ...baseEnv(home), GITHUB_STEP_SUMMARY: summary, GITHUB_WORKSPACE: path.join(work, "repo") },
      timeoutMs: 60_000
    })
    expect(r.code).toBe(1)
    expect(r.stderr).toBe("lait: 4 of 14 test file(s) failed and 5 could not run\n")
    // The usual text report comes first, whole.
    const text = r.stdout.split("\n").filter((line) => !line.startsWith("::")).join("\n")
    expect(text).toContain("suite/fail/messages.yml: FAIL\n  assertion 1: expected output to equal \"Summary\"")
    expect(text).toEndWith("5 passed, 4 failed, 5 errors, 14 total\n")

    const commands = commandsOf(r.stdout)
    expect(commands.every((c) => c.level === "error")).toBe(true)
    // Paths relative to GITHUB_WORKSPACE, one level above where lait ran.
    const inFile = (name: string) => commands.filter((c) => c.properties["file"] === `checkout/${name}`)
    const messages = inFile("suite/fail/messages.yml")
    const messagesText = fs.readFileSync(path.join(dir, "suite/fail/messages.yml"), "utf8")
    // Each assertion failure points at its own `- type:` item under `assert:` (not nested ones); the
    // tenth assertion holds.
    expect(messages.map((c) => Number(c.properties["line"]))).toEqual(
      linesStarting(messagesText, "  - type:").slice(0, 9)
    )
    expect(messages.map((c) => c.properties["title"])).toEqual(
      [1, 2, 3, 4, 5, 6, 7, 8, 9].map((k) => `suite/fail/messages.yml: assertion ${k}`)
    )
    expect(messages[0]!.message).toBe(
      "assertion 1: expected output to equal \"Summary\", got \"Summary: lait tests workflows offline by replaying recorded answers.\""
    )
    // A reason of several lines is one line.
    const tools = inFile("suite/fail/tools.yml")
    expect(tools[2]!.message).toBe(
      "assertion 3: no call to tool 'tool__word_count' had arguments satisfying `.text == \"something else\"`; " +
        "the arguments of its 1 call(s): {\"text\":\"alpha beta gamma\"}"
    )
    // Escaped properties read back as the file's real name.
    const odd = inFile("suite/fail/cost,50%.yml")
    expect(odd).toHaveLength(1)
    expect(odd[0]!.properties).toMatchObject({ line: "8", title: "suite/fail/cost,50%.yml: assertion 1" })
    expect(odd[0]!.message).toBe("assertion 1: cost $0.0004 exceeded max_cost_usd $0.0001")
    // A test definition that does not parse: the line its error names.
    expect(inFile("suite/fail/bad-definition.yml")).toEqual([{
      level: "error",
      properties: { file: "checkout/suite/fail/bad-definition.yml", line: "3", title: "suite/fail/bad-definition.yml: ERROR" },
      message: expect.stringContaining("unknown key 'vars'") as unknown as string
    }])
    // A workflow that could not load: the test file's `workflow:` line.
    const missing = inFile("suite/fail/missing-workflow.yml")
    const missingText = fs.readFileSync(path.join(dir, "suite/fail/missing-workflow.yml"), "utf8")
    expect(missing.map((c) => c.properties["line"])).toEqual([String(linesStarting(missingText, "workflow:")[0])])
    // A request no cassette answers: the model step of the workflow (it says which), not the test file.
    const summarizeText = fs.readFileSync(path.join(dir, "workflows/summarize.yml"), "utf8")
    expect(commands.find((c) => c.properties["title"] === "suite/fail/replay-miss.yml: ERROR")!.properties).toEqual({
      file: "checkout/workflows/summarize.yml",
      line: String(linesStarting(summarizeText, "  - id: summary")[0]),
      title: "suite/fail/replay-miss.yml: ERROR"
    })
    // One command per reason of every file that did not pass, none for those that did.
    expect(commands).toHaveLength(9 + 4 + 2 + 5)
    expect(commands.some((c) => c.properties["file"]!.includes("/pass/"))).toBe(false)

    const md = fs.readFileSync(summary, "utf8")
    expect(md).toStartWith("# earlier step\n## lait test\n\n**❌ failed**: 5 passed, 4 failed, 5 errors, 14 total\n")
    expect(md).toContain("| Test file | Result | Reason |\n| --- | --- | --- |\n")
    expect(md).toContain("| suite/fail/cost.yml | FAIL | assertion 1: cost $0.0004 exceeded max_cost_usd $0.0001 |\n")
    // Several reasons share one cell; the JSON under a reason stays in it.
    expect(md).toContain("the arguments of its 1 call(s):<br>  {\"text\":\"alpha beta gamma\"}<br>assertion 4:")
    expect(md).not.toContain("suite/pass/")
  }, 60_000)

  test("a step that fails points at its line in its workflow, a child workflow's own file for its steps", async () => {
    const steps = path.join(work, "steps")
    fs.mkdirSync(path.join(steps, "recordings"), { recursive: true })
    const write = (name: string, lines: ReadonlyArray<string>) => fs.writeFileSync(path.join(steps, name), lines.join("\n"))
    write("parent.yml", ["name: parent", "steps:", "  - jq: '.'", "  - group:", "      - jq: '.'", "      - workflow: child.yml", ""])
    write("child.yml", ["name: child", "steps:", "  - id: fine", "    jq: '.'", "  - id: boom", "    run: [sh, -c, 'exit 3']", ""])
    write("parent.test.yml", ["workflow: parent.yml", "input: hi", "replay: recordings", ""])
    write("child.test.yml", ["workflow: child.yml", "input: hi", "replay: recordings", ""])
    const r = await runCli(["--no-env", "test", ".", "--format", "github"], { cwd: steps, env: baseEnv(home), timeoutMs: 60_000 })
    expect(r.code).toBe(1)
    expect(commandsOf(r.stdout).map((c) => [c.properties, c.message])).toEqual([
      [
        { file: "child.yml", line: "5", title: "./child.test.yml: FAIL" },
        "workflow './child.yml': step 'boom': command 'sh' exited with exit status: 3:"
      ],
      // Not the calling step's line in parent.yml: the step that failed is in child.yml.
      [
        { file: "child.yml", line: "5", title: "./parent.test.yml: FAIL" },
        "workflow './parent.yml': step 'step-2.2 (workflow)': step 'boom': command 'sh' exited with exit status: 3:"
      ]
    ])
  }, 60_000)

  test("--format markdown prints the summary; a passing suite's summary says so", async () => {
    const r = await runCli(["--no-env", "test", "suite", "--format", "markdown"], {
      cwd: dir,
      env: baseEnv(home),
      timeoutMs: 60_000
    })
    expect(r.code).toBe(1)
    expect(r.stdout).toStartWith("## lait test\n\n**❌ failed**: 5 passed, 4 failed, 5 errors, 14 total\n\n| Test file |")
    expect(r.stdout).not.toContain("::error")
    const summary = path.join(work, "pass-summary.md")
    const pass = await runCli(["--no-env", "test", "suite/pass", "--format", "github"], {
      cwd: dir,
      env: { ...baseEnv(home), GITHUB_STEP_SUMMARY: summary },
      timeoutMs: 60_000
    })
    expect(pass.code).toBe(0)
    expect(commandsOf(pass.stdout)).toEqual([])
    expect(fs.readFileSync(summary, "utf8")).toBe("## lait test\n\n**✅ all passed**: 5 passed, 0 failed, 0 errors, 5 total\n\n")
    // A summary that cannot be written is a warning; the results and the exit code stay.
    const unwritable = await runCli(["--no-env", "test", "suite/pass"], {
      cwd: dir,
      env: { ...baseEnv(home), GITHUB_STEP_SUMMARY: work },
      timeoutMs: 60_000
    })
    expect(unwritable.code).toBe(0)
    expect(unwritable.stdout).toEndWith("5 passed, 0 failed, 5 total\n")
    expect(unwritable.stderr).toStartWith(`warning: could not append to GITHUB_STEP_SUMMARY '${work}': `)
  }, 60_000)
})

describe("lait eval", () => {
  const dir = path.join(work, "eval")
  const EVAL = [
    "target: { model: m, prompt: '{{input}}' }",
    "default_assert:",
    "  - type: contains",
    "    value: PASS",
    "cases:",
    "  - name: always",
    "    input: alphaword",
    "  - name: sometimes",
    "    input: betaword",
    "    assert:",
    "      - type: contains",
    "        value: betaword",
    "  - name: never",
    "    input: gammaword",
    "    assert:",
    "      - type: equals",
    "        value: gammaword PASS",
    "  - name: broken",
    "    input: deltaword",
    ""
  ].join("\n")
  // 4 of 4 passed before: `never` (now 0 of 4) regressed, p = 2/70.
  const BASELINE = {
    version: 1,
    kind: "lait-eval-baseline",
    repeat: 4,
    cases: ["always", "sometimes", "never"].map((name, i) => ({
      case: i + 1,
      name,
      input: `${["alpha", "beta", "gamma"][i]}word`,
      passed: 4,
      total: 4,
      errors: 0
    }))
  }

  /** A server for one eval: `sometimes` passes its first run only, `broken` is refused (400). */
  const serve = () => {
    server = startOpenAiServer({
      script: [
        { match: "alphaword", content: "alphaword PASS", repeat: true },
        { match: "betaword", content: "betaword PASS" },
        { match: "betaword", content: "betaword fail", repeat: true },
        { match: "gammaword", content: "gammaword nope", repeat: true },
        { match: "deltaword", status: 400, body: { error: { message: "bad request" } }, repeat: true }
      ]
    })
    fs.writeFileSync(
      path.join(dir, "lait.config.yml"),
      `models:\n  m:\n    - provider: { base_url: '${server.baseUrl}' }\n      model_id: target-model\n`
    )
  }

  const lait = async (args: ReadonlyArray<string>, env: Record<string, string> = {}) => {
    await server?.stop()
    serve()
    return runCli(["--no-env", "eval", ...args], { cwd: dir, env: { ...baseEnv(dir), ...env }, timeoutMs: 60_000 })
  }

  beforeAll(() => {
    fs.mkdirSync(dir, { recursive: true })
    fs.writeFileSync(path.join(dir, "eval.yml"), EVAL)
    fs.writeFileSync(path.join(dir, "base.json"), JSON.stringify(BASELINE))
  })

  const RUN = ["eval.yml", "--repeat", "4", "-j", "1", "--baseline", "base.json"]

  test("--format github: an ::error per failing case at its failing assertion, per regression; the summary", async () => {
    const summary = path.join(work, "eval-summary.md")
    const r = await lait([...RUN, "--format", "github"], { GITHUB_STEP_SUMMARY: summary })
    expect(r.stderr).toEndWith("lait: one or more eval cases did not fully pass\n")
    expect(r.code).toBe(1)
    // The text report, as without --format.
    expect(r.stdout).toStartWith("always: 4/4 (100%) PASS\nsometimes: 1/4 (25%) FAIL\n")
    expect(r.stdout).toContain("compared with baseline 'base.json'")
    const commands = commandsOf(r.stdout)
    expect(commands.map((c) => [c.level, c.properties])).toEqual([
      // `sometimes` fails `default_assert:`'s item (its assertion 2), `never` its own first one.
      ["error", { file: "eval.yml", line: "3", title: "sometimes" }],
      ["error", { file: "eval.yml", line: "16", title: "never" }],
      ["error", { file: "eval.yml", line: "18", title: "broken" }],
      ["error", { file: "eval.yml", line: "13", title: "never regressed" }]
    ])
    expect(commands[0]!.message).toBe(
      "flaky: 1/4 runs passed (25%): run 2: assertion 2: expected output to contain \"PASS\", got \"betaword fail\""
    )
    expect(commands[1]!.message).toStartWith(
      "stable-fail: 0/4 runs passed (0%): run 1: assertion 1: expected output to equal \"gammaword PASS\""
    )
    expect(commands[2]!.message).toStartWith("4 run(s) could not run: run 1: ")
    expect(commands[2]!.message).toContain("bad request")
    expect(commands[3]!.message).toBe("regressed against baseline 'base.json': 4/4 (100%) -> 0/4 (0%) (p=0.0286)")

    const md = fs.readFileSync(summary, "utf8")
    expect(md).toStartWith("## lait eval `eval.yml`\n\n**❌ failed: one or more eval cases did not fully pass**\n\n")
    expect(md).toContain(
      [
        "| Case | Passed | pass@1 | Label | 95% CI |",
        "| --- | --- | --- | --- | --- |",
        "| always | 4/4 (100%) | 1.00 | stable-pass | [0.51, 1.00] |",
        "| sometimes | 1/4 (25%) | 0.25 | flaky | [0.05, 0.70] |",
        "| never | 0/4 (0%) | 0.00 | stable-fail | [0.00, 0.49] |",
        "| broken | 0/0 |  | error |  |"
      ].join("\n")
    )
    expect(md).toContain("| sometimes | 2 | assertion 2: expected output to contain \"PASS\", got \"betaword fail\" |")
    expect(md).toContain("| never | 4/4 (100%) | 0/4 (0%) | p=0.0286 | regressed |")
    expect(md).toContain("| broken |  | 0/0 (0%) |  | new |")
    expect(md).toContain("**Regressed**: 1 case(s) regressed significantly.")

    // `--format markdown` prints the same Markdown (each run has a server of its own, on its own port).
    const printed = await lait([...RUN, "--format", "markdown"])
    expect(printed.code).toBe(1)
    const port = (text: string) => text.replace(/127\.0\.0\.1:\d+/g, "127.0.0.1:PORT")
    expect(port(`${printed.stdout}\n`)).toBe(port(md))
  }, 60_000)

  test("lait eval merge --format github points at the eval file its shards ran", async () => {
    for (const k of [1, 2]) {
      const shard = await lait(["eval.yml", "--repeat", "4", "-j", "1", "--shard", `${k}/2`, "--format", "json", "-o", `s${k}.json`])
      expect(shard.code).not.toBe(0)
    }
    const r = await lait(["merge", "s1.json", "s2.json", "--format", "github"])
    expect(r.code).toBe(1)
    expect(commandsOf(r.stdout).map((c) => [c.level, c.properties])).toEqual([
      ["error", { file: "eval.yml", line: "3", title: "sometimes" }],
      ["error", { file: "eval.yml", line: "16", title: "never" }],
      ["error", { file: "eval.yml", line: "18", title: "broken" }]
    ])
  }, 60_000)

  test("a flaky case --min-pass-rate accepts is a warning; cases from a JSONL file point at its lines", async () => {
    const accepted = await lait(["eval.yml", "--repeat", "4", "-j", "1", "--min-pass-rate", "0.25", "--format", "github"])
    expect(commandsOf(accepted.stdout).filter((c) => c.properties["title"] === "sometimes")).toEqual([{
      level: "warning",
      properties: { file: "eval.yml", line: "3", title: "sometimes" },
      message: "flaky, accepted by --min-pass-rate: 1/4 runs passed (25%): run 2: assertion 2: " +
        "expected output to contain \"PASS\", got \"betaword fail\""
    }])
    fs.mkdirSync(path.join(dir, "cases"), { recursive: true })
    fs.writeFileSync(
      path.join(dir, "cases/all.jsonl"),
      "{\"input\": \"alphaword\"}\n\n{\"input\": \"gammaword\", \"assert\": [{\"type\": \"contains\", \"value\": \"x\"}]}\n"
    )
    fs.writeFileSync(
      path.join(dir, "file.eval.yml"),
      "target: { model: m, prompt: '{{input}}' }\ndefault_assert:\n  - type: contains\n    value: PASS\n" +
        "cases: { file: cases/all.jsonl }\n"
    )
    const r = await lait(["file.eval.yml", "--format", "github"])
    expect(r.code).toBe(1)
    // Its own assertion: its line in the cases file.
    expect(commandsOf(r.stdout)).toEqual([{
      level: "error",
      properties: { file: "cases/all.jsonl", line: "3", title: "case 2" },
      message: "stable-fail: 0/1 runs passed (0%): run 1: assertion 1: expected output to contain \"x\", " +
        "got \"gammaword nope\""
    }])
  }, 60_000)
})
