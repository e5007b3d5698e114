// Shared by the e2e tests of `lait eval` at scale (eval-scale, eval-matrix, eval-verdicts): projects
// whose model `m` is served by the fixture OpenAI server, run with a fast backoff in this process
// (docs/architecture.md#testing) or, where a test asks, through the compiled binary.
import { afterAll, afterEach, beforeAll } from "bun:test"
import * as fs from "node:fs"
import * as path from "node:path"
import { type OpenAiServer, type ScriptedReply, startOpenAiServer } from "../fixtures/openai-server.ts"
import { ensureBinary, makeTempDir, runCli } from "./util.ts"

/** A report with its timings blanked: shards and a single run differ in nothing else. */
export const withoutTimings = (report: string, format: string): string => {
  if (format === "json") {
    return JSON.stringify(JSON.parse(report), (key, value) => (key === "duration_ms" ? 0 : value))
  }
  if (format === "junit") return report.replace(/ time="[\d.]+"/g, "")
  // The summed run time and each run's duration.
  if (format === "html") return report.replace(/\b\d+\.\d+ s\b/g, "T s")
  return report
}

/** An eval of the given case inputs, each passing when the answer contains PASS. */
export const evalFile = (inputs: ReadonlyArray<string>) =>
  [
    "target: { model: m, prompt: '{{input}}' }",
    "cases:",
    ...inputs.map((c) => `  - input: ${c}\n    assert: [{ type: contains, value: PASS }]`),
    ""
  ].join("\n")

/** Answers for requests containing `match`, drawn from `passes` PASS and `fails` fail texts. */
export const drawn = (match: string, passes: number, fails: number): ScriptedReply => ({
  match,
  choices: [...Array(passes).fill(`${match} PASS`), ...Array(fails).fill(`${match} fail`)],
  repeat: true
})

/** Registers the hooks of one test file: a temporary root, the binary, servers stopped after each test. */
export const evalProjects = (prefix: string) => {
  let root = ""
  let binary = ""
  beforeAll(async () => {
    root = fs.realpathSync(makeTempDir(prefix))
    binary = await ensureBinary()
  }, 300_000)
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }))

  const servers: Array<OpenAiServer> = []
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.stop()))
  })

  const serve = (script: ReadonlyArray<ScriptedReply>, seed = 0): OpenAiServer => {
    const s = startOpenAiServer({ script, seed })
    servers.push(s)
    return s
  }

  let counter = 0

  /** A project whose model `m` is served at `baseUrl` (priced when `pricing`). */
  const project = (baseUrl: string, options: { readonly pricing?: boolean } = {}) => {
    const dir = path.join(root, `p${++counter}`)
    fs.mkdirSync(dir)
    const pricing = options.pricing === true ? "\n      pricing: { input_per_1m: 1000, output_per_1m: 2000 }" : ""
    const configure = (url: string) =>
      fs.writeFileSync(
        path.join(dir, "lait.config.yml"),
        `models:\n  m:\n    - provider: { base_url: '${url}' }\n      model_id: target-model${pricing}\n`
      )
    configure(baseUrl)
    const write = (name: string, text: string) => fs.writeFileSync(path.join(dir, name), text)
    const env = () => {
      const env: Record<string, string | undefined> = {}
      for (const [key, value] of Object.entries(process.env)) if (!/^(OPENAI_|LAIT_)/.test(key)) env[key] = value
      return { ...env, NO_COLOR: "1", HOME: dir, XDG_CONFIG_HOME: path.join(dir, ".config"), LAIT_HTTP_BACKOFF_MS: "5" }
    }
    const lait = (args: ReadonlyArray<string>, where: { readonly binary?: boolean } = {}) =>
      runCli(args, { cwd: dir, env: env(), ...where, timeoutMs: 120_000 })
    const read = (name: string) => fs.readFileSync(path.join(dir, name), "utf8")
    return { dir, write, lait, read, configure, env }
  }

  /** `s`, stopped by the test itself, is not stopped again. */
  const forget = (s: OpenAiServer) => void servers.splice(servers.indexOf(s), 1)

  return { serve, forget, project, evalFile, drawn, withoutTimings, binaryPath: () => binary }
}
