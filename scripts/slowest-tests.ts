// The slowest test files, to find where the suite's time goes (issue 38's figures are made with it).
//
//   bun scripts/slowest-tests.ts [--top N] [PATH...]   runs `bun test` (like `npm test`) with a JUnit
//                                                      report, then prints the N (10) slowest files
//   bun scripts/slowest-tests.ts --out FILE ...        keeps the run's JUnit report in FILE
//   bun scripts/slowest-tests.ts --from FILE [--top N] reads a JUnit report made earlier instead
//
// Exits with `bun test`'s own code, so a failing run still fails. A file's time is the sum of its
// tests' (a beforeAll counts towards the first test), as Bun's JUnit reporter records it.
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

const args = process.argv.slice(2)
const take = (flag: string): string | undefined => {
  const i = args.indexOf(flag)
  if (i < 0) return undefined
  const value = args[i + 1]
  if (value === undefined) {
    process.stderr.write(`slowest-tests: ${flag} needs a value\n`)
    process.exit(2)
  }
  args.splice(i, 2)
  return value
}
const top = Number(take("--top") ?? 10)
if (!Number.isInteger(top) || top < 1) {
  process.stderr.write("slowest-tests: --top needs a positive whole number\n")
  process.exit(2)
}
const from = take("--from")
const keep = take("--out")

const unescape = (s: string): string =>
  s.replace(/&(quot|apos|lt|gt|amp);/g, (_, e: string) => ({ quot: "\"", apos: "'", lt: "<", gt: ">", amp: "&" })[e]!)

/**
 * [file, seconds] of each test file of a JUnit report: its outermost <testsuite>; the ones nested in
 * it are its describe blocks, whose time it already counts.
 */
const fileTimes = (xml: string): Array<[string, number]> => {
  const out: Array<[string, number]> = []
  let depth = 0
  for (const [, closing, attrs, selfClosing] of xml.matchAll(/<(\/?)testsuite(?=[\s>/])([^>]*?)(\/?)>/g)) {
    if (closing === "/") {
      depth--
      continue
    }
    if (depth === 0) {
      const attr = (name: string) => new RegExp(`\\s${name}="([^"]*)"`).exec(` ${attrs}`)?.[1]
      const file = attr("file") ?? attr("name")
      const time = Number(attr("time"))
      if (file !== undefined && Number.isFinite(time)) out.push([path.relative(process.cwd(), unescape(file)), time])
    }
    if (selfClosing !== "/") depth++
  }
  return out
}

let code = 0
let report = from
let wall: number | undefined
if (report === undefined) {
  report = keep === undefined
    ? path.join(fs.mkdtempSync(path.join(os.tmpdir(), "lait-slowest-")), "junit.xml")
    : path.resolve(keep)
  const started = performance.now()
  const child = Bun.spawn(
    [process.execPath, "test", "--timeout", "60000", "--reporter=junit", `--reporter-outfile=${report}`, ...args],
    { stdio: ["inherit", "inherit", "inherit"] }
  )
  code = await child.exited
  wall = (performance.now() - started) / 1000
}
if (!fs.existsSync(report)) {
  process.stderr.write(`slowest-tests: no JUnit report at ${report}\n`)
  process.exit(code === 0 ? 1 : code)
}
const times = fileTimes(fs.readFileSync(report, "utf8")).sort((a, b) => b[1] - a[1])
if (from === undefined && keep === undefined) fs.rmSync(path.dirname(report), { recursive: true, force: true })
const total = times.reduce((sum, [, s]) => sum + s, 0)
const [load1, load5] = os.loadavg()
process.stdout.write(
  `\nslowest ${Math.min(top, times.length)} of ${times.length} test files` +
    `${wall === undefined ? "" : `, wall ${wall.toFixed(1)} s`}, sum ${total.toFixed(1)} s` +
    `, load average ${load1!.toFixed(2)} ${load5!.toFixed(2)} (${os.cpus().length} cores):\n`
)
for (const [file, seconds] of times.slice(0, top)) process.stdout.write(`${seconds.toFixed(1).padStart(7)}  ${file}\n`)
process.exit(code)
