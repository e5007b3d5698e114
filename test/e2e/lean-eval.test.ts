// A plain `lait eval` skips effect/cli (src/cli/leanArgs.ts, leanEval.ts). Every command line the
// lean path accepts must behave exactly as effect/cli's reading of it: the same stdout, stderr, exit
// code and files. Each line runs twice through the binary: as `lait eval --no-env ARGS` (lean) and as
// `lait --no-env eval ARGS` (a global flag before the subcommand: the command tree), which mean the same.
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as path from "node:path"
import { leanArgs } from "../../src/cli/leanArgs.ts"
import { type OpenAiServer, startOpenAiServer } from "../fixtures/openai-server.ts"
import { withoutTimings } from "./evalProject.ts"
import { makeTempDir, runCli } from "./util.ts"

let dir = ""
let server: OpenAiServer
beforeAll(() => {
  dir = makeTempDir("lean-eval")
  // Each answer echoes the prompt: the same on both paths, whatever the order of the requests.
  server = startOpenAiServer({ script: [{ repeat: true, usage: { prompt_tokens: 3, completion_tokens: 2 } }] })
  const write = (name: string, text: string) => fs.writeFileSync(path.join(dir, name), text)
  const models = (url: string) =>
    `models:\n  m:\n    - provider: { base_url: '${url}' }\n      model_id: fixture\n` +
    `      pricing: { input_per_mtok: 1000, output_per_mtok: 2000 }\n`
  write("lait.config.yml", models(server.baseUrl))
  write("other.yml", models("http://127.0.0.1:9/v1"))
  write("broken.yml", "models: [\n")
  const cases = ["one", "two", "three", "PASS four"].map((c) => `  - input: ${c}\n    assert: [{ type: contains, value: PASS }]`)
  write("pass.yml", ["target: { model: m, prompt: 'say {{input}} PASS' }", "cases:", ...cases.slice(0, 3), ""].join("\n"))
  write("mixed.yml", ["target: { model: m, prompt: '{{input}}' }", "cases:", ...cases, ""].join("\n"))
  write("bad.yml", "target: { model: m, prompt: x }\ncases: []\nbogus: 1\n")
})
afterAll(() => {
  server.stop()
  fs.rmSync(dir, { recursive: true, force: true })
})

const formats = ["json", "junit", "html", "text"]
// [name, args after `eval`, environment additions]
const cases: ReadonlyArray<readonly [string, ReadonlyArray<string>, Record<string, string>?]> = [
  ["plain", ["pass.yml"]],
  ["failing cases", ["mixed.yml", "--repeat", "3"]],
  ["flags before FILE", ["--repeat", "2", "-j", "1", "pass.yml"]],
  ["= forms", ["--repeat=2", "--jobs=3", "--format=json", "pass.yml"]],
  ["--format json", ["pass.yml", "--format", "json"]],
  ["--format junit -o", ["mixed.yml", "--format", "junit", "-o", "out-a.txt"]],
  ["--format html --output=", ["mixed.yml", "--format", "html", "--output=out-b.txt"]],
  ["-o into a missing directory", ["pass.yml", "-o", "nowhere/out.txt"]],
  ["--repeat 0", ["pass.yml", "--repeat", "0"]],
  ["--repeat too large", ["pass.yml", "--repeat", "10001"]],
  ["-j 0", ["pass.yml", "-j", "0"]],
  ["--jobs too large", ["pass.yml", "--jobs", "1001"]],
  ["--min-pass-rate", ["mixed.yml", "--repeat", "4", "--min-pass-rate", "0.25"]],
  ["--min-pass-rate out of range", ["pass.yml", "--min-pass-rate", "1.5"]],
  ["--max-cost", ["mixed.yml", "--repeat", "3", "-j", "1", "--max-cost", "0.02"]],
  ["--max-cost 0", ["pass.yml", "--max-cost", "0"]],
  ["--show-usage", ["pass.yml", "--show-usage", "--repeat", "2"]],
  ["negated flags", ["pass.yml", "--no-show-usage", "--no-trace-content", "--no-fail-on-regression"]],
  ["--dry-run", ["mixed.yml", "--dry-run", "--repeat", "3"]],
  ["--trace-spans alone", ["pass.yml", "--trace-spans"]],
  ["--trace-content alone", ["pass.yml", "--trace-content"]],
  ["--trace-dir with spans and content", ["pass.yml", "--trace-dir", "traces", "--trace-spans", "--trace-content"]],
  ["--record", ["pass.yml", "--record", "tapes"]],
  ["--replay of nothing", ["pass.yml", "--replay", "empty"]],
  ["--record and --replay", ["pass.yml", "--record", "a", "--replay", "b"]],
  ["--strict-replay alone", ["pass.yml", "--strict-replay"]],
  ["--shard", ["mixed.yml", "--shard", "2/3"]],
  ["--shard out of range", ["mixed.yml", "--shard", "4/3"]],
  ["--save-baseline", ["mixed.yml", "--repeat", "2", "--save-baseline", "base.json"]],
  ["--baseline missing", ["mixed.yml", "--baseline", "nope.json"]],
  ["--fail-on-regression alone", ["pass.yml", "--fail-on-regression"]],
  ["--significance out of range", ["pass.yml", "--baseline", "nope.json", "--significance", "1"]],
  // Not the default base URL (port 1234): other test files listen there (test/fixtures/port1234.ts).
  ["--no-config", ["pass.yml", "--no-config", "-j", "1"], { LAIT_HTTP_ATTEMPTS: "1", OPENAI_BASE_URL: "http://127.0.0.1:9/v1" }],
  ["--config", ["pass.yml", "--config", "other.yml", "-j", "1"], { LAIT_HTTP_ATTEMPTS: "1" }],
  ["--config=", ["--config=broken.yml", "pass.yml"]],
  ["missing config", ["pass.yml", "--config", "nope.yml"]],
  ["--cache", ["pass.yml", "--cache"]],
  ["--no-cache", ["pass.yml", "--no-cache"]],
  ["-v", ["pass.yml", "-v"]],
  ["-vv and --verbose", ["-vv", "pass.yml", "--verbose"]],
  ["LAIT_LOG", ["pass.yml"], { LAIT_LOG: "debug" }],
  ["bad LAIT_HTTP_ATTEMPTS", ["pass.yml"], { LAIT_HTTP_ATTEMPTS: "0" }],
  ["missing file", ["missing.yml"]],
  ["invalid eval file", ["bad.yml"]]
]

const written = ["out-a.txt", "out-b.txt", "base.json"]
const dirs = ["traces", "tapes", "a", ".lait"]
const clean = () => {
  for (const f of written) fs.rmSync(path.join(dir, f), { force: true })
  for (const d of dirs) fs.rmSync(path.join(dir, d), { recursive: true, force: true })
}
// The times and ids of reports and traces differ from run to run; their shape must not.
const blank = (text: string) => {
  const report = formats.reduce((t, f) => {
    try {
      return withoutTimings(t, f)
    } catch {
      return t
    }
  }, text)
  return report.replace(/"[^"]*(time|_id|Id|start|end|duration)[^"]*":\s*("[^"]*"|[0-9.]+)/g, "$1")
    .replace(/\b[0-9a-f]{16,}\b/g, "<hex>").replace(/\b\d+(\.\d+)? ?m?s\b/g, "<t>")
}
const tree = (root: string): Record<string, string> => {
  const out: Record<string, string> = {}
  if (!fs.existsSync(root)) return out
  for (const entry of fs.readdirSync(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue
    const file = path.join(entry.parentPath, entry.name)
    out[path.relative(dir, file)] = blank(fs.readFileSync(file, "utf8"))
  }
  return out
}

const outcome = async (argv: ReadonlyArray<string>, env: Record<string, string>) => {
  clean()
  fs.mkdirSync(path.join(dir, "empty"), { recursive: true })
  const r = await runCli(argv, { cwd: dir, binary: true, env: { ...process.env, NO_COLOR: "1", ...env } })
  const files = Object.fromEntries(
    written.map((f) => [f, fs.existsSync(path.join(dir, f)) ? blank(fs.readFileSync(path.join(dir, f), "utf8")) : null])
  )
  const saved = Object.assign({}, ...dirs.filter((d) => d !== ".lait").map((d) => tree(path.join(dir, d))))
  clean()
  return { code: r.code, stdout: blank(r.stdout), stderr: blank(r.stderr), files, saved }
}

describe("lait eval: the lean path and the command tree agree", () => {
  for (const [name, args, env = {}] of cases) {
    test(name, async () => {
      const lean = ["eval", "--no-env", ...args]
      expect(leanArgs(lean, { ...process.env, ...env })?.command).toBe("eval")
      expect(await outcome(lean, env)).toEqual(await outcome(["--no-env", "eval", ...args], env))
    }, 60_000)
  }
})

describe("leanArgs leaves `lait eval` to effect/cli", () => {
  const otel = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318" }
  const lines: ReadonlyArray<readonly [ReadonlyArray<string>, Record<string, string>?]> = [
    [["eval", "--help"]], [["eval", "e.yml", "-h"]], [["eval", "e.yml", "--version"]], [["eval", "e.yml", "--", "x"]],
    [["eval", "merge", "a.json"]], [["eval", "--format", "json", "merge"]], [["eval"]], [["eval", "a.yml", "b.yml"]],
    [["eval", "e.yml", "--bogus"]], [["eval", "e.yml", "--dry-run=true"]],
    [["eval", "e.yml", "--dry-run", "--dry-run"]], [["eval", "e.yml", "-o", "a", "--output", "b"]],
    [["eval", "e.yml", "-o=a"]], [["eval", "e.yml", "-j8"]], [["eval", "e.yml", "--output", "-"]],
    [["eval", "e.yml", "--repeat"]], [["eval", "e.yml", "--repeat", ""]], [["eval", "e.yml", "--repeat", "-1"]],
    [["eval", "e.yml", "--repeat", "1.5"]], [["eval", "e.yml", "--repeat", "07"]], [["eval", "e.yml", "--repeat", "1e3"]],
    [["eval", "e.yml", "--repeat", "2", "--repeat", "3"]], [["eval", "e.yml", "--min-pass-rate", ".5"]],
    [["eval", "e.yml", "--max-cost", "1e-3"]], [["eval", "e.yml", "--format", "xml"]],
    [["eval", "e.yml", "--format", "json", "--format", "text"]], [["eval", "e.yml", "-vq"]], [["eval", "e.yml", "-"]],
    [["eval", "e.yml", "--cache", "--no-cache"]], [["eval", "e.yml", "--config", "c", "--no-config"]],
    [["--no-env", "eval", "e.yml"]], [["test", "e.yml"]], [["eval", "e.yml"], otel]
  ]
  for (const [argv, env = {}] of lines) {
    test(argv.join(" ") + (env === otel ? " (OTEL_* set)" : ""), () => {
      expect(leanArgs(argv, env)).toBeUndefined()
    })
  }
})
