// `lait test` on a generated suite of replayed test files (default 500), against a baseline measured
// in the same run: `lait run --replay` of the same workflow and cassette once per file, one process
// after another — what a CI script without `lait test` would do. Reports wall time and peak RSS of
// each, and their ratios; also one `lait test` of a single file (the fixed cost of a process).
//
//   node_modules/.bin/bun bench/test-suite/index.ts [--files N] [--binary PATH]
//
// The files alternate between the two recorded fixture workflows of test/fixtures/testing (a prompt
// step plus jq; a structured-output step over a typed input, with pricing), each with four
// assertions (equals, contains or jq, step_output, usage). Uses dist/lait unless --binary is given.
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

const root = path.resolve(import.meta.dir, "../..")
const arg = (name: string) => {
  const i = process.argv.indexOf(name)
  return i >= 0 ? process.argv[i + 1] : undefined
}
const FILES = Number(arg("--files") ?? 500)
const binary = path.resolve(arg("--binary") ?? path.join(root, "dist", "lait"))
if (!fs.existsSync(binary)) {
  process.stderr.write(`${binary} does not exist; build it first (node_modules/.bin/bun build.ts)\n`)
  process.exit(1)
}

const work = fs.mkdtempSync(path.join(os.tmpdir(), "lait-bench-test-suite-"))
fs.cpSync(path.join(root, "test/fixtures/testing"), work, { recursive: true })
const suite = path.join(work, "bench")
fs.mkdirSync(suite)

interface Kind {
  readonly workflow: string
  readonly prompt: string
  readonly cassettes: string
  readonly testFile: string
}

const summarizeInput = "lait replays recorded model answers so that workflow tests never call a model."
const ticketInput = { subject: "Charged twice", body: "My card was charged twice for the March invoice." }
const kinds: ReadonlyArray<Kind> = [
  {
    workflow: "workflows/summarize.yml",
    prompt: summarizeInput,
    cassettes: "cassettes/summarize-en",
    testFile: [
      "workflow: ../workflows/summarize.yml",
      `input: ${JSON.stringify(summarizeInput)}`,
      "replay: ../cassettes/summarize-en",
      "assert:",
      "  - {type: equals, value: 'Summary: lait tests workflows offline by replaying recorded answers.'}",
      "  - {type: contains, value: offline}",
      "  - {type: step_output, id: summary, assert: [{type: contains, value: lait}]}",
      "  - {type: usage, max_total_tokens: 42}",
      ""
    ].join("\n")
  },
  {
    workflow: "workflows/ticket.yml",
    prompt: JSON.stringify(ticketInput),
    cassettes: "cassettes/ticket-billing",
    testFile: [
      "workflow: ../workflows/ticket.yml",
      `input: ${JSON.stringify(ticketInput)}`,
      "replay: ../cassettes/ticket-billing",
      "assert:",
      "  - {type: equals, value: '{\"queue\":\"billing-team\",\"priority\":\"high\"}'}",
      "  - {type: jq, expr: '.priority == \"high\"'}",
      "  - {type: step_output, id: triage, assert: [{type: contains, value: billing}]}",
      "  - {type: usage, max_cost_usd: 0.001}",
      ""
    ].join("\n")
  }
]
for (let i = 0; i < FILES; i++) {
  fs.writeFileSync(path.join(suite, `case-${String(i).padStart(4, "0")}.yml`), kinds[i % kinds.length]!.testFile)
}

const env = {
  ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(OPENAI_|LAIT_)/.test(k))),
  NO_COLOR: "1",
  HOME: work,
  XDG_CONFIG_HOME: path.join(work, ".config")
} as Record<string, string>

interface Measured {
  readonly ms: number
  /** Bytes. */
  readonly maxRss: number
  readonly code: number
  readonly stdout: string
}

const measure = async (args: ReadonlyArray<string>): Promise<Measured> => {
  const started = performance.now()
  const child = Bun.spawn([binary, "--no-env", ...args], { cwd: work, env, stdin: "ignore", stdout: "pipe", stderr: "pipe" })
  const [stdout] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text()])
  const code = await child.exited
  const ms = performance.now() - started
  return { ms, maxRss: child.resourceUsage()?.maxRSS ?? 0, code, stdout }
}

const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`
const secs = (ms: number) => `${(ms / 1000).toFixed(2)} s`

const main = async () => {
  process.stderr.write(`${FILES} test files in ${suite}\n`)
  // Warm the file cache and the binary once.
  await measure(["test", path.join("bench", "case-0000.yml")])

  const single = await measure(["test", path.join("bench", "case-0000.yml")])
  if (single.code !== 0) throw new Error(`a single test file failed:\n${single.stdout}`)

  const whole = await measure(["test", "bench"])
  const summary = whole.stdout.trimEnd().split("\n").at(-1)
  if (whole.code !== 0 || summary !== `${FILES} passed, 0 failed, ${FILES} total`) {
    throw new Error(`the suite did not pass: ${summary}`)
  }

  let baselineMs = 0
  let baselineRss = 0
  for (let i = 0; i < FILES; i++) {
    const kind = kinds[i % kinds.length]!
    const r = await measure(["run", kind.workflow, kind.prompt, "--replay", kind.cassettes])
    if (r.code !== 0) throw new Error(`lait run --replay failed (${r.code})`)
    baselineMs += r.ms
    baselineRss = Math.max(baselineRss, r.maxRss)
  }

  const rows = [
    ["", "wall time", "per file", "peak RSS"],
    [`lait test, ${FILES} files (one process)`, secs(whole.ms), `${(whole.ms / FILES).toFixed(1)} ms`, mib(whole.maxRss)],
    [`lait run --replay × ${FILES} (sequential)`, secs(baselineMs), `${(baselineMs / FILES).toFixed(1)} ms`, `${mib(baselineRss)} (largest)`],
    ["lait test, 1 file", secs(single.ms), `${single.ms.toFixed(1)} ms`, mib(single.maxRss)]
  ]
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)))
  for (const row of rows) console.log(row.map((cell, c) => cell.padEnd(widths[c]!)).join("  "))
  console.log(`time ratio (lait test / baseline): ${(whole.ms / baselineMs).toFixed(3)}`)
  console.log(`speed-up: ${(baselineMs / whole.ms).toFixed(1)}x`)
  console.log(`peak RSS ratio (lait test, ${FILES} files / one lait run): ${(whole.maxRss / baselineRss).toFixed(2)}`)
  console.log(`peak RSS ratio (lait test, ${FILES} files / 1 file): ${(whole.maxRss / single.maxRss).toFixed(2)}`)
  fs.rmSync(work, { recursive: true, force: true })
}

await main()
