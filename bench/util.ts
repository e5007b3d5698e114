// Helpers shared by the benchmarks (each runnable alone) and bench/index.ts (all of them in one run).
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

export const repoRoot = path.resolve(import.meta.dir, "..")
export const defaultBinary = path.join(repoRoot, "dist", process.platform === "win32" ? "lait.exe" : "lait")

/** Median; the mean of the two middle values for an even count. */
export const median = (xs: ReadonlyArray<number>): number => {
  if (xs.length === 0) throw new Error("median of no values")
  const sorted = [...xs].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

/** The value after `name` on the command line of a benchmark run alone. */
export const flag = (name: string, argv: ReadonlyArray<string> = process.argv.slice(2)): string | undefined => {
  const i = argv.indexOf(name)
  return i === -1 ? undefined : argv[i + 1]
}

/** `binary` resolved, or exit 2 with a hint when it does not exist. */
export const requireBinary = (binary: string): string => {
  const resolved = path.resolve(binary)
  if (!fs.existsSync(resolved)) {
    process.stderr.write(`${resolved} does not exist; build it first (node_modules/.bin/bun build.ts)\n`)
    process.exit(2)
  }
  return resolved
}

// Peak RSS of a child cannot come from Bun's resourceUsage(): Linux carries the parent's high-water
// mark into the child's ru_maxrss at exec (Bun spawns with a vfork-like clone), so every child of a
// large harness would "peak" at the harness's own size. GNU time forks the command from its own
// small process and reports that child's ru_maxrss, which is the command's alone.
const GNU_TIME = "/usr/bin/time"
const hasGnuTime = (() => {
  if (!fs.existsSync(GNU_TIME)) return false
  const probe = Bun.spawnSync([GNU_TIME, "-f", "%M", "true"], { stdout: "ignore", stderr: "pipe" })
  return probe.exitCode === 0 && /^\d+\s*$/.test(probe.stderr.toString())
})()

/** How peak RSS figures were obtained, for the notes of a report. */
export const rssSource = hasGnuTime
  ? "peak RSS by /usr/bin/time"
  : "peak RSS from Bun's resourceUsage (an upper bound: includes the harness's own high-water mark)"

export interface Spawned {
  /** Wall time, ms. */
  readonly ms: number
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
  /** Peak RSS of the command, bytes (0 when unknown). */
  readonly maxRss: number
}

let probeCounter = 0

/** Runs `argv` to completion, collecting its output, wall time and peak RSS. */
export const spawnMeasured = async (
  argv: ReadonlyArray<string>,
  options: { readonly cwd?: string; readonly env?: Record<string, string> } = {}
): Promise<Spawned> => {
  const rssFile = hasGnuTime ? path.join(os.tmpdir(), `lait-bench-rss-${process.pid}-${probeCounter++}`) : undefined
  const command = rssFile === undefined ? [...argv] : [GNU_TIME, "-f", "%M", "-o", rssFile, ...argv]
  const started = performance.now()
  const child = Bun.spawn(command, {
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    ...(options.env === undefined ? {} : { env: options.env }),
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe"
  })
  const [stdout, stderr] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text()])
  await child.exited
  const ms = performance.now() - started
  let maxRss = 0
  if (rssFile === undefined) maxRss = child.resourceUsage()?.maxRSS ?? 0
  else {
    // GNU time writes "Command exited with non-zero status N" before the figure when the command fails.
    const last = fs.readFileSync(rssFile, "utf8").trim().split("\n").at(-1) ?? ""
    fs.rmSync(rssFile, { force: true })
    maxRss = /^\d+$/.test(last) ? Number(last) * 1024 : 0
  }
  return { ms, code: child.exitCode, stdout, stderr, maxRss }
}
