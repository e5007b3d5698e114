// The interruption trials (SIGINT, SIGTERM, SIGHUP) of test/hardening/interrupt.test.ts from the
// command line, as many as you like:
//   node_modules/.bin/bun bench/interrupt/index.ts [--trials N] [--seed S] [--concurrency C] [--only I] [--keep] [--binary PATH]
// Prints one line per failed trial as it happens, then a per-scenario table; exits 1 on any failure.
import { ensureBinary } from "../../test/e2e/util.ts"
import {
  formatFailure,
  InterruptHarness,
  outcomeOf,
  planTrial,
  planTrials,
  runTrials,
  SCENARIOS,
  type TrialResult
} from "../../test/hardening/interrupt-harness.ts"

const usage = "usage: bun bench/interrupt/index.ts [--trials N] [--seed S] [--concurrency C] [--only I] [--keep] [--binary PATH]"

const parse = (argv: ReadonlyArray<string>) => {
  const options = { trials: 200, seed: 1, concurrency: 2, only: undefined as number | undefined, keep: false,
    binary: undefined as string | undefined }
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    const number = (name: string) => {
      const value = Number(argv[++i])
      if (!Number.isInteger(value) || value < 0) throw new Error(`${name} needs a non-negative integer (${usage})`)
      return value
    }
    if (arg === "--trials") options.trials = number(arg)
    else if (arg === "--seed") options.seed = number(arg)
    else if (arg === "--concurrency") options.concurrency = Math.max(1, number(arg))
    else if (arg === "--only") options.only = number(arg)
    else if (arg === "--keep") options.keep = true
    else if (arg === "--binary") {
      const value = argv[++i]
      if (value === undefined) throw new Error(`--binary needs a path (${usage})`)
      options.binary = value
    }
    else if (arg === "--help" || arg === "-h") {
      process.stdout.write(`${usage}\n`)
      process.exit(0)
    } else throw new Error(`unknown argument '${arg}' (${usage})`)
  }
  return options
}

const pad = (s: string | number, n: number) => String(s).padStart(n)

export const table = (results: ReadonlyArray<TrialResult>): string => {
  const outcomes = ["130", "143", "129", "0", "startup", "fail"] as const
  const rows = [...SCENARIOS, "all"].map((scenario) => {
    const mine = results.filter((r) => scenario === "all" || r.spec.scenario === scenario)
    const ms = mine.map((r) => r.durationMs).sort((a, b) => a - b)
    const median = ms.length === 0 ? 0 : ms[Math.floor(ms.length / 2)]!
    return { scenario, trials: mine.length, counts: outcomes.map((o) => mine.filter((r) => outcomeOf(r) === o).length), median }
  })
  const head = `${"scenario".padEnd(16)} ${pad("trials", 6)} ${pad("exit130", 7)} ${pad("exit143", 7)} ${pad("exit129", 7)} ` +
    `${pad("exit0", 5)} ${pad("startup", 7)} ${pad("failed", 6)} ${pad("median ms", 9)}`
  const widths = [7, 7, 7, 5, 7, 6]
  return [
    head,
    ...rows.map((r) =>
      `${r.scenario.padEnd(16)} ${pad(r.trials, 6)} ${r.counts.map((c, i) => pad(c, widths[i]!)).join(" ")} ${pad(r.median, 9)}`
    )
  ].join("\n")
}

if (import.meta.main) {
  let options: ReturnType<typeof parse>
  try {
    options = parse(process.argv.slice(2))
  } catch (e) {
    process.stderr.write(`interrupt: ${e instanceof Error ? e.message : String(e)}\n`)
    process.exit(2)
  }
  // Default: dist/lait, rebuilt first when older than its sources.
  const binary = options.binary ?? await ensureBinary()
  const harness = InterruptHarness.create({ binary, keepFailed: options.keep })
  const specs = options.only !== undefined ? [planTrial(options.seed, options.only)] : planTrials(options.seed, options.trials)
  const started = Date.now()
  let done = 0
  try {
    const results = await runTrials(harness, specs, options.concurrency, (r) => {
      done++
      if (r.failures.length > 0) process.stderr.write(`FAIL ${formatFailure(r)}\n`)
      else if (done % 25 === 0) process.stderr.write(`${done}/${specs.length} trials\n`)
    })
    const seconds = ((Date.now() - started) / 1000).toFixed(1)
    process.stdout.write(
      `interrupt trials: seed ${options.seed}, ${specs.length} trials, concurrency ${options.concurrency}, ${seconds} s\n` +
        `${table(results)}\n`
    )
    process.exitCode = results.some((r) => r.failures.length > 0) ? 1 : 0
  } finally {
    harness.close()
  }
}
