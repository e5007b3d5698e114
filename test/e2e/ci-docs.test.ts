// The sharded eval of docs/ci.md#sharded-evals-with-a-baseline-gate, run as written: the `run:`
// scripts of its workflow, read from the page, run with bash and `lait` on PATH meaning dist/lait,
// against the fixture OpenAI server. Four shards, then the merge job: once on the main branch to make
// the baseline (the page's `--save-baseline` command), then for a pull request that changes nothing
// (the gate passes) and for one whose model got worse (the gate fails; the page is still written).
import { afterAll, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as path from "node:path"
import { parse } from "yaml"
import { type OpenAiServer, startOpenAiServer } from "../fixtures/openai-server.ts"
import { extractBlocks, shellCommands } from "../docs/markdown.ts"
import { evalFile } from "./evalProject.ts"
import { ensureBinary, makeTempDir, repoRoot, run } from "./util.ts"

interface Step {
  readonly name?: string
  readonly run?: string
  readonly env?: Record<string, string>
}
interface Workflow {
  readonly jobs: Record<string, { readonly steps: ReadonlyArray<Step> }>
}

const blocks = extractBlocks("docs/ci.md", fs.readFileSync(path.join(repoRoot, "docs", "ci.md"), "utf8"))
const workflow = parse(blocks.find((b) => b.comment?.path === ".github/workflows/lait-eval.yml")!.body) as Workflow
const saveBaseline = blocks.filter((b) => b.lang === "sh").flatMap((b) => shellCommands(b.body))
  .find((c) => c.includes("--save-baseline"))!

const dir = fs.realpathSync(makeTempDir("ci-docs"))
let server: OpenAiServer | undefined
afterAll(async () => {
  await server?.stop()
  fs.rmSync(dir, { recursive: true, force: true })
})

/** The step's script and env with the expressions the page uses filled in. */
const expand = (text: string, shard: number) =>
  text.replaceAll("${{ matrix.shard }}", String(shard)).replaceAll("${{ secrets.OPENAI_API_KEY }}", "sk-test")

const bash = async (script: string, env: Record<string, string>) =>
  run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script], { cwd: dir, env, timeoutMs: 120_000 })

test("the page's shards, merge and baseline gate run as written", async () => {
  const binary = await ensureBinary()
  const bin = path.join(dir, ".bin")
  fs.mkdirSync(bin)
  fs.symlinkSync(binary, path.join(bin, "lait"))
  const baseEnv: Record<string, string> = {
    PATH: `${bin}${path.delimiter}${process.env["PATH"] ?? ""}`,
    HOME: dir,
    XDG_CONFIG_HOME: path.join(dir, ".config"),
    NO_COLOR: "1"
  }
  const inputs = Array.from({ length: 8 }, (_, i) => `case${i + 1}`)
  fs.mkdirSync(path.join(dir, "evals"))
  fs.writeFileSync(path.join(dir, "evals", "suite.eval.yml"), evalFile(inputs))
  /** One pipeline run: every shard's `Run shard` step, then each merge step in order. */
  const pipeline = async (answer: string) => {
    await server?.stop()
    server = startOpenAiServer({ script: [{ content: answer, repeat: true }] })
    fs.writeFileSync(
      path.join(dir, "lait.config.yml"),
      `models:\n  m:\n    - provider: { base_url: '${server.baseUrl}' }\n      model_id: target-model\n`
    )
    for (const f of fs.readdirSync(dir).filter((f) => f.startsWith("shard-"))) fs.rmSync(path.join(dir, f))
    const shardStep = workflow.jobs["shard"]!.steps.find((s) => s.run?.includes("lait eval ") === true)!
    for (const shard of [1, 2, 3, 4]) {
      const env = { ...baseEnv }
      for (const [key, value] of Object.entries(shardStep.env ?? {})) env[key] = expand(value, shard)
      const r = await bash(expand(shardStep.run!, shard), env)
      expect({ shard, code: r.code, stderr: r.stderr }).toMatchObject({ shard, code: 0 })
    }
    expect(server.requests.length).toBe(inputs.length * 5)
    return workflow.jobs["merge"]!.steps.filter((s) => s.run !== undefined).map((s) => s.run!)
  }

  // On the main branch: every answer passes, and the merged runs become the baseline.
  await pipeline("PASS")
  const saved = await bash(saveBaseline, baseEnv)
  expect(saved.code).toBe(0)
  const baseline = JSON.parse(fs.readFileSync(path.join(dir, "evals", "baseline.json"), "utf8"))
  expect(baseline).toMatchObject({ kind: "lait-eval-baseline", repeat: 5 })
  expect(baseline.cases).toHaveLength(inputs.length)

  // A pull request that changes nothing: the gate passes and the page is written.
  const [gate, page] = await pipeline("PASS")
  const unchanged = await bash(gate!, baseEnv)
  expect(unchanged.stdout).toContain("verdict: no significant regression")
  expect(unchanged.code).toBe(0)
  expect((await bash(page!, baseEnv)).code).toBe(0)
  expect(fs.readFileSync(path.join(dir, "eval-report.html"), "utf8")).toContain("<html")

  // A pull request whose model got worse: the gate fails, and the page still shows why.
  fs.rmSync(path.join(dir, "eval-report.html"))
  await pipeline("no")
  const regressed = await bash(gate!, baseEnv)
  expect(regressed.code).toBe(1)
  expect(regressed.stderr).toContain(
    "lait: 8 eval case(s) regressed against the baseline 'evals/baseline.json' (Fisher's exact test, p < 0.05)"
  )
  expect((await bash(page!, baseEnv)).code).toBe(1)
  expect(fs.readFileSync(path.join(dir, "eval-report.html"), "utf8")).toContain("regressed")
}, 180_000)
