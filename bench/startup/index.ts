// Process start-up of the compiled binary, against baselines measured in the same run: a hello-world
// compiled on the spot with the same `bun build --compile` options as build.ts (what any compiled Bun
// program pays), and `bun -e 0` (the runtime alone, no embedded bundle). Four lait command lines:
// `--version`, `--help`, `run` of a one-step jq workflow, and `run --replay` of the release-notes
// example (examples/release-notes: two prompts with a schema, a for_each of prompts, Handlebars, jq).
// Runs are interleaved (each lait command, hello, bun, ...) so that load from other jobs hits all alike.
//
//   bun bench/startup/index.ts [--runs N] [--binary PATH] [--against PATH]
// --against: a second lait binary measured in the same interleaved loop (before/after a change).
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { median, repoRoot, spawnMeasured } from "../util.ts"

export interface StartupOptions {
  /** The lait binary to measure. */
  readonly binary: string
  /** Runs of each command (after one warm-up run each). */
  readonly runs: number
  /** Another lait binary to interleave with the first (before/after comparisons of a change). */
  readonly against?: string
}

/** One lait command line of the start-up benchmark. */
export interface StartupCase {
  readonly name: "version" | "help" | "run-jq" | "replay"
  /** The command line as shown in the table. */
  readonly label: string
  /** Median wall time and CPU time, ms; peak RSS of a separate, untimed run, bytes. */
  readonly ms: number
  readonly cpuMs: number
  readonly maxRss: number
  /** The same for `against`, when given. */
  readonly against?: { readonly ms: number; readonly cpuMs: number; readonly maxRss: number }
}

export interface StartupFigures {
  readonly runs: number
  /** Every command line measured; `--version` is also in the fields below. */
  readonly cases: ReadonlyArray<StartupCase>
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

const sample = (argv: ReadonlyArray<string>, expect: (stdout: string) => boolean, name: string, cwd?: string): Sample => {
  const started = performance.now()
  const r = Bun.spawnSync([...argv], {
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
    env: { ...process.env, NO_COLOR: "1" },
    ...(cwd === undefined ? {} : { cwd })
  })
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

interface Command {
  readonly name: StartupCase["name"]
  readonly label: string
  readonly args: ReadonlyArray<string>
  readonly cwd?: string
  readonly expect: (stdout: string) => boolean
}

const commands = (dir: string): ReadonlyArray<Command> => {
  const jq = path.join(dir, "one-jq-step.yml")
  fs.writeFileSync(jq, "steps:\n  - jq: 'tonumber + 1'\n")
  return [
    { name: "version", label: "lait --version", args: ["--version"], expect: (s) => /^lait \d+\.\d+\.\d+\S*( .*)?\n$/.test(s) },
    { name: "help", label: "lait --help", args: ["--help"], expect: (s) => s.startsWith("DESCRIPTION\n") && s.includes("SUBCOMMANDS") },
    { name: "run-jq", label: "lait run (one jq step)", args: ["run", jq, "41"], cwd: dir, expect: (s) => s === "42\n" },
    {
      name: "replay",
      label: "lait run --replay (release-notes)",
      args: ["run", "examples/release-notes/release-notes.yml", "--replay", "examples/release-notes/cassettes"],
      cwd: repoRoot,
      expect: (s) => s.startsWith("# Release 0.9.0\n")
    }
  ]
}

export const runStartupBench = async (options: StartupOptions): Promise<StartupFigures> => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "lait-bench-startup-"))
  try {
    const hello = await buildHello(dir)
    const cmds = commands(dir)
    const run = (binary: string, c: Command) => () => sample([binary, ...c.args], c.expect, `lait ${c.args.join(" ")}`, c.cwd)
    const lait = cmds.map((c) => run(options.binary, c))
    const helloRun = () => sample([hello], (s) => s === "hello\n", "hello-world")
    // `-e ''` would print Bun's help: an empty script is taken as no script.
    const bun = () => sample([process.execPath, "-e", "0"], (s) => s === "", "bun -e 0")
    const against = options.against
    const other = against === undefined ? [] : cmds.map((c) => run(against, c))
    for (const f of [...lait, helloRun, bun, ...other]) f()
    const l: Array<Array<Sample>> = cmds.map(() => [])
    const o: Array<Array<Sample>> = cmds.map(() => [])
    const h: Array<Sample> = []
    const b: Array<Sample> = []
    for (let i = 0; i < options.runs; i++) {
      for (const [k, f] of lait.entries()) {
        l[k]!.push(f())
        h.push(helloRun())
        const g = other[k]
        if (g !== undefined) o[k]!.push(g())
      }
      b.push(bun())
    }
    // Separate runs: the RSS probe (GNU time) must not add its own start-up to the timed ones.
    const rss = async (binary: string, c: Command) => (await spawnMeasured([binary, ...c.args], c.cwd === undefined ? {} : { cwd: c.cwd })).maxRss
    const cases: Array<StartupCase> = []
    for (const [k, c] of cmds.entries()) {
      cases.push({
        name: c.name,
        label: c.label,
        ms: median(l[k]!.map((x) => x.ms)),
        cpuMs: median(l[k]!.map((x) => x.cpuMs)),
        maxRss: await rss(options.binary, c),
        ...(against === undefined ? {} : {
          against: { ms: median(o[k]!.map((x) => x.ms)), cpuMs: median(o[k]!.map((x) => x.cpuMs)), maxRss: await rss(against, c) }
        })
      })
    }
    const version = cases[0]!
    return {
      runs: options.runs,
      cases,
      laitMs: version.ms,
      helloMs: median(h.map((s) => s.ms)),
      bunMs: median(b.map((s) => s.ms)),
      laitCpuMs: version.cpuMs,
      helloCpuMs: median(h.map((s) => s.cpuMs)),
      laitMaxRss: version.maxRss,
      helloMaxRss: (await spawnMeasured([hello])).maxRss,
      ...(against === undefined || version.against === undefined ? {} : { against: { binary: against, ...version.against } })
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
  const mib = (x: number) => `${(x / 2 ** 20).toFixed(1)} MiB`
  const x = (a: number, b: number) => `${(a / b).toFixed(2)}x`
  process.stdout.write(
    [
      `start-up, median of ${f.runs} interleaved runs (Bun ${Bun.version}, ${os.cpus().length} CPUs)`,
      `  compiled hello-world  ${ms(f.helloMs)}   cpu ${ms(f.helloCpuMs)}   peak RSS ${mib(f.helloMaxRss)}`,
      `  bun -e 0              ${ms(f.bunMs)}`,
      ...f.cases.flatMap((c) => [
        `  ${c.label}: ${ms(c.ms)} = ${x(c.ms, f.helloMs)} hello-world (cpu ${x(c.cpuMs, f.helloCpuMs)}), peak RSS ${mib(c.maxRss)}`,
        ...(c.against === undefined ? [] : [
          `    --against: ${ms(c.against.ms)} = ${x(c.against.ms, f.helloMs)} hello-world (cpu ${x(c.against.cpuMs, f.helloCpuMs)}), ` +
          `peak RSS ${mib(c.against.maxRss)}; after/before ${(c.ms / c.against.ms).toFixed(3)} (cpu ${(c.cpuMs / c.against.cpuMs).toFixed(3)})`
        ])
      ]),
      ""
    ].join("\n")
  )
}
