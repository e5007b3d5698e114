// Every benchmark in one run, printed as one table of ratios whose two sides were measured in this
// run (absolute times on a shared machine are noise; a ratio of two things measured side by side is
// not). `npm run bench` = `bun bench/index.ts`.
//
//   bun bench/index.ts [--quick] [--only NAME[,NAME]]... [--binary PATH] [--promptfoo PATH | --no-promptfoo] [--json]
//
// NAME: startup, engine, test-suite, test-scaling, eval, eval-scale, responses, proxy. Without --binary, dist/lait is rebuilt first
// when it is missing or older than its sources, and copied to a private temporary file so that a
// rebuild by someone else during the run cannot swap binaries half-way. --quick: few rounds and
// small sizes, a smoke check of the harness (its figures are not worth quoting); it skips promptfoo
// unless --promptfoo is given. Exit 1 when a benchmark's own correctness check fails (a run exits non-zero,
// a test suite does not pass, the server sees the wrong number of requests), 2 on bad flags.
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { type EngineFigures, runEngineBench } from "./engine/index.ts"
import { defaultPromptfoo, type EvalFigures, runEvalBench } from "./eval/index.ts"
import { type ResponsesFigures, runResponsesBench } from "./responses/index.ts"
import { type ProxyFigures, runProxyBench } from "./proxy/index.ts"
import { runStartupBench, type StartupFigures } from "./startup/index.ts"
import { runTestSuiteBench, type TestSuiteFigures } from "./test-suite/index.ts"
import { runTestScalingBench, type TestScalingFigures } from "./test-suite/scaling.ts"
import { newestSourceMtime } from "../test/e2e/util.ts"
import { defaultBinary, repoRoot } from "./util.ts"

export const benchNames = ["startup", "engine", "test-suite", "test-scaling", "eval", "eval-scale", "responses", "proxy"] as const
export type BenchName = (typeof benchNames)[number]

const usage =
  "usage: bun bench/index.ts [--quick] [--only NAME[,NAME]]... [--binary PATH] [--promptfoo PATH | --no-promptfoo] [--json]\n" +
  `  NAME: ${benchNames.join(", ")}`

interface Flags {
  readonly quick: boolean
  readonly only: ReadonlyArray<BenchName>
  readonly binary: string | undefined
  /** undefined: the default (skipped with --quick); null: --no-promptfoo. */
  readonly promptfoo: string | null | undefined
  readonly json: boolean
}

class UsageError extends Error {}

const parseFlags = (argv: ReadonlyArray<string>): Flags => {
  let quick = false
  let json = false
  let binary: string | undefined
  let promptfoo: string | null | undefined
  const only: Array<BenchName> = []
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    const eq = arg.indexOf("=")
    const name = arg.startsWith("--") && eq !== -1 ? arg.slice(0, eq) : arg
    const value = (): string => {
      const v = eq !== -1 && arg.startsWith("--") ? arg.slice(eq + 1) : argv[++i]
      if (v === undefined || v === "" || (v.startsWith("-") && eq === -1)) throw new UsageError(`${name} needs a value`)
      return v
    }
    if (name === "--help" || name === "-h") {
      process.stdout.write(`${usage}\n`)
      process.exit(0)
    } else if (name === "--quick") quick = true
    else if (name === "--json") json = true
    else if (name === "--binary") binary = value()
    else if (name === "--promptfoo") promptfoo = value()
    else if (name === "--no-promptfoo") promptfoo = null
    else if (name === "--only") {
      for (const part of value().split(",")) {
        if (!(benchNames as ReadonlyArray<string>).includes(part)) {
          throw new UsageError(`--only: unknown benchmark '${part}' (one of ${benchNames.join(", ")})`)
        }
        if (!only.includes(part as BenchName)) only.push(part as BenchName)
      }
    } else throw new UsageError(`unknown ${arg.startsWith("-") ? "flag" : "argument"} '${arg}'`)
  }
  return { quick, only: only.length === 0 ? benchNames : only, binary, promptfoo, json }
}

/** dist/lait, rebuilt first when missing or stale. */
const freshBinary = async (log: (line: string) => void): Promise<string> => {
  const built = fs.existsSync(defaultBinary) ? fs.statSync(defaultBinary).mtimeMs : -1
  if (built >= newestSourceMtime()) return defaultBinary
  log(built < 0 ? "dist/lait is missing: building it" : "dist/lait is older than its sources: rebuilding it")
  const child = Bun.spawn([process.execPath, path.join(repoRoot, "build.ts")], { cwd: repoRoot, stdout: "pipe", stderr: "pipe" })
  const [out, err] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text()])
  if ((await child.exited) !== 0) throw new Error(`bun build.ts failed (exit ${child.exitCode}):\n${out}${err}`)
  log(out.trim())
  return defaultBinary
}

export interface Row {
  readonly benchmark: string
  readonly lait: string
  readonly baseline: string
  readonly ratio: string
  readonly peakRss: string
  readonly notes: string
}

export interface BenchResult {
  readonly name: BenchName
  readonly ok: boolean
  readonly rows: ReadonlyArray<Row>
  /** The benchmark's figures, or the error that stopped it. */
  readonly figures?: StartupFigures | EngineFigures | TestSuiteFigures | TestScalingFigures | EvalFigures | ResponsesFigures | ProxyFigures
  readonly error?: string
  readonly seconds: number
}

const ms = (x: number, digits = 1) => `${x.toFixed(digits)} ms`
const secs = (x: number) => `${(x / 1000).toFixed(2)} s`
const mib = (bytes: number) => (bytes > 0 ? `${(bytes / 2 ** 20).toFixed(1)} MiB` : "n/a")
const times = (x: number) => `${x.toFixed(2)}x`

const startupTargets: Record<string, string> = { version: "3", help: "3", "run-jq": "6", replay: "10" }

const startupRows = (f: StartupFigures): ReadonlyArray<Row> => f.cases.map((c) => ({
  benchmark: `start-up: \`${c.label}\``,
  lait: ms(c.ms),
  baseline: `${ms(f.helloMs)} (compiled hello-world)`,
  ratio: times(c.ms / f.helloMs),
  peakRss: mib(c.maxRss),
  notes: `median of ${f.runs}, interleaved; CPU time ${ms(c.cpuMs)} vs ${ms(f.helloCpuMs)} = ${times(c.cpuMs / f.helloCpuMs)}; ` +
    `target <= ${startupTargets[c.name]}x` +
    (c.name === "version" ? `; \`bun -e 0\` ${ms(f.bunMs)}; hello-world RSS ${mib(f.helloMaxRss)}` : "")
}))

const engineRows = (f: EngineFigures): ReadonlyArray<Row> => [
  {
    benchmark: `jq step (per step, ${f.jqSteps}-step workflow)`,
    lait: ms(f.jqPerStepMs, 3),
    baseline: `${ms(f.rawJqPerEvalMs, 3)} (direct jq-wasm eval)`,
    ratio: times(f.jqPerStepMs / f.rawJqPerEvalMs),
    peakRss: "-",
    notes: `in-process, median of ${f.rounds}; with an id on every step (growing $steps): ` +
      `${ms((f.jqNWithIdsMs - f.jq1Ms) / (f.jqSteps - 1), 3)} per step`
  },
  {
    benchmark: `run step (${f.runSteps} \`run: [true]\` steps)`,
    lait: ms(f.runNMs),
    baseline: `${ms(f.bunSpawnNMs)} (${f.runSteps}x Bun.spawn)`,
    ratio: times(f.runNMs / f.bunSpawnNMs),
    peakRss: "-",
    notes: `in-process, median of ${f.rounds}; vs ${f.runSteps}x child_process.spawn (what run steps use) ` +
      `${ms(f.nodeSpawnNMs)} = ${times(f.runNMs / f.nodeSpawnNMs)}; engine overhead ${ms((f.runNMs - f.bunSpawnNMs) / f.runSteps, 3)}/step`
  }
]

const testSuiteRows = (f: TestSuiteFigures): ReadonlyArray<Row> => [
  {
    benchmark: `replay test suite (\`lait test\`, ${f.files} files)`,
    lait: secs(f.suiteMs),
    baseline: `${secs(f.baselineMs)} (${f.files}x \`lait run --replay\`)`,
    ratio: (f.suiteMs / f.baselineMs).toFixed(3),
    peakRss: mib(f.suiteMaxRss),
    notes: `${ms(f.suiteMs / f.files)}/file vs ${ms(f.baselineMs / f.files)}/file; RSS vs one \`lait run\` ` +
      `${mib(f.baselineMaxRss)} = ${times(f.suiteMaxRss / f.baselineMaxRss)}; 1 file: ${secs(f.singleMs)}, ${mib(f.singleMaxRss)}`
  }
]

const testScalingRows = (f: TestScalingFigures): ReadonlyArray<Row> => [
  {
    benchmark: `\`lait test\` marginal cost per file (${f.small} vs ${f.large} files)`,
    lait: ms(f.marginalMs, 2),
    baseline: `${ms(f.smallMs / f.small, 2)} (mean per file at ${f.small} files)`,
    ratio: times(f.marginalMs / (f.smallMs / f.small)),
    peakRss: mib(f.largeMaxRss),
    notes: `median of ${f.rounds} interleaved; target <= 2 ms/file; ${f.small} files ${secs(f.smallMs)}, ${f.large} files ${secs(f.largeMs)}`
  },
  {
    benchmark: `\`lait test\` peak RSS, ${f.large} / ${f.huge} files`,
    lait: `${mib(f.largeMaxRss)} / ${mib(f.hugeMaxRss)}`,
    baseline: `${mib(f.smallMaxRss)} (${f.small} files)`,
    ratio: `${times(f.largeMaxRss / f.smallMaxRss)} / ${times(f.hugeMaxRss / f.smallMaxRss)}`,
    peakRss: mib(f.hugeMaxRss),
    notes: `target <= 120 / 160 MiB; ${f.huge} files: ${secs(f.hugeMs)} (${ms(f.hugeMs / f.huge)}/file)`
  }
]

/** The plain-fetch client's figure: what the server and machine leave any client (bench/eval/plainFetch.ts). */
const floorNote = (f: EvalFigures): string =>
  `plain fetch client ${ms(f.plainMs, 0)} = ${times(f.plainMs / f.idealMs)} (the floor; interleaved)`

const evalScaleRows = (f: EvalFigures): ReadonlyArray<Row> => [
  {
    benchmark: `eval at scale (${f.requests} runs, ${f.latencyMs} ms latency, -j ${f.concurrency})`,
    lait: ms(f.laitMs, 0),
    baseline: `${ms(f.idealMs, 0)} (ideal: runs x latency / ${f.concurrency})`,
    ratio: times(f.laitMs / f.idealMs),
    peakRss: mib(f.laitMaxRss),
    notes: `median of ${f.rounds}; includes start-up (${ms(f.laitStartMs, 0)}); target <= 1.15x, <= 200 MiB; ` +
      `${floorNote(f)}`
  }
]

const evalRows = (f: EvalFigures): ReadonlyArray<Row> => {
  const pf = f.promptfoo
  return [
    {
      benchmark: `eval throughput (${f.requests} requests, ${f.latencyMs} ms latency)`,
      lait: ms(f.laitMs, 0),
      baseline: `${ms(f.idealMs, 0)} (ideal: requests x latency / ${f.concurrency})`,
      ratio: times(f.laitMs / f.idealMs),
      peakRss: mib(f.laitMaxRss),
      notes: `median of ${f.rounds}; includes start-up (${ms(f.laitStartMs, 0)}); target <= 1.08x; ${floorNote(f)}`
    },
    "ms" in pf
      ? {
        benchmark: "eval vs promptfoo (same cases, -j 8)",
        lait: ms(f.laitMs, 0),
        baseline: `${ms(pf.ms, 0)} (promptfoo eval)`,
        ratio: (f.laitMs / pf.ms).toFixed(2),
        peakRss: mib(f.laitMaxRss),
        notes: `start-up excluded: ${((f.laitMs - f.laitStartMs) / (pf.ms - pf.startMs)).toFixed(2)} ` +
          `(promptfoo start-up ${ms(pf.startMs, 0)}); promptfoo RSS ${mib(pf.maxRss)}`
      }
      : {
        benchmark: "eval vs promptfoo",
        lait: ms(f.laitMs, 0),
        baseline: "unavailable",
        ratio: "-",
        peakRss: "-",
        notes: pf.unavailable
      }
  ]
}

const responsesRows = (f: ResponsesFigures): ReadonlyArray<Row> => [
  {
    benchmark: "endless response body (16 MiB cap)",
    lait: ms(f.endlessMs, 0),
    baseline: `${ms(f.smallMs, 0)} (one small answer)`,
    ratio: times(f.endlessMs / f.smallMs),
    peakRss: mib(f.endlessMaxRss),
    notes: `median of ${f.runs}; RSS vs one small answer ${mib(f.smallMaxRss)} = ${times(f.endlessMaxRss / f.smallMaxRss)}; ` +
      `server sent ${mib(f.sentBytes)} before lait hung up`
  }
]

const proxyRows = (f: ProxyFigures): ReadonlyArray<Row> => [
  {
    benchmark: `\`lait proxy --replay\` (${f.requests} requests, ${f.clients} clients)`,
    lait: ms(f.proxyMs, 0),
    baseline: `${ms(f.directMs, 0)} (the same clients, fixture server directly)`,
    ratio: times(f.proxyMs / f.directMs),
    peakRss: mib(f.rssLast),
    notes: `median of ${f.rounds}, interleaved; target <= 1.5x; proxy RSS ${mib(f.rssFirst)} after round 1, ` +
      `${mib(f.rssLast)} after round ${f.rounds} (flat = equal)`
  }
]

export interface RunOptions {
  readonly quick: boolean
  readonly only: ReadonlyArray<BenchName>
  readonly binary: string
  readonly promptfoo: string | undefined
  /** Why promptfoo is undefined, for the eval row. */
  readonly promptfooSkipped?: string
  readonly log: (line: string) => void
}

/** Runs the selected benchmarks one after another; a failing one is recorded and the rest still run. */
export const runBenchmarks = async (options: RunOptions): Promise<ReadonlyArray<BenchResult>> => {
  const { quick, binary, log } = options
  type Figures = NonNullable<BenchResult["figures"]>
  const runners: Record<BenchName, () => Promise<{ figures: Figures; rows: ReadonlyArray<Row> }>> = {
    startup: async () => {
      const f = await runStartupBench({ binary, runs: quick ? 5 : 30 })
      return { figures: f, rows: startupRows(f) }
    },
    engine: async () => {
      const f = await runEngineBench(quick ? { rounds: 2, jqSteps: 50, runSteps: 10 } : { rounds: 7 })
      return { figures: f, rows: engineRows(f) }
    },
    "test-suite": async () => {
      const f = await runTestSuiteBench({ binary, files: quick ? 6 : 500, progress: (line) => log(`  ${line}`) })
      return { figures: f, rows: testSuiteRows(f) }
    },
    "test-scaling": async () => {
      const f = await runTestScalingBench(
        quick ? { binary, small: 2, large: 6, huge: 10, rounds: 1 } : { binary, small: 50, large: 500, huge: 3000, rounds: 3 }
      )
      return { figures: f, rows: testScalingRows(f) }
    },
    "eval-scale": async () => {
      const f = await runEvalBench(
        quick
          ? { binary, rounds: 1, cases: 4, repeat: 4, latencyMs: 20, jobs: 32, promptfoo: undefined }
          : { binary, rounds: 1, cases: 100, repeat: 100, latencyMs: 20, jobs: 32, promptfoo: undefined }
      )
      return { figures: f, rows: evalScaleRows(f) }
    },
    eval: async () => {
      const promptfoo = {
        promptfoo: options.promptfoo,
        ...(options.promptfooSkipped === undefined ? {} : { promptfooSkipped: options.promptfooSkipped })
      }
      const f = await runEvalBench(
        quick ? { binary, rounds: 1, cases: 4, repeat: 2, ...promptfoo } : { binary, rounds: 3, ...promptfoo }
      )
      return { figures: f, rows: evalRows(f) }
    },
    responses: async () => {
      const f = await runResponsesBench({ binary, runs: quick ? 1 : 10 })
      return { figures: f, rows: responsesRows(f) }
    },
    proxy: async () => {
      const f = await runProxyBench(
        quick ? { binary, rounds: 1, requests: 50, clients: 8 } : { binary, rounds: 5, requests: 1000, clients: 32 }
      )
      return { figures: f, rows: proxyRows(f) }
    }
  }
  const results: Array<BenchResult> = []
  for (const name of benchNames.filter((n) => options.only.includes(n))) {
    log(`${name}...`)
    const started = performance.now()
    try {
      const { figures, rows } = await runners[name]()
      results.push({ name, ok: true, rows, figures, seconds: (performance.now() - started) / 1000 })
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error)
      log(`${name} FAILED: ${message}`)
      results.push({
        name,
        ok: false,
        rows: [{ benchmark: name, lait: "FAILED", baseline: "-", ratio: "-", peakRss: "-", notes: message.split("\n")[0]! }],
        error: message,
        seconds: (performance.now() - started) / 1000
      })
    }
  }
  return results
}

/** A Markdown table, so that the output can be pasted into bench/README.md as it is. */
export const formatTable = (results: ReadonlyArray<BenchResult>): string => {
  const header: Row = { benchmark: "benchmark", lait: "lait", baseline: "baseline", ratio: "ratio", peakRss: "peak RSS", notes: "notes" }
  const rows = [header, ...results.flatMap((r) => r.rows)]
  const keys = Object.keys(header) as Array<keyof Row>
  const escape = (cell: string) => cell.replaceAll("|", "\\|")
  const widths = keys.map((k) => Math.max(...rows.map((r) => escape(r[k]).length)))
  const line = (r: Row) => `| ${keys.map((k, i) => escape(r[k]).padEnd(widths[i]!)).join(" | ")} |`
  const rule = `|${keys.map((_, i) => "-".repeat(widths[i]! + 2)).join("|")}|`
  return [line(header), rule, ...rows.slice(1).map(line)].join("\n")
}

const main = async () => {
  let flags: Flags
  try {
    flags = parseFlags(process.argv.slice(2))
  } catch (error) {
    if (!(error instanceof UsageError)) throw error
    process.stderr.write(`bench: ${error.message}\n${usage}\n`)
    process.exit(2)
  }
  const log = (line: string) => void process.stderr.write(`bench: ${line}\n`)
  let binary: string
  let privateCopy: string | undefined
  if (flags.binary !== undefined) {
    binary = path.resolve(flags.binary)
    if (!fs.existsSync(binary)) {
      process.stderr.write(`bench: --binary ${binary} does not exist\n`)
      process.exit(2)
    }
  } else {
    let fresh: string
    try {
      fresh = await freshBinary(log)
    } catch (error) {
      process.stderr.write(`bench: ${error instanceof Error ? error.message : String(error)}\n`)
      process.exit(1)
    }
    privateCopy = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "lait-bench-bin-")), "lait")
    fs.copyFileSync(fresh, privateCopy)
    fs.chmodSync(privateCopy, 0o755)
    binary = privateCopy
  }
  const promptfoo = flags.promptfoo === null
    ? undefined
    : flags.promptfoo ?? (flags.quick ? undefined : defaultPromptfoo)
  const promptfooSkipped = flags.promptfoo === null
    ? "skipped (--no-promptfoo)"
    : "skipped by --quick (give --promptfoo PATH to include it)"
  const started = new Date()
  let results: ReadonlyArray<BenchResult>
  try {
    results = await runBenchmarks({ quick: flags.quick, only: flags.only, binary, promptfoo, promptfooSkipped, log })
  } finally {
    if (privateCopy !== undefined) fs.rmSync(path.dirname(privateCopy), { recursive: true, force: true })
  }
  const failed = results.filter((r) => !r.ok)
  if (flags.json) {
    process.stdout.write(`${JSON.stringify({ started: started.toISOString(), quick: flags.quick, bun: Bun.version, cpus: os.cpus().length, results }, null, 2)}\n`)
  } else {
    const load = os.loadavg().map((x) => x.toFixed(2)).join(" ")
    process.stdout.write(
      `lait benchmarks${flags.quick ? " (--quick: smoke check, figures not meaningful)" : ""}: ${started.toISOString()}, ` +
        `Bun ${Bun.version}, ${os.cpus().length} CPUs, load average ${load} at the end\n\n${formatTable(results)}\n`
    )
    for (const r of results) process.stdout.write(`${r.name}: ${r.ok ? "ok" : "FAILED"} in ${r.seconds.toFixed(1)} s\n`)
  }
  if (failed.length > 0) {
    for (const r of failed) process.stderr.write(`bench: ${r.name} failed its check: ${r.error}\n`)
    process.exit(1)
  }
}

if (import.meta.main) await main()
