// What a checkpointed run must survive (docs/checkpoints.md), through the binary: a deep structured
// answer is stored compactly and resumes; a checkpoint lait could not read back is never written,
// only warned about, and the run's own result stands; a checkpoint whose steps are all done resumes
// only the output; two resumes of one run cannot both run, a Ctrl-C releases the lock, and a lock
// left by a process that is gone is taken over.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as path from "node:path"
import { cleanEnv, outcome, prepareCli, server, stopServers, workspace } from "./model-harness.ts"
import { ensureBinary } from "./util.ts"

const ws = workspace("e2e-checkpoint-safety")
beforeAll(prepareCli, 300_000)
afterEach(stopServers)
afterAll(() => ws.remove())

let counter = 0

const project = (files: Readonly<Record<string, string>>) => {
  const name = `p${++counter}`
  for (const [file, text] of Object.entries(files)) ws.write(`${name}/${file}`, text)
  const dir = path.join(ws.dir, name)
  const runs = path.join(dir, ".lait/runs")
  return {
    dir,
    touch: (file: string) => fs.writeFileSync(path.join(dir, file), ""),
    lait: (args: ReadonlyArray<string>) => ws.lait(args, { cwd: dir }),
    runs: () => (fs.existsSync(runs) ? fs.readdirSync(runs).sort() : []),
    file: (id: string) => path.join(runs, `${id}.json`),
    lock: (id: string) => path.join(runs, `${id}.lock`)
  }
}

const NOTE = /^note: run checkpointed as '([^']+)'; resume with `lait run wf\.yml --resume \1`$/m

const noteId = (stderr: string): string => {
  const id = NOTE.exec(stderr)?.[1]
  if (id === undefined) throw new Error(`no checkpoint note in:\n${stderr}`)
  return id
}

const nested = (levels: number) => "[".repeat(levels) + "]".repeat(levels)

describe("deep values", () => {
  // The answer `{"a": [[...]]}` nests `levels` deep in all.
  const deepProject = (baseUrl: string) =>
    project({
      "lait.config.yml": `models:\n  m:\n    - provider: { base_url: '${baseUrl}' }\n      model_id: m1\ndefault:\n  model: m\n`,
      "wf.yml": "steps:\n  - id: s\n    prompt: give\n    output_schema: {type: object}\n" +
        "  - run: [sh, -c, 'test -f ok && wc -c']\n"
    })

  test("an answer 1,000 levels deep is stored compactly and resumes to what a clean run prints", async () => {
    const s = server({ script: [{ content: `{"a": ${nested(999)}}`, repeat: true }] })
    const p = deepProject(s.baseUrl)
    const failed = await p.lait(["run", "wf.yml", "x", "--checkpoint"])
    expect(failed.code).toBe(1)
    const id = noteId(failed.stderr)
    // Pretty-printed, the value alone would be about two million characters.
    expect(fs.statSync(p.file(id)).size).toBeLessThan(8_000)
    expect(JSON.parse(fs.readFileSync(p.file(id), "utf8"))).toMatchObject({ completed_index: 1, status: "failed" })
    p.touch("ok")
    const resumed = await p.lait(["run", "wf.yml", "--resume", id])
    const clean = await p.lait(["run", "wf.yml", "x"])
    expect(clean.code).toBe(0)
    expect(outcome(resumed)).toEqual({
      code: 0,
      stdout: clean.stdout,
      stderr: `==> resuming run '${id}' from step 2/2\n[2] step-2 (run)\n`
    })
  })

  test("an answer nested deeper than 1,000 levels is one line, with or without --checkpoint", async () => {
    const s = server({ script: [{ content: `{"a": ${nested(100_000)}}`, repeat: true }] })
    const p = deepProject(s.baseUrl)
    const line = "lait: step 's': the model's answer is nested deeper than 1000 levels (lait's limit for JSON it reads)\n"
    expect(outcome(await p.lait(["run", "wf.yml", "x"]))).toEqual({ code: 1, stdout: "", stderr: `[1] s\n${line}` })
    const checkpointed = await p.lait(["run", "wf.yml", "x", "--checkpoint"])
    expect(checkpointed.code).toBe(1)
    expect(checkpointed.stderr).toEndWith(line)
    // The state before the step is readable: the note offers it.
    expect(p.runs()).toEqual([`${noteId(checkpointed.stderr)}.json`])
  })
})

describe("a checkpoint lait could not read back", () => {
  // 9 MB recorded twice (`big`, `again`) and as the value: every checkpoint would pass the 16 MiB limit.
  const big = (last: string) =>
    project({
      "wf.yml": "steps:\n  - id: big\n    run: [sh, -c, 'head -c 9000000 /dev/zero | tr \"\\0\" a']\n" +
        `  - id: again\n    jq: '.'\n  - ${last}\n`
    })
  const WARNING = /^warning: failed to save checkpoint for run '[^']+': failed to save checkpoint to '[^']+': it would be [\d.]+ MiB \(\d+ bytes\), over the 16 MiB read limit, so it could never be read back$/

  test("is not written: the run succeeds as without --checkpoint, with one warning", async () => {
    const p = big("jq: 'length'")
    const plain = await p.lait(["run", "wf.yml", "x"])
    expect(outcome(plain)).toEqual({ code: 0, stdout: "9000000\n", stderr: "[1] big\n[2] again\n[3] step-3 (jq)\n" })
    const r = await p.lait(["run", "wf.yml", "x", "--checkpoint"])
    expect(r.code).toBe(0)
    expect(r.stdout).toBe(plain.stdout)
    const lines = r.stderr.trimEnd().split("\n")
    expect(lines.filter((l) => l.startsWith("warning:"))).toHaveLength(1)
    expect(lines[1]).toMatch(WARNING)
    expect(p.runs()).toEqual([])
  })

  test("a failing run then offers no resume", async () => {
    const p = big("run: [sh, -c, 'exit 3']")
    const r = await p.lait(["run", "wf.yml", "x", "--checkpoint"])
    expect(r.code).toBe(1)
    expect(r.stderr.split("\n").filter((l) => WARNING.test(l))).toHaveLength(1)
    expect(r.stderr).not.toContain("note:")
    expect(r.stderr).toContain("\nlait: step 'step-3 (run)': command 'sh' exited with exit status: 3")
    expect(p.runs()).toEqual([])
  })
})

/** A run checkpointed after step `a` whose step `wait` fails until `ok` exists, then waits for `go`. */
const waitingRun = async () => {
  const p = project({
    "wf.yml": "steps:\n  - id: a\n    jq: '. + \" a\"'\n" +
      "  - id: wait\n    run: [sh, -c, 'test -f ok || exit 3; while [ ! -f go ]; do sleep 0.05; done; cat']\n" +
      "  - jq: '. + \" c\"'\n"
  })
  const failed = await p.lait(["run", "wf.yml", "x", "--checkpoint"])
  expect(failed.code).toBe(1)
  p.touch("ok")
  return { p, id: noteId(failed.stderr) }
}

/** A resume as a child process, once it holds the lock and runs `wait`. */
const startResume = async (p: ReturnType<typeof project>, id: string) => {
  const child = Bun.spawn([await ensureBinary(), "run", "wf.yml", "--resume", id], {
    cwd: p.dir,
    env: Object.fromEntries(Object.entries(cleanEnv(ws.dir)).filter((e): e is [string, string] => e[1] !== undefined)),
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe"
  })
  let stderr = ""
  const reading = (async () => {
    for await (const chunk of child.stderr) stderr += new TextDecoder().decode(chunk)
  })()
  const deadline = Date.now() + 20_000
  while (!stderr.includes("[2] wait") && Date.now() < deadline) await Bun.sleep(20)
  expect(stderr).toContain("[2] wait")
  const ended = async () => {
    const [stdout] = await Promise.all([new Response(child.stdout).text(), reading])
    return { code: await child.exited, stdout, stderr }
  }
  return { child, ended }
}

describe("--resume", () => {
  test("a checkpoint whose steps are all done resumes only the output", async () => {
    const { p, id } = await waitingRun()
    const checkpoint = JSON.parse(fs.readFileSync(p.file(id), "utf8"))
    fs.writeFileSync(p.file(id), JSON.stringify({ ...checkpoint, completed_index: 3, current_value: "all done" }))
    const r = await p.lait(["run", "wf.yml", "--resume", id])
    expect(outcome(r)).toEqual({
      code: 0,
      stdout: "all done\n",
      stderr: `==> resuming run '${id}' after its last step (3/3): only the workflow's output is left\n`
    })
    expect(JSON.parse(fs.readFileSync(p.file(id), "utf8"))).toMatchObject({ status: "completed", completed_index: 3 })
  })

  test("a second resume of a run being resumed is refused; the lock goes when the first ends", async () => {
    const { p, id } = await waitingRun()
    const first = await startResume(p, id)
    expect(fs.readFileSync(p.lock(id), "utf8")).toBe(`${first.child.pid}\n`)
    const second = await p.lait(["run", "wf.yml", "--resume", id])
    expect(outcome(second)).toEqual({
      code: 1,
      stdout: "",
      stderr: `lait: run '${id}' is being resumed by another lait (pid ${first.child.pid}); wait for it to end, ` +
        `or remove '.lait/runs/${id}.lock' if no lait is running\n`
    })
    p.touch("go")
    const done = await first.ended()
    expect(done.code).toBe(0)
    expect(done.stdout).toBe("x a c\n")
    expect(p.runs()).toEqual([`${id}.json`])
  }, 60_000)

  test("Ctrl-C releases the lock; a lock left by a process that is gone is taken over", async () => {
    const { p, id } = await waitingRun()
    const first = await startResume(p, id)
    first.child.kill("SIGINT")
    const stopped = await first.ended()
    expect(stopped.code).toBe(130)
    expect(p.runs()).toEqual([`${id}.json`])

    const gone = Bun.spawn(["true"])
    await gone.exited
    fs.writeFileSync(p.lock(id), `${gone.pid}\n`)
    p.touch("go")
    const r = await p.lait(["run", "wf.yml", "--resume", id])
    expect(outcome(r)).toEqual({
      code: 0,
      stdout: "x a c\n",
      stderr: `==> resuming run '${id}' from step 2/3\n[2] wait\n[3] step-3 (jq)\n`
    })
    expect(p.runs()).toEqual([`${id}.json`])
  }, 60_000)
})
