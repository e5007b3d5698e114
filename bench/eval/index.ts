// `lait eval` throughput: 40 cases x --repeat 5 (200 model requests) against the fixture OpenAI server
// answering every request after 50 ms. Measured in one run, as ratios:
//   ideal     — requests x latency / 8: what 8 concurrent runs could do if nothing but the server's
//               latency counted (lait runs at most 8 pairs at once, like upstream);
//   promptfoo — `promptfoo eval` on the same 40 cases (same prompt, same `contains` assertions,
//               --repeat 5, 8 concurrent requests, no cache) against the same server.
// Both tools' process start-up is measured too (`--version`) and reported, since it is part of what a
// user waits for but not of the scheduling being compared.
//
//   bun bench/eval/index.ts [--rounds N] [--binary PATH] [--promptfoo PATH]
// promptfoo is not a dependency of lait: install it outside the project, e.g.
//   npm install --prefix /tmp/promptfoo promptfoo   (then --promptfoo /tmp/promptfoo/node_modules/.bin/promptfoo)
// Without it the promptfoo column is reported as unavailable and the ideal ratio still stands.
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { startOpenAiServer } from "../../test/fixtures/openai-server.ts"

const args = process.argv.slice(2)
const flag = (name: string) => {
  const i = args.indexOf(name)
  return i === -1 ? undefined : args[i + 1]
}
const ROUNDS = Number(flag("--rounds") ?? 3)
const CASES = 40
const REPEAT = 5
const LATENCY_MS = 50
const CONCURRENCY = 8
const repoRoot = path.resolve(import.meta.dir, "../..")
const laitBinary = flag("--binary") ?? path.join(repoRoot, "dist", "lait")
const promptfooBinary = flag("--promptfoo") ?? "/tmp/promptfoo/node_modules/.bin/promptfoo"

if (!fs.existsSync(laitBinary)) {
  process.stderr.write(`${laitBinary} does not exist; run \`bun build.ts\` first\n`)
  process.exit(2)
}

const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "lait-bench-eval-")))
const server = startOpenAiServer({ script: [{ delay_ms: LATENCY_MS, repeat: true }] })
const inputs = Array.from({ length: CASES }, (_, i) => `question number ${i + 1}`)

// lait: a model target; the fixture echoes the prompt (`echo: <prompt>`), which `contains` checks.
fs.writeFileSync(
  path.join(dir, "lait.config.yml"),
  `models:\n  m:\n    - provider: { base_url: '${server.baseUrl}' }\n      model_id: bench-model\n`
)
fs.writeFileSync(
  path.join(dir, "eval.yml"),
  [
    "target: { model: m, prompt: '{{input}}' }",
    "cases:",
    ...inputs.map((input) => `  - input: '${input}'\n    assert: [{ type: contains, value: '${input}' }]`),
    ""
  ].join("\n")
)

// promptfoo: the same prompt, cases and assertions, through its OpenAI chat provider.
fs.writeFileSync(
  path.join(dir, "promptfooconfig.yaml"),
  [
    "prompts: ['{{input}}']",
    "providers:",
    "  - id: openai:chat:bench-model",
    "    config:",
    `      apiBaseUrl: '${server.baseUrl}'`,
    "      apiKey: bench",
    "tests:",
    ...inputs.map((input) => `  - vars: { input: '${input}' }\n    assert: [{ type: contains, value: '${input}' }]`),
    ""
  ].join("\n")
)

const cleanEnv = (): Record<string, string> => {
  const env: Record<string, string> = {}
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !/^(OPENAI_|LAIT_|BUN_|NODE_|npm_|PROMPTFOO_)/i.test(key)) env[key] = value
  }
  return {
    ...env,
    NO_COLOR: "1",
    HOME: dir,
    XDG_CONFIG_HOME: path.join(dir, ".config"),
    PROMPTFOO_CONFIG_DIR: path.join(dir, ".promptfoo"),
    PROMPTFOO_DISABLE_TELEMETRY: "1",
    PROMPTFOO_DISABLE_UPDATE: "1",
    PROMPTFOO_DISABLE_SHARING: "1",
    PROMPTFOO_CACHE_ENABLED: "false",
    PROMPTFOO_SELF_HOSTED: "1"
  }
}

interface Timed {
  readonly ms: number
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

const timed = async (command: ReadonlyArray<string>): Promise<Timed> => {
  const start = performance.now()
  const child = Bun.spawn([...command], { cwd: dir, env: cleanEnv(), stdin: "ignore", stdout: "pipe", stderr: "pipe" })
  const [stdout, stderr] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text()])
  await child.exited
  return { ms: performance.now() - start, code: child.exitCode, stdout, stderr }
}

/** Median wall time of `command` run `n` times one after another (process start-up). */
const startup = async (command: ReadonlyArray<string>, n = 5) => {
  const times: Array<number> = []
  for (let i = 0; i < n; i++) times.push((await timed(command)).ms)
  return median(times)
}

const median = (xs: ReadonlyArray<number>) => {
  const sorted = [...xs].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

/** Runs `command` ROUNDS times (after one warm-up), checking each run made `requests` requests. */
const measure = async (name: string, command: ReadonlyArray<string>, requests: number, ok: (r: Timed) => string | undefined) => {
  const times: Array<number> = []
  for (let round = 0; round <= ROUNDS; round++) {
    const before = server.requests.length
    const r = await timed(command)
    const made = server.requests.length - before
    const problem = ok(r) ?? (made !== requests ? `made ${made} requests, expected ${requests}` : undefined)
    if (problem !== undefined) throw new Error(`${name}: ${problem}\n${r.stdout.slice(0, 2000)}\n${r.stderr.slice(0, 2000)}`)
    if (round > 0) times.push(r.ms)
  }
  return median(times)
}

const requests = CASES * REPEAT
const idealMs = (requests * LATENCY_MS) / CONCURRENCY

const laitMs = await measure("lait eval", [laitBinary, "eval", "eval.yml", "--repeat", String(REPEAT)], requests, (r) =>
  r.code === 0 && r.stdout.includes(`${CASES} of ${CASES} case(s) fully passed`) ? undefined : `exit ${r.code}`
)
const laitStartMs = await startup([laitBinary, "--version"])

let promptfoo: { readonly ms: number; readonly startMs: number } | { readonly unavailable: string }
if (!fs.existsSync(promptfooBinary)) {
  promptfoo = { unavailable: `${promptfooBinary} not found (npm install --prefix /tmp/promptfoo promptfoo)` }
} else {
  try {
    const ms = await measure(
      "promptfoo eval",
      [
        promptfooBinary,
        "eval",
        "-c",
        "promptfooconfig.yaml",
        "--repeat",
        String(REPEAT),
        "--max-concurrency",
        String(CONCURRENCY),
        "--no-cache",
        "--no-table",
        "--no-progress-bar",
        "--no-write"
      ],
      requests,
      (r) => (r.code === 0 && /\b200 passed\b/.test(r.stdout) ? undefined : `exit ${r.code}`)
    )
    const startMs = await startup([promptfooBinary, "--version"])
    promptfoo = { ms, startMs }
  } catch (e) {
    promptfoo = { unavailable: e instanceof Error ? e.message.split("\n").slice(0, 6).join(" | ") : String(e) }
  }
}

await server.stop()
fs.rmSync(dir, { recursive: true, force: true })

const f = (ms: number) => `${ms.toFixed(0)} ms`
const lines = [
  `lait eval: ${CASES} cases x --repeat ${REPEAT} = ${requests} requests, server latency ${LATENCY_MS} ms, median of ${ROUNDS}`,
  `  ideal (requests x latency / ${CONCURRENCY}):  ${f(idealMs)}`,
  `  lait eval:                       ${f(laitMs)}   = ${(laitMs / idealMs).toFixed(2)} x ideal   (start-up ${f(laitStartMs)})`,
  "ms" in promptfoo
    ? `  promptfoo eval (-j ${CONCURRENCY}):          ${f(promptfoo.ms)}   = ${(promptfoo.ms / idealMs).toFixed(2)} x ideal   (start-up ${
      f(promptfoo.startMs)
    })\n  lait / promptfoo:                ${(laitMs / promptfoo.ms).toFixed(2)}   (start-up excluded: ${
      ((laitMs - laitStartMs) / (promptfoo.ms - promptfoo.startMs)).toFixed(2)
    })`
    : `  promptfoo eval:                  unavailable: ${promptfoo.unavailable}`
]
process.stdout.write(`${lines.join("\n")}\n`)
process.stdout.write(
  `${
    JSON.stringify({
      requests,
      latencyMs: LATENCY_MS,
      idealMs,
      laitMs,
      laitStartMs,
      laitOverIdeal: laitMs / idealMs,
      promptfoo: "ms" in promptfoo
        ? {
          ms: promptfoo.ms,
          startMs: promptfoo.startMs,
          overIdeal: promptfoo.ms / idealMs,
          laitOverPromptfoo: laitMs / promptfoo.ms,
          laitOverPromptfooWithoutStartup: (laitMs - laitStartMs) / (promptfoo.ms - promptfoo.startMs)
        }
        : promptfoo
    })
  }\n`
)
