// Where the eval rows' time goes, measured against the fixture server's request arrival times:
// a plain `fetch` client (bench/eval/plainFetch.ts, the floor any client on this machine pays) and
// one or more lait binaries, interleaved round by round in one run.
//   bun bench/eval/floor.ts [--rounds N] [--cases N] [--repeat N] [--latency MS] [--jobs N] BINARY...
// For each: median wall time (and its ratio to the ideal), time from spawn to the first request,
// the mean cycle (request k to request k + jobs: latency plus the client's per-run overhead), the
// time from the last answer to exit, and user+system CPU per run (startup included). FLOOR_DUMP=1 prints
// every request's arrival (ms after spawn) on stderr, to see the waves and stalls.
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { startOpenAiServer } from "../../test/fixtures/openai-server.ts"
import { flag, median } from "../util.ts"
import { writeEvalProject } from "./index.ts"

const argv = process.argv.slice(2)
const rounds = Number(flag("--rounds") ?? 3)
const cases = Number(flag("--cases") ?? 40)
const repeat = Number(flag("--repeat") ?? 5)
const latency = Number(flag("--latency") ?? 50)
const jobs = Number(flag("--jobs") ?? 8)
const binaries = argv.filter((a, i) => !a.startsWith("--") && (i === 0 || !argv[i - 1]!.startsWith("--")))

const server = startOpenAiServer({ script: [{ delay_ms: latency, repeat: true }] })
const arrivals: Array<number> = []
const push = server.requests.push.bind(server.requests)
server.requests.push = (...items) => {
  arrivals.push(performance.now())
  return push(...items)
}
const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "lait-bench-floor-")))
const inputs = Array.from({ length: cases }, (_, i) => `question number ${i + 1}`)
writeEvalProject(dir, server.baseUrl, inputs)
const env: Record<string, string> = { PATH: process.env.PATH ?? "", HOME: dir, NO_COLOR: "1" }

interface Sample {
  wall: number
  first: number
  cycle: number
  tail: number
  cpu: number
}
const run = async (argvOf: ReadonlyArray<string>): Promise<Sample> => {
  arrivals.length = 0
  const started = performance.now()
  const child = Bun.spawn([...argvOf], { cwd: dir, env, stdout: "pipe", stderr: "pipe" })
  const [out, err] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text()])
  const code = await child.exited
  const wall = performance.now() - started
  if (code !== 0 || arrivals.length !== cases * repeat) {
    throw new Error(`${argvOf.join(" ")}: exit ${code}, ${arrivals.length} requests\n${out}\n${err}`)
  }
  const usage = child.resourceUsage()!
  const cpu = (Number(usage.cpuTime.user) + Number(usage.cpuTime.system)) / 1000
  if (process.env["FLOOR_DUMP"] !== undefined) {
    process.stderr.write(`${argvOf[0]}: ${arrivals.map((a) => (a - started).toFixed(1)).join(" ")}\n`)
  }
  const gaps: Array<number> = []
  for (let k = 0; k + jobs < arrivals.length; k++) gaps.push(arrivals[k + jobs]! - arrivals[k]!)
  return {
    wall,
    first: arrivals[0]! - started,
    cycle: gaps.reduce((a, b) => a + b, 0) / gaps.length,
    tail: started + wall - (arrivals.at(-1)! + latency),
    cpu
  }
}

const clients: Array<[string, ReadonlyArray<string>]> = [
  [
    "plain fetch",
    [process.execPath, path.join(import.meta.dir, "plainFetch.ts"), "--url", server.baseUrl, "--cases", String(cases), "--repeat", String(repeat), "--jobs", String(jobs)]
  ],
  ...binaries.map((b): [string, ReadonlyArray<string>] => [b, [b, "eval", "eval.yml", "--repeat", String(repeat), "-j", String(jobs)]])
]
const samples = new Map<string, Array<Sample>>(clients.map(([name]) => [name, []]))
try {
  for (const [, c] of clients) await run(c) // warm-up
  for (let r = 0; r < rounds; r++) {
    for (const [name, c] of r % 2 === 0 ? clients : [...clients].reverse()) samples.get(name)!.push(await run(c))
  }
} finally {
  await server.stop()
  fs.rmSync(dir, { recursive: true, force: true })
}
const ideal = (cases * repeat * latency) / jobs
const runs = cases * repeat
process.stdout.write(`${runs} runs x ${latency} ms at ${jobs}: ideal ${ideal} ms; medians of ${rounds}\n`)
for (const [name, xs] of samples) {
  const m = (f: (s: Sample) => number) => median(xs.map(f))
  process.stdout.write(
    `${name.padEnd(24)} wall ${m((s) => s.wall).toFixed(0)} ms = ${(m((s) => s.wall) / ideal).toFixed(3)}x  ` +
      `first request ${m((s) => s.first).toFixed(1)} ms  cycle ${m((s) => s.cycle).toFixed(2)} ms  ` +
      `tail ${m((s) => s.tail).toFixed(1)} ms  CPU ${m((s) => s.cpu).toFixed(0)} ms (${(m((s) => s.cpu) / runs).toFixed(3)} ms/run)\n`
  )
}
