// Shared by the `lait eval` e2e tests: lait in this process (runCli's default; `usesBinary` is always
// false now, and the tests that need a process spawn their own),
// fixture OpenAI servers stopped after each test, and projects whose model `m` and `judge` point at one.
import { afterAll, afterEach, beforeAll } from "bun:test"
import * as fs from "node:fs"
import * as path from "node:path"
import { type OpenAiServer, type ScriptedReply, startOpenAiServer } from "../fixtures/openai-server.ts"
import { makeTempDir, runCli } from "./util.ts"

/** Which models of the project carry prices (input 1000, output 2000 per 1M tokens). */
export type Pricing = "none" | "target" | "both"

export interface EvalProject {
  readonly dir: string
  /** Writes `text` to `name` under the project (parents made); returns the path. */
  readonly write: (name: string, text: string) => string
  /** lait in the project, with no OPENAI_/LAIT_ variables from this shell and HOME inside it. */
  readonly lait: (args: ReadonlyArray<string>) => ReturnType<typeof runCli>
}

export const evalSuite = (prefix: string, defaults: { readonly pricing: Pricing; readonly timeoutMs: number }) => {
  let root = ""
  const useBinary = false
  let counter = 0
  const servers: Array<OpenAiServer> = []
  beforeAll(async () => {
    root = fs.realpathSync(makeTempDir(prefix))
  })
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }))
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.stop()))
  })

  /** A fixture server for this test; `seed` fixes its scripted randomness. */
  const serve = (script: ReadonlyArray<ScriptedReply> = [], seed?: number): OpenAiServer => {
    const s = startOpenAiServer({ script, ...(seed !== undefined ? { seed } : {}) })
    servers.push(s)
    return s
  }

  const project = (
    baseUrl: string,
    options: { readonly pricing?: Pricing; readonly extraConfig?: string } = {}
  ): EvalProject => {
    const dir = path.join(root, `p${++counter}`)
    fs.mkdirSync(dir)
    const pricing = options.pricing ?? defaults.pricing
    const price = "\n      pricing: { input_per_1m: 1000, output_per_1m: 2000 }"
    fs.writeFileSync(
      path.join(dir, "lait.config.yml"),
      [
        "models:",
        "  m:",
        `    - provider: { base_url: '${baseUrl}' }`,
        `      model_id: target-model${pricing === "none" ? "" : price}`,
        "  judge:",
        `    - provider: { base_url: '${baseUrl}' }`,
        `      model_id: judge-model${pricing === "both" ? price : ""}`,
        options.extraConfig ?? "",
        ""
      ].join("\n")
    )
    const write = (name: string, text: string) => {
      const file = path.join(dir, name)
      fs.mkdirSync(path.dirname(file), { recursive: true })
      fs.writeFileSync(file, text)
      return file
    }
    const lait = (args: ReadonlyArray<string>) => {
      const env: Record<string, string | undefined> = {}
      for (const [key, value] of Object.entries(process.env)) if (!/^(OPENAI_|LAIT_)/.test(key)) env[key] = value
      return runCli(args, {
        cwd: dir,
        env: { ...env, NO_COLOR: "1", HOME: dir, XDG_CONFIG_HOME: path.join(dir, ".config") },
        timeoutMs: defaults.timeoutMs
      })
    }
    return { dir, write, lait }
  }

  return { serve, project, usesBinary: () => useBinary }
}
