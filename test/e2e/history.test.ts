// `lait history` as a user meets it, from the compiled binary: `lait run` appends each successful run
// (after its output), `--no-history` and `default.history: false` skip it, failed runs are not history,
// `history` lists, `show N` prints one, `search` finds, the file survives a bad line and twenty
// parallel writers, and the API key never reaches it.
import { afterAll, afterEach, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test"
import * as fs from "node:fs"
import * as path from "node:path"
import { modelsYaml, prepareCli, server, stopServers, workspace } from "./model-harness.ts"
import { repoRoot } from "./util.ts"

// Each test runs lait several times: 6 s under load where 5 s (bun's default) was the bound.
setDefaultTimeout(60_000)
const ws = workspace("e2e-history")
beforeAll(prepareCli, 300_000)
afterEach(stopServers)
afterAll(() => ws.remove())

let counter = 0
/** A fresh directory with its own history file, and lait running there with XDG_DATA_HOME set to it. */
const fresh = (name: string) => {
  const dir = path.join(ws.dir, `${name}-${++counter}`)
  fs.mkdirSync(dir, { recursive: true })
  const data = path.join(dir, "data")
  const file = path.join(data, "lait", "history.jsonl")
  return {
    dir,
    file,
    lines: (): Array<Record<string, unknown>> =>
      fs.existsSync(file)
        ? fs.readFileSync(file, "utf8").split("\n").filter((l) => l !== "").map((l) => JSON.parse(l))
        : [],
    lait: (args: ReadonlyArray<string>, env: Readonly<Record<string, string | undefined>> = {}, stdin?: string) =>
      ws.lait(args, { cwd: dir, env: { XDG_DATA_HOME: data, ...env }, ...(stdin === undefined ? {} : { stdin }) })
  }
}

const jqWorkflow = "steps:\n  - jq: '\"Hello, \\(.)!\"'\n"

const modelWorkflow = (baseUrl: string) =>
  `${modelsYaml({ m: [{ baseUrl, modelId: "fixture-model" }] })}
default:
  model: m
steps:
  - id: answer
    prompt: 'Summarize: {{ input }}'
`

describe("lait run records the run", () => {
  test("twice: listed newest first with numbers, show N, search, --json; the file holds the original's fields", async () => {
    const h = fresh("basic")
    const s = server({
      script: [
        { content: "Rust is fast.", usage: { prompt_tokens: 11, completion_tokens: 4 } },
        { content: "Tea is green.", usage: { prompt_tokens: 7, completion_tokens: 3 } }
      ]
    })
    fs.writeFileSync(path.join(h.dir, "wf.yml"), modelWorkflow(s.baseUrl))
    const first = await h.lait(["run", "wf.yml", "explain Rust"])
    expect({ code: first.code, stdout: first.stdout }).toEqual({ code: 0, stdout: "Rust is fast.\n" })
    expect((await h.lait(["run", "wf.yml", "about\n  tea"])).code).toBe(0)

    const lines = h.lines()
    expect(lines.map((l) => Object.keys(l))).toEqual([
      ["timestamp", "kind", "model", "prompt", "response", "usage", "workflow"],
      ["timestamp", "kind", "model", "prompt", "response", "usage", "workflow"]
    ])
    expect(lines[0]).toMatchObject({
      kind: "workflow",
      model: null,
      prompt: "explain Rust",
      response: "Rust is fast.",
      usage: { prompt_tokens: 11, completion_tokens: 4, total_tokens: 15 },
      workflow: path.join(h.dir, "wf.yml")
    })
    expect(String(lines[0]!["timestamp"])).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$/)
    const [t1, t2] = lines.map((l) => String(l["timestamp"]))

    const list = await h.lait(["history"])
    expect({ code: list.code, stdout: list.stdout, stderr: list.stderr }).toEqual({
      code: 0,
      stdout: `1\t${t2}\tworkflow\t-\tabout tea\n2\t${t1}\tworkflow\t-\texplain Rust\n`,
      stderr: ""
    })
    expect((await h.lait(["history", "-l", "1"])).stdout).toBe(`1\t${t2}\tworkflow\t-\tabout tea\n`)

    const show = await h.lait(["history", "show", "2"])
    expect({ code: show.code, stdout: show.stdout }).toEqual({
      code: 0,
      stdout: `timestamp: ${t1}\nkind: workflow\nworkflow: ${path.join(h.dir, "wf.yml")}\n` +
        "usage: prompt=11 completion=4 total=15\n\nprompt:\nexplain Rust\n\nresponse:\nRust is fast.\n"
    })
    const shown = JSON.parse((await h.lait(["history", "show", "1", "--json"])).stdout)
    expect(shown).toMatchObject({ number: 1, prompt: "about\n  tea", response: "Tea is green." })

    expect((await h.lait(["history", "search", "GREEN"])).stdout).toBe(`1\t${t2}\tworkflow\t-\tabout tea\n`)
    const none = await h.lait(["history", "search", "coffee"])
    expect({ code: none.code, stdout: none.stdout }).toEqual({ code: 0, stdout: "no history entries match 'coffee'\n" })

    const json = JSON.parse((await h.lait(["history", "--json"])).stdout) as Array<Record<string, unknown>>
    expect(json.map((e) => [e["number"], e["prompt"]])).toEqual([[1, "about\n  tea"], [2, "explain Rust"]])
    // Filters on either side of `search`; numbers stay those of the whole history.
    for (const args of [["history", "--kind", "workflow", "search", "rust"], ["history", "search", "rust", "--json"]]) {
      const r = await h.lait(args)
      expect(r.code).toBe(0)
      expect(r.stdout.startsWith("2\t") || r.stdout.includes("\"number\": 2")).toBe(true)
    }
    expect((await h.lait(["history", "--kind", "chat"])).stdout).toBe("no history recorded yet\n")
    expect((await h.lait(["history", "--model", "fixture"])).stdout).toBe("no history recorded yet\n")
    expect((await h.lait(["history", "--since", "2999-01-01"])).stdout).toBe("no history recorded yet\n")
    expect((await h.lait(["history", "--since", "1h"])).stdout.split("\n").length).toBe(3)
  })

  test("nothing is recorded with --no-history, with default.history: false, or for a failed run", async () => {
    const h = fresh("skip")
    fs.writeFileSync(path.join(h.dir, "wf.yml"), jqWorkflow)
    expect((await h.lait(["run", "wf.yml", "Ada", "--no-history"])).code).toBe(0)
    expect(fs.existsSync(h.file)).toBe(false)

    fs.writeFileSync(path.join(h.dir, "lait.config.yml"), "default:\n  history: false\n")
    const off = await h.lait(["run", "wf.yml", "Ada"])
    expect({ code: off.code, stdout: off.stdout }).toEqual({ code: 0, stdout: "Hello, Ada!\n" })
    expect(fs.existsSync(h.file)).toBe(false)
    fs.rmSync(path.join(h.dir, "lait.config.yml"))

    fs.writeFileSync(path.join(h.dir, "bad.yml"), "steps:\n  - jq: 'error(\"boom\")'\n")
    expect((await h.lait(["run", "bad.yml", "Ada"])).code).toBe(1)
    const unwritable = await h.lait(["run", "wf.yml", "Ada", "-o", path.join(h.dir, "missing", "out.txt")])
    expect(unwritable.code).toBe(1)
    expect(fs.existsSync(h.file)).toBe(false)

    expect((await h.lait(["run", "wf.yml", "Ada"])).code).toBe(0)
    expect(h.lines().map((l) => l["response"])).toEqual(["Hello, Ada!"])
  })

  test("lait test runs are not history", async () => {
    const h = fresh("test-cmd")
    const r = await h.lait(["test", path.join(repoRoot, "examples", "tests", "cases")])
    expect(r.code).toBe(0)
    expect(fs.existsSync(h.file)).toBe(false)
  })
})

describe("the history file", () => {
  test("twenty parallel runs with large prompts append twenty whole lines", async () => {
    const h = fresh("parallel")
    fs.writeFileSync(path.join(h.dir, "wf.yml"), jqWorkflow)
    // 200 KB each (piped: too long for an argument): far past any pipe or page size, so a split write would show.
    const prompts = Array.from({ length: 20 }, (_, i) => `run-${i}-${String(i % 10).repeat(200_000)}`)
    const runs = await Promise.all(prompts.map((p) => h.lait(["run", "wf.yml", "-"], {}, p)))
    expect(runs.map((r) => r.code)).toEqual(prompts.map(() => 0))
    const text = fs.readFileSync(h.file, "utf8")
    expect(text.endsWith("\n")).toBe(true)
    const lines = h.lines()
    expect(lines.map((l) => l["prompt"]).sort()).toEqual([...prompts].sort())
    expect(lines.every((l) => l["response"] === `Hello, ${l["prompt"]}!`)).toBe(true)
    const listed = await h.lait(["history", "-l", "50"])
    expect({ code: listed.code, lines: listed.stdout.trimEnd().split("\n").length, stderr: listed.stderr })
      .toEqual({ code: 0, lines: 20, stderr: "" })
  }, 120_000)

  test("a line that is not an entry is skipped with a warning; the others are listed and numbered", async () => {
    const h = fresh("corrupt")
    fs.writeFileSync(path.join(h.dir, "wf.yml"), jqWorkflow)
    expect((await h.lait(["run", "wf.yml", "Ada"])).code).toBe(0)
    fs.appendFileSync(h.file, "{\"timestamp\":\"2026-09-04T10:2\nnot json at all\n")
    expect((await h.lait(["run", "wf.yml", "Bob"])).code).toBe(0)
    const r = await h.lait(["history"])
    expect(r.code).toBe(0)
    expect(r.stdout.trimEnd().split("\n").map((l) => `${l.split("\t")[0]}:${l.split("\t")[4]}`)).toEqual(
      ["1:Bob", "2:Ada"]
    )
    expect(r.stderr).toBe(
      `warning: skipping line 2 of '${h.file}': not valid JSON\n` +
        `warning: skipping line 3 of '${h.file}': not valid JSON\n`
    )
    expect((await h.lait(["history", "show", "2"])).stdout).toContain("response:\nHello, Ada!\n")
  })

  test("lives under $HOME/.local/share/lait without XDG_DATA_HOME; without either, runs warn and still succeed", async () => {
    const h = fresh("home")
    fs.writeFileSync(path.join(h.dir, "wf.yml"), jqWorkflow)
    expect((await h.lait(["run", "wf.yml", "Ada"], { XDG_DATA_HOME: undefined, HOME: h.dir })).code).toBe(0)
    expect(fs.existsSync(path.join(h.dir, ".local", "share", "lait", "history.jsonl"))).toBe(true)
    expect((fs.statSync(path.join(h.dir, ".local", "share", "lait", "history.jsonl")).mode & 0o777)).toBe(0o600)

    const homeless = await h.lait(["run", "wf.yml", "Ada"], { XDG_DATA_HOME: undefined, HOME: undefined })
    expect({ code: homeless.code, stdout: homeless.stdout, warning: homeless.stderr.split("\n").at(-2) }).toEqual({
      code: 0,
      stdout: "Hello, Ada!\n",
      warning: "warning: failed to record the run in the history: failed to determine the home directory " +
        "(HOME/USERPROFILE is not set) to locate the history file"
    })
    const list = await h.lait(["history"], { XDG_DATA_HOME: undefined, HOME: undefined })
    expect({ code: list.code, stderr: list.stderr }).toEqual({
      code: 1,
      stderr: "lait: failed to determine the home directory (HOME/USERPROFILE is not set) to locate the history file\n"
    })
  })

  test("a history that cannot be written warns after the output; the run still succeeds", async () => {
    const h = fresh("unwritable")
    fs.writeFileSync(path.join(h.dir, "wf.yml"), jqWorkflow)
    fs.writeFileSync(path.join(h.dir, "a-file"), "")
    const r = await h.lait(["run", "wf.yml", "Ada"], { XDG_DATA_HOME: path.join(h.dir, "a-file") })
    expect({ code: r.code, stdout: r.stdout, warning: r.stderr.split("\n").at(-2) }).toEqual({
      code: 0,
      stdout: "Hello, Ada!\n",
      warning: `warning: failed to record the run in the history: failed to write to '${
        path.join(h.dir, "a-file", "lait", "history.jsonl")
      }': a component of the path is not a directory`
    })
  })

  test("a history file that is a symbolic link is neither appended to nor read through", async () => {
    const h = fresh("symlink")
    fs.writeFileSync(path.join(h.dir, "wf.yml"), jqWorkflow)
    const target = path.join(h.dir, "elsewhere.jsonl")
    fs.writeFileSync(target, "")
    fs.mkdirSync(path.dirname(h.file), { recursive: true })
    fs.symlinkSync(target, h.file)
    const refusal = `'${h.file}': refusing to follow symbolic link '${h.file}'`
    const r = await h.lait(["run", "wf.yml", "Ada"])
    expect({ code: r.code, stdout: r.stdout, warning: r.stderr.split("\n").at(-2) }).toEqual({
      code: 0,
      stdout: "Hello, Ada!\n",
      warning: `warning: failed to record the run in the history: failed to write to ${refusal}`
    })
    expect(await h.lait(["history"])).toMatchObject({ code: 1, stdout: "", stderr: `lait: failed to read ${refusal}\n` })
    expect(fs.readFileSync(target, "utf8")).toBe("")
    expect(fs.lstatSync(h.file).isSymbolicLink()).toBe(true)
  })

  test("usage errors: show 0, a bad --since, --limit 0", async () => {
    const h = fresh("usage")
    const cases: Array<[Array<string>, string]> = [
      [["history", "show", "0"], "lait: history index must be at least 1\n"],
      [["history", "--since", "yesterday"], "lait: invalid --since 'yesterday'; expected a date (2026-09-01), an RFC 3339 timestamp, or a duration like 30m/12h/7d/2w\n"],
      [["history", "-l", "0"], "lait: invalid value '0' for '--limit <N>': expected at least 1\n"]
    ]
    for (const [args, stderr] of cases) {
      const r = await h.lait(args)
      expect({ args, code: r.code, stderr: r.stderr }).toEqual({ args, code: 2, stderr })
    }
    const missing = await h.lait(["history", "show", "3"])
    expect({ code: missing.code, stderr: missing.stderr }).toEqual({ code: 1, stderr: "lait: no history entry numbered 3\n" })
    const empty = await h.lait(["history"])
    expect({ code: empty.code, stdout: empty.stdout }).toEqual({ code: 0, stdout: "no history recorded yet\n" })
    expect((await h.lait(["history", "--json"])).stdout).toBe("[]\n")
  })
})

describe("secrets", () => {
  const SECRET = `sk-test-HISTORY-${crypto.randomUUID()}`
  test("the API key (env, config or api_key_cmd) in a prompt or an answer is masked before it reaches the file", async () => {
    const h = fresh("secret")
    const s = server({ script: [{ content: `the key is ${SECRET} ok`, repeat: true }] })
    fs.writeFileSync(path.join(h.dir, "wf.yml"), modelWorkflow(s.baseUrl))
    const viaEnv = await h.lait(["run", "wf.yml", `my key: ${SECRET}`], { OPENAI_API_KEY: SECRET })
    expect(viaEnv.code).toBe(0)
    // The run's own output is the user's; only the stored copy is masked.
    expect(viaEnv.stdout).toBe(`the key is ${SECRET} ok\n`)
    fs.writeFileSync(path.join(h.dir, "lait.config.yml"), "api_key: ${HISTORY_KEY}\n")
    expect((await h.lait(["run", "wf.yml", "x"], { HISTORY_KEY: SECRET })).code).toBe(0)
    // A key only a command knows: nothing in the config or the environment spells it.
    const script = path.join(h.dir, "key.sh")
    fs.writeFileSync(script, `#!/bin/sh\necho '${SECRET}'\n`, { mode: 0o755 })
    fs.writeFileSync(path.join(h.dir, "lait.config.yml"), `api_key_cmd: ['${script}']\n`)
    expect((await h.lait(["run", "wf.yml", "y"])).code).toBe(0)
    expect(s.requests.map((r) => r.headers["authorization"])).toEqual(Array(3).fill(`Bearer ${SECRET}`))

    const text = fs.readFileSync(h.file, "utf8")
    expect(text.includes(SECRET)).toBe(false)
    expect(h.lines().map((l) => [l["prompt"], l["response"]])).toEqual([
      ["my key: <redacted>", "the key is <redacted> ok"],
      ["x", "the key is <redacted> ok"],
      ["y", "the key is <redacted> ok"]
    ])
  })
})

describe("chat, named prompts and agents record their runs too", () => {
  test("one-shot chat (kind chat), prompt run (kind prompt), agent run (kind agent); --no-history skips each", async () => {
    const h = fresh("kinds")
    const s = server({
      script: [
        { content: "chat answer", usage: { prompt_tokens: 3, completion_tokens: 2 } },
        { content: "prompt answer", usage: null },
        { content: "agent answer", usage: null },
        { content: "not recorded", repeat: true }
      ]
    })
    fs.writeFileSync(
      path.join(h.dir, "lait.config.yml"),
      `${modelsYaml({ m: [{ baseUrl: s.baseUrl, modelId: "fixture-model" }] })}
default:
  model: m
prompts:
  greet:
    template: 'Say hello to {{ input }}'
`
    )
    fs.writeFileSync(path.join(h.dir, "helper.md"), "---\nname: helper\nmodel: m\n---\nYou help with {{ input }}.\n")
    expect((await h.lait(["--model", "m", "hi there"])).stdout).toBe("chat answer\n")
    expect((await h.lait(["prompt", "run", "greet", "Ada"])).stdout).toBe("prompt answer\n")
    expect((await h.lait(["agent", "run", "helper.md", "tea"])).stdout).toBe("agent answer\n")
    for (const args of [["--no-history", "again"], ["prompt", "run", "greet", "Bob", "--no-history"], ["agent", "run", "helper.md", "x", "--no-history"]]) {
      const r = await h.lait(args)
      expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 0, stdout: "not recorded\n" })
    }
    expect(h.lines().map((l) => [l["kind"], l["model"], l["prompt"], l["response"], l["usage"]])).toEqual([
      ["chat", "m", "hi there", "chat answer", { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 }],
      ["prompt", "m", "Say hello to Ada", "prompt answer", null],
      ["agent", "m", "tea", "agent answer", null]
    ])
  })
})
