// `lait run --checkpoint/--resume` and `lait runs list|show` through the binary, against the fixture
// OpenAI server and its request log: a run whose second step fails leaves a format-2 checkpoint and
// says how to resume it; the resume asks the model only for the remaining steps and prints what a
// clean run prints; refusals; a Ctrl-C keeps the last good checkpoint; `--replay` needs no cassette
// for the steps already done.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as path from "node:path"
import { bodies, modelsYaml, outcome, prepareCli, server, stopServers, workspace } from "./model-harness.ts"
import { ensureBinary, makeTempDir } from "./util.ts"

const ws = workspace("e2e-checkpoint")
beforeAll(prepareCli, 300_000)
afterEach(stopServers)
afterAll(() => ws.remove())

let counter = 0

const workflow = (labels = ["draft", "polish", "final"]) =>
  "steps:\n" +
  `  - id: ${labels[0]}\n    prompt: 'Draft: {{ input }}'\n` +
  `  - id: ${labels[1]}\n    prompt: 'Polish: {{ input }}'\n` +
  `  - id: ${labels[2]}\n    prompt: 'Final: {{ input }} / {{ steps.${labels[0]} }}'\n`

/** A project directory whose config points model `m` at `baseUrl`, with wf.yml in it. */
const project = (baseUrl: string, wf = workflow()) => {
  const name = `p${++counter}`
  ws.write(`${name}/lait.config.yml`, `${modelsYaml({ m: [{ baseUrl, modelId: "m1" }] })}\ndefault:\n  model: m\n`)
  ws.write(`${name}/wf.yml`, wf)
  const dir = path.join(ws.dir, name)
  return {
    dir,
    write: (file: string, text: string) => ws.write(`${name}/${file}`, text),
    lait: (args: ReadonlyArray<string>) => ws.lait(args, { cwd: dir }),
    runs: () => (fs.existsSync(path.join(dir, ".lait/runs")) ? fs.readdirSync(path.join(dir, ".lait/runs")).sort() : []),
    checkpoint: (id: string) => JSON.parse(fs.readFileSync(path.join(dir, ".lait/runs", `${id}.json`), "utf8"))
  }
}

const prompts = (s: ReturnType<typeof server>) =>
  bodies(s).map((b) => (b["messages"] as Array<{ content: string }>).at(-1)!.content)

const NOTE = /^note: run checkpointed as '([^']+)'; resume with `lait run wf\.yml --resume \1`$/m

/** A server whose `Polish` requests fail with HTTP 400 (no retry) until `fix()` is called. */
const failingPolish = () => {
  const s = server({
    script: [
      { match: "Draft", content: "draft one", repeat: true },
      { match: "Polish", status: 400, body: { error: { message: "bad polish" } }, repeat: true },
      { repeat: true }
    ]
  })
  return { s, fix: () => void s.script.splice(1, 1) }
}

/** Runs a checkpointed run that fails at `polish`; returns the project and the run id. */
const failedRun = async () => {
  const { s, fix } = failingPolish()
  const p = project(s.baseUrl)
  const r = await p.lait(["run", "wf.yml", "x", "--checkpoint"])
  expect(r.code).toBe(4)
  const id = NOTE.exec(r.stderr)?.[1]
  if (id === undefined) throw new Error(`no checkpoint note in:\n${r.stderr}`)
  return { s, fix, p, id, failed: r }
}

describe("lait run --checkpoint", () => {
  test("a failed step leaves the last good state in .lait/runs/<id>.json and a note; --resume finishes it", async () => {
    const { s, fix, p, id, failed } = await failedRun()
    expect(id).toMatch(/^\d{8}-\d{6}-\d{9}-\d+-\d+$/)
    expect(failed.stderr).toContain("lait: ")
    expect(p.runs()).toEqual([`${id}.json`])
    expect(p.checkpoint(id)).toEqual({
      format: 2,
      run_id: id,
      workflow_path: "wf.yml",
      initial_input: "x",
      inputs: {},
      top_level_labels: ["draft", "polish", "final"],
      completed_index: 1,
      counter: 1,
      current_value: "draft one",
      steps_outputs: { draft: "draft one" },
      status: "failed"
    })
    expect(fs.readFileSync(path.join(p.dir, ".lait/runs", `${id}.json`), "utf8")).toStartWith('{\n  "format": 2,\n')

    const listed = await p.lait(["runs", "list"])
    expect(outcome(listed)).toEqual({ code: 0, stdout: `${id}  (failed, step 1/3, wf.yml)\n`, stderr: "" })
    const shown = await p.lait(["runs", "show", id])
    expect(outcome(shown)).toEqual({
      code: 0,
      stdout: `run_id: ${id}\nworkflow: wf.yml\nstatus: failed\ncompleted: 1/3 top-level step(s)\n` +
        "initial input: x\ncurrent value: draft one\n",
      stderr: ""
    })

    fix()
    s.requests.length = 0
    const resumed = await p.lait(["run", "wf.yml", "ignored prompt", "--resume", id])
    expect(resumed.code).toBe(0)
    expect(resumed.stderr).toBe(`==> resuming run '${id}' from step 2/3\n[2] polish\n[3] final\n`)
    // Only the remaining steps asked the model; the last one saw the recorded `steps.draft`.
    expect(prompts(s)).toEqual(["Polish: draft one", "Final: echo: Polish: draft one / draft one"])

    s.requests.length = 0
    const clean = await p.lait(["run", "wf.yml", "x"])
    expect(clean.code).toBe(0)
    expect(resumed.stdout).toBe(clean.stdout)
    expect(prompts(s)).toHaveLength(3)

    expect(p.checkpoint(id)).toMatchObject({ status: "completed", completed_index: 3, counter: 3 })
    // Written through a temp file and a rename: nothing else is left in the directory.
    expect(p.runs()).toEqual([`${id}.json`])
    expect((await p.lait(["runs", "list"])).stdout).toBe(`${id}  (completed, step 3/3, wf.yml)\n`)

    const again = await p.lait(["run", "wf.yml", "--resume", id])
    expect(outcome(again)).toEqual({
      code: 1,
      stdout: "",
      stderr: `lait: run '${id}' already completed; nothing to resume\n`
    })
  })

  test("a successful run is saved as completed; without --checkpoint nothing is saved", async () => {
    const s = server({ script: [{ repeat: true }] })
    const p = project(s.baseUrl)
    expect((await p.lait(["run", "wf.yml", "x"])).code).toBe(0)
    expect(p.runs()).toEqual([])
    const r = await p.lait(["run", "wf.yml", "x", "--checkpoint"])
    expect(r.code).toBe(0)
    expect(r.stderr).not.toContain("note:")
    const [file] = p.runs()
    expect(p.checkpoint(file!.replace(/\.json$/, ""))).toMatchObject({ status: "completed", completed_index: 3 })
  })
})

describe("lait runs", () => {
  test("list with no runs says how to start one; inputs are kept, shown and used again on resume", async () => {
    const p = project("http://127.0.0.1:9/v1", "inputs:\n  lang: string\nsteps:\n  - id: a\n    jq: '{lang: $inputs.lang}'\n" +
      "  - run: [sh, -c, 'test -f ok && cat']\n  - jq: '[fromjson, $inputs.lang]'\n")
    expect(outcome(await p.lait(["runs", "list"]))).toEqual({
      code: 0,
      stdout: "no checkpointed runs saved yet; start one with `lait run <FILE> <PROMPT> --checkpoint`\n",
      stderr: ""
    })
    const failed = await p.lait(["run", "wf.yml", "--input", "lang=ja", "--checkpoint"])
    expect(failed.code).toBe(1)
    const id = NOTE.exec(failed.stderr)![1]!
    expect((await p.lait(["runs", "show", id])).stdout).toBe(
      `run_id: ${id}\nworkflow: wf.yml\nstatus: failed\ncompleted: 1/3 top-level step(s)\n` +
        "initial input: null\ncurrent value: {\"lang\":\"ja\"}\ninputs: {\"lang\":\"ja\"}\n"
    )
    p.write("ok", "")
    const resumed = await p.lait(["run", "wf.yml", "--resume", id])
    expect(outcome(resumed)).toEqual({
      code: 0,
      stdout: "[{\"lang\":\"ja\"},\"ja\"]\n",
      stderr: `==> resuming run '${id}' from step 2/3\n[2] step-2 (run)\n[3] step-3 (jq)\n`
    })
    expect(outcome(await p.lait(["runs", "show", "nope"]))).toEqual({
      code: 1,
      stdout: "",
      stderr: "lait: no such checkpointed run 'nope'\n"
    })
  })
})

describe("lait run --resume refuses", () => {
  test("an unknown or invalid id, another workflow file, --dry-run, a format-1 checkpoint", async () => {
    const { p, id } = await failedRun()
    const refusal = async (args: ReadonlyArray<string>) => outcome(await p.lait(args))
    expect(await refusal(["run", "wf.yml", "--resume", "nope"])).toEqual({
      code: 1,
      stdout: "",
      stderr: "lait: no such checkpointed run 'nope'\n"
    })
    expect((await refusal(["run", "wf.yml", "--resume", "../wf"])).stderr).toBe(
      "lait: invalid run id '../wf'; run ids may only contain letters, digits, '_', and '-'\n"
    )
    p.write("other.yml", workflow())
    expect(await refusal(["run", "other.yml", "--resume", id])).toEqual({
      code: 1,
      stdout: "",
      stderr: `lait: run '${id}' was checkpointed against workflow 'wf.yml', not 'other.yml'; pass the same FILE to resume it\n`
    })
    // The same file under another spelling is the same workflow.
    expect((await refusal(["run", "./wf.yml", "--resume", id])).stderr).toContain(`==> resuming run '${id}'`)
    expect(await refusal(["run", "wf.yml", "--resume", id, "--dry-run"])).toEqual({
      code: 2,
      stdout: "",
      stderr: "lait: the argument '--resume <RUN_ID>' cannot be used with '--dry-run'\n"
    })
    p.write(".lait/runs/old.json", JSON.stringify({ run_id: "old", workflow_path: "wf.yml", current_input: "x" }))
    expect(await refusal(["run", "wf.yml", "--resume", "old"])).toEqual({
      code: 1,
      stdout: "",
      stderr: "lait: checkpoint file '.lait/runs/old.json' was written by an older version of lait and cannot be " +
        "resumed; start a fresh run\n"
    })
    // `runs list` names the unreadable file and still lists the others.
    const listed = await p.lait(["runs", "list"])
    expect(listed.stdout).toBe(`${id}  (failed, step 1/3, wf.yml)\n`)
    expect(listed.stderr).toContain("'.lait/runs/old.json' was written by an older version of lait")
  })

  test("a renamed step before the resume point; a rename after it is only a warning", async () => {
    const { s, fix, p, id } = await failedRun()
    fix()
    p.write("wf.yml", workflow(["first", "polish", "final"]).replace("steps.first", "steps.draft"))
    const before = await p.lait(["run", "wf.yml", "--resume", id])
    expect(before.code).toBe(1)
    expect(before.stderr).toEndWith(
      `lait: run '${id}' was checkpointed against a different sequence of top-level steps than the current workflow ` +
        "(one of the already-completed steps changed); resuming would replay recorded state into the wrong steps. " +
        "Start a fresh run instead.\n"
    )

    p.write("wf.yml", workflow(["draft", "polish", "finish"]))
    s.requests.length = 0
    const after = await p.lait(["run", "wf.yml", "--resume", id])
    expect(after.code).toBe(0)
    expect(after.stderr).toStartWith(
      `warning: the workflow's steps after step 1 differ from when run '${id}' was checkpointed; resuming anyway\n` +
        `==> resuming run '${id}' from step 2/3\n`
    )
    expect(prompts(s)).toHaveLength(2)
  })
})

describe("with --replay", () => {
  test("a resumed run needs no cassette for the steps already done", async () => {
    const s = server({ script: [{ match: "Draft", content: "draft one", repeat: true }, { repeat: true }] })
    const p = project(s.baseUrl)
    const recorded = await p.lait(["run", "wf.yml", "x", "--record", "cas"])
    expect(recorded.code).toBe(0)
    await s.stop()

    // The second step's request has no cassette while its prompt differs: the replay fails there.
    p.write("wf.yml", workflow().replace("Polish:", "Shorten:"))
    const failed = await p.lait(["run", "wf.yml", "x", "--checkpoint", "--replay", "cas"])
    expect(failed.code).toBe(1)
    const id = NOTE.exec(failed.stderr)?.[1]
    expect(id).toBeDefined()

    // Back to the recorded prompt, and without the first step's cassette: only the rest is replayed.
    p.write("wf.yml", workflow())
    const cas = path.join(p.dir, "cas")
    const draft = fs.readdirSync(cas).filter((f) => fs.readFileSync(path.join(cas, f), "utf8").includes("Draft: x"))
    expect(draft).toHaveLength(1)
    fs.rmSync(path.join(cas, draft[0]!))
    const resumed = await p.lait(["run", "wf.yml", "--resume", id!, "--replay", "cas"])
    expect(outcome(resumed)).toEqual({
      code: 0,
      stdout: recorded.stdout,
      stderr: `==> resuming run '${id}' from step 2/3\n[2] polish\n[3] final\n`
    })
  })
})

describe("Ctrl-C", () => {
  test("interrupting a step keeps the last good checkpoint and prints the note (exit 130)", async () => {
    const dir = makeTempDir("checkpoint-ctrlc")
    try {
      fs.writeFileSync(
        path.join(dir, "wf.yml"),
        "steps:\n  - id: a\n    jq: '. + \" a\"'\n  - id: wait\n    run: [sleep, '30']\n  - jq: '.'\n"
      )
      const child = Bun.spawn([await ensureBinary(), "run", "wf.yml", "x", "--checkpoint"], {
        cwd: dir,
        env: { ...process.env, NO_COLOR: "1", XDG_CONFIG_HOME: path.join(dir, "xdg") },
        stdin: "ignore",
        stdout: "pipe",
        stderr: "pipe"
      })
      const runs = path.join(dir, ".lait/runs")
      const deadline = Date.now() + 20_000
      const saved = () => fs.existsSync(runs) && fs.readdirSync(runs).some((f) => f.endsWith(".json"))
      while (!saved() && Date.now() < deadline) await Bun.sleep(50)
      await Bun.sleep(300)
      child.kill("SIGINT")
      expect(await child.exited).toBe(130)
      const stderr = await new Response(child.stderr).text()
      const [file] = fs.readdirSync(runs)
      const id = file!.replace(/\.json$/, "")
      expect(stderr).toContain(`note: run checkpointed as '${id}'; resume with \`lait run wf.yml --resume ${id}\`\n`)
      const checkpoint = JSON.parse(fs.readFileSync(path.join(runs, file!), "utf8"))
      expect(checkpoint).toMatchObject({ status: "failed", completed_index: 1, current_value: "x a" })
      expect(fs.readdirSync(runs)).toEqual([file!])
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  }, 60_000)
})
