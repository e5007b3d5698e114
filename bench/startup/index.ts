// Process start-up of the compiled binary (`lait --version`), against baselines measured in the same
// run: a hello-world compiled on the spot with the same `bun build --compile` options as build.ts
// (what any compiled Bun program pays), and `bun -e 0` (the runtime alone, no embedded bundle).
// Runs are interleaved (lait, hello, bun, lait, ...) so that load from other jobs hits all three alike.
//
//   bun bench/startup/index.ts [--runs N] [--binary PATH] [--against PATH]
// --against: a second lait binary measured in the same interleaved loop (before/after a change).
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { median, spawnMeasured } from "../util.ts"

export interface StartupOptions {
  /** The lait binary to measure. */
  readonly binary: string
  /** Runs of each command (after one warm-up run each). */
  readonly runs: number
  /** Another lait binary to interleave with the first (before/after comparisons of a change). */
  readonly against?: string
}

export interface StartupFigures {
  readonly runs: number
  /** Median wall time of `lait --version`, ms. */
  readonly laitMs: number
  /** Median wall time of the compiled hello-world, ms. */
  readonly helloMs: number
  /** Median wall time of `bun -e 0`, ms. */
  readonly bunMs: number
  /** Median CPU time (user + system) of `lait --version`, ms. */
  readonly laitCpuMs: number
  readonly helloCpuMs: number
  /** Peak RSS of one `lait --version` (separate, untimed run), bytes. */
  readonly laitMaxRss: number
  readonly helloMaxRss: number
  /** The same figures for `against`, when given. */
  readonly against?: { readonly binary: string; readonly ms: number; readonly cpuMs: number; readonly maxRss: number }
}

interface Sample {
  readonly ms: number
  readonly cpuMs: number
}

const sample = (argv: ReadonlyArray<string>, expect: (stdout: string) => boolean, name: string): Sample => {
  const started = performance.now()
  const r = Bun.spawnSync([...argv], { stdin: "ignore", stdout: "pipe", stderr: "pipe", env: { ...process.env, NO_COLOR: "1" } })
  const ms = performance.now() - started
  const stdout = r.stdout.toString()
  if (r.exitCode !== 0 || !expect(stdout)) {
    throw new Error(`${name}: exit ${r.exitCode}, stdout ${JSON.stringify(stdout.slice(0, 200))}, stderr ${JSON.stringify(r.stderr.toString().slice(0, 200))}`)
  }
  // CPU time is the child's own (unlike its maxRSS, see ../util.ts).
  const usage = r.resourceUsage
  return { ms, cpuMs: usage === undefined ? 0 : (Number(usage.cpuTime.user) + Number(usage.cpuTime.system)) / 1000 }
}

/** Compiles a hello-world with build.ts's options into `dir`; returns its path. */
const buildHello = async (dir: string): Promise<string> => {
  const entry = path.join(dir, "hello.ts")
  // console.log, not process.stdout.write: the first touch of process.stdout (or stdin/stderr) builds
  // Node's stream machinery, about 13 ms of a Bun binary's start-up; the baseline is the bare program.
  fs.writeFileSync(entry, `console.log("hello")\n`)
  const outfile = path.join(dir, "hello")
  const result = await Bun.build({ entrypoints: [entry], compile: { outfile }, minify: true, bytecode: true, format: "esm" })
  if (!result.success) throw new Error(`compiling the hello-world baseline failed: ${result.logs.map(String).join("; ")}`)
  return outfile
}

export const runStartupBench = async (options: StartupOptions): Promise<StartupFigures> => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "lait-bench-startup-"))
  try {
    const hello = await buildHello(dir)
    const isVersion = (s: string) => /^lait \d+\.\d+\.\d+\S* \((?:[0-9a-f]{7,}|unknown)\)\n$/.test(s)
    const lait = () => sample([options.binary, "--version"], isVersion, "lait --version")
    const helloRun = () => sample([hello], (s) => s === "hello\n", "hello-world")
    // `-e ''` would print Bun's help: an empty script is taken as no script.
    const bun = () => sample([process.execPath, "-e", "0"], (s) => s === "", "bun -e 0")
    const against = options.against
    const other = against === undefined ? undefined : () => sample([against, "--version"], isVersion, `${against} --version`)
    lait(), helloRun(), bun(), other?.()
    const l: Array<Sample> = []
    const h: Array<Sample> = []
    const b: Array<Sample> = []
    const o: Array<Sample> = []
    for (let i = 0; i < options.runs; i++) {
      l.push(lait())
      h.push(helloRun())
      b.push(bun())
      if (other !== undefined) o.push(other())
    }
    return {
      runs: options.runs,
      laitMs: median(l.map((s) => s.ms)),
      helloMs: median(h.map((s) => s.ms)),
      bunMs: median(b.map((s) => s.ms)),
      laitCpuMs: median(l.map((s) => s.cpuMs)),
      helloCpuMs: median(h.map((s) => s.cpuMs)),
      // Separate runs: the RSS probe (GNU time) must not add its own start-up to the timed ones.
      laitMaxRss: (await spawnMeasured([options.binary, "--version"])).maxRss,
      helloMaxRss: (await spawnMeasured([hello])).maxRss,
      ...(against === undefined ? {} : {
        against: {
          binary: against,
          ms: median(o.map((x) => x.ms)),
          cpuMs: median(o.map((x) => x.cpuMs)),
          maxRss: (await spawnMeasured([against, "--version"])).maxRss
        }
      })
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

if (import.meta.main) {
  const { flag, defaultBinary, requireBinary } = await import("../util.ts")
  const binary = requireBinary(flag("--binary") ?? defaultBinary)
  const against = flag("--against")
  const f = await runStartupBench({
    binary,
    runs: Number(flag("--runs") ?? 30),
    ...(against === undefined ? {} : { against: requireBinary(against) })
  })
  const ms = (x: number) => `${x.toFixed(1)} ms`
  process.stdout.write(
    [
      `start-up, median of ${f.runs} interleaved runs (Bun ${Bun.version}, ${os.cpus().length} CPUs)`,
      `  lait --version            ${ms(f.laitMs)}   cpu ${ms(f.laitCpuMs)}   peak RSS ${(f.laitMaxRss / 2 ** 20).toFixed(1)} MiB`,
      `  compiled hello-world      ${ms(f.helloMs)}   cpu ${ms(f.helloCpuMs)}   peak RSS ${(f.helloMaxRss / 2 ** 20).toFixed(1)} MiB`,
      `  bun -e 0                  ${ms(f.bunMs)}`,
      `  ratio lait / hello-world  ${(f.laitMs / f.helloMs).toFixed(2)}x   (cpu ${(f.laitCpuMs / f.helloCpuMs).toFixed(2)}x)`,
      ...(f.against === undefined ? [] : [
        `  --against ${f.against.binary}: ${ms(f.against.ms)}   cpu ${ms(f.against.cpuMs)}   peak RSS ${(f.against.maxRss / 2 ** 20).toFixed(1)} MiB`,
        `  ratio --against / hello-world ${(f.against.ms / f.helloMs).toFixed(2)}x   (cpu ${(f.against.cpuMs / f.helloCpuMs).toFixed(2)}x)`,
        `  ratio lait / --against    ${(f.laitMs / f.against.ms).toFixed(3)}   (cpu ${(f.laitCpuMs / f.against.cpuMs).toFixed(3)})`
      ]),
      ""
    ].join("\n")
  )
}
