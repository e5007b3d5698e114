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
import { spawnMeasured } from "../util.ts"

const root = path.resolve(import.meta.dir, "../..")

export interface TestSuiteOptions {
  /** The lait binary to measure. */
  readonly binary: string
  /** Generated test files (default 500). */
  readonly files: number
  /** Called with one line per phase (the baseline takes minutes). */
  readonly progress?: (line: string) => void
}

export interface TestSuiteFigures {
  readonly files: number
  /** `lait test` over the whole suite, one process. */
  readonly suiteMs: number
  /** Bytes. */
  readonly suiteMaxRss: number
  /** Sum of `lait run --replay` once per file, one process after another. */
  readonly baselineMs: number
  /** Largest peak RSS of one `lait run --replay`, bytes. */
  readonly baselineMaxRss: number
  /** `lait test` of a single file. */
  readonly singleMs: number
  readonly singleMaxRss: number
}

export interface Kind {
  readonly workflow: string
  readonly prompt: string
  readonly cassettes: string
  readonly testFile: string
}

const summarizeInput = "lait replays recorded model answers so that workflow tests never call a model."
const ticketInput = { subject: "Charged twice", body: "My card was charged twice for the March invoice." }
export const kinds: ReadonlyArray<Kind> = [
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
interface Measured {
  readonly ms: number
  /** Bytes. */
  readonly maxRss: number
  readonly code: number
  readonly stdout: string
}

const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`
const secs = (ms: number) => `${(ms / 1000).toFixed(2)} s`

export const runTestSuiteBench = async (options: TestSuiteOptions): Promise<TestSuiteFigures> => {
  const FILES = options.files
  const binary = options.binary
  const progress = options.progress ?? (() => {})
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "lait-bench-test-suite-"))
  try {
    fs.cpSync(path.join(root, "test/fixtures/testing"), work, { recursive: true })
    const suite = path.join(work, "bench")
    fs.mkdirSync(suite)
    for (let i = 0; i < FILES; i++) {
      fs.writeFileSync(path.join(suite, `case-${String(i).padStart(4, "0")}.yml`), kinds[i % kinds.length]!.testFile)
    }
    const env = {
      ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(OPENAI_|LAIT_)/.test(k))),
      NO_COLOR: "1",
      HOME: work,
      XDG_CONFIG_HOME: path.join(work, ".config")
    } as Record<string, string>

    const measure = async (args: ReadonlyArray<string>): Promise<Measured> => {
      const r = await spawnMeasured([binary, "--no-env", ...args], { cwd: work, env })
      return { ms: r.ms, maxRss: r.maxRss, code: r.code ?? -1, stdout: r.stdout }
    }

    progress(`${FILES} test files in ${suite}`)
    // Warm the file cache and the binary once.
    await measure(["test", path.join("bench", "case-0000.yml")])

    const single = await measure(["test", path.join("bench", "case-0000.yml")])
    if (single.code !== 0) throw new Error(`a single test file failed:\n${single.stdout}`)

    const whole = await measure(["test", "bench"])
    const summary = whole.stdout.trimEnd().split("\n").at(-1)
    if (whole.code !== 0 || summary !== `${FILES} passed, 0 failed, ${FILES} total`) {
      throw new Error(`the suite did not pass (exit ${whole.code}): ${summary}`)
    }
    progress(`lait test: ${secs(whole.ms)}; baseline: lait run --replay x ${FILES}`)

    let baselineMs = 0
    let baselineRss = 0
    for (let i = 0; i < FILES; i++) {
      const kind = kinds[i % kinds.length]!
      const r = await measure(["run", kind.workflow, kind.prompt, "--replay", kind.cassettes])
      if (r.code !== 0) throw new Error(`lait run --replay failed (${r.code})`)
      baselineMs += r.ms
      baselineRss = Math.max(baselineRss, r.maxRss)
    }
    return {
      files: FILES,
      suiteMs: whole.ms,
      suiteMaxRss: whole.maxRss,
      baselineMs,
      baselineMaxRss: baselineRss,
      singleMs: single.ms,
      singleMaxRss: single.maxRss
    }
  } finally {
    fs.rmSync(work, { recursive: true, force: true })
  }
}

if (import.meta.main) {
  const { flag, defaultBinary, requireBinary, rssSource } = await import("../util.ts")
  const binary = requireBinary(flag("--binary") ?? defaultBinary)
  const f = await runTestSuiteBench({
    binary,
    files: Number(flag("--files") ?? 500),
    progress: (line) => process.stderr.write(`${line}\n`)
  })
  const FILES = f.files
  const rows = [
    ["", "wall time", "per file", "peak RSS"],
    [`lait test, ${FILES} files (one process)`, secs(f.suiteMs), `${(f.suiteMs / FILES).toFixed(1)} ms`, mib(f.suiteMaxRss)],
    [`lait run --replay × ${FILES} (sequential)`, secs(f.baselineMs), `${(f.baselineMs / FILES).toFixed(1)} ms`, `${mib(f.baselineMaxRss)} (largest)`],
    ["lait test, 1 file", secs(f.singleMs), `${f.singleMs.toFixed(1)} ms`, mib(f.singleMaxRss)]
  ]
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)))
  for (const row of rows) console.log(row.map((cell, c) => cell.padEnd(widths[c]!)).join("  "))
  console.log(`time ratio (lait test / baseline): ${(f.suiteMs / f.baselineMs).toFixed(3)}`)
  console.log(`speed-up: ${(f.baselineMs / f.suiteMs).toFixed(1)}x`)
  console.log(`peak RSS ratio (lait test, ${FILES} files / one lait run): ${(f.suiteMaxRss / f.baselineMaxRss).toFixed(2)}`)
  console.log(`peak RSS ratio (lait test, ${FILES} files / 1 file): ${(f.suiteMaxRss / f.singleMaxRss).toFixed(2)}`)
  console.log(rssSource)
}
