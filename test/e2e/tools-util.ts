// Shared by the tool-loop e2e tests: the CLI in this process (runCli's default), or, for the tests
// about the process itself (laitCommand), as a real one (the compiled binary when it starts, else the
// sources); the fixture OpenAI server in this process, real MCP servers from npm.
import * as fs from "node:fs"
import * as net from "node:net"
import * as path from "node:path"
import { afterAll, beforeAll } from "bun:test"
import YAML from "yaml"
import { type OpenAiServer, type ScriptedReply, startOpenAiServer } from "../fixtures/openai-server.ts"
import { alive, binaryPath, ensureBinary, makeTempDir, repoRoot, run, runCli } from "./util.ts"
export { alive } from "./util.ts"

export const everythingBin = path.join(repoRoot, "node_modules/@modelcontextprotocol/server-everything/dist/index.js")
export const filesystemBin = path.join(repoRoot, "node_modules/@modelcontextprotocol/server-filesystem/dist/index.js")
export const scriptedServer = path.join(repoRoot, "test/fixtures/mcp/scripted-server.ts")

let useBinary: boolean | undefined

/** Whether dist/lait (rebuilt when stale) starts; decided once per file. */
export const binaryWorks = async (cwd: string): Promise<boolean> => {
  if (useBinary !== undefined) return useBinary
  const binary = await ensureBinary().catch(() => undefined)
  const smoke = binary === undefined ? undefined : await run([binary, "--version"], { cwd, timeoutMs: 30_000 })
  useBinary = smoke?.code === 0
  if (!useBinary) process.stderr.write(`note: dist/lait does not start; running src/main.ts instead\n${smoke?.stderr ?? ""}`)
  return useBinary
}

export const laitCommand = (): Array<string> =>
  useBinary === true ? [binaryPath] : [process.execPath, path.join(repoRoot, "src", "main.ts")]

export const cliEnv = (cwd: string, extra: Record<string, string> = {}) => ({
  ...process.env,
  NO_COLOR: "1",
  XDG_CONFIG_HOME: path.join(cwd, "xdg"),
  HOME: cwd,
  LAIT_HTTP_ATTEMPTS: "1",
  ...extra
})

export const lait = (cwd: string, args: ReadonlyArray<string>, options: { stdin?: string; env?: Record<string, string> } = {}) =>
  runCli(args, {
    cwd,
    env: cliEnv(cwd, options.env),
    timeoutMs: 60_000,
    ...(options.stdin !== undefined ? { stdin: options.stdin } : {})
  })

export const write = (dir: string, name: string, text: string): string => {
  const file = path.join(dir, name)
  fs.mkdirSync(path.dirname(file), { recursive: true })
  fs.writeFileSync(file, text)
  return file
}

/** Live processes whose command line contains `marker`. */
export const processesWith = (marker: string): Array<number> => {
  const found: Array<number> = []
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue
    try {
      if (fs.readFileSync(`/proc/${entry}/cmdline`, "utf8").includes(marker) && alive(Number(entry))) found.push(Number(entry))
    } catch {
      // gone meanwhile
    }
  }
  return found
}

/** Collects every live process carrying `marker` while it runs (polling /proc). */
export const watchProcesses = (marker: string) => {
  const seen = new Set<number>()
  const poll = () => {
    for (const pid of processesWith(marker)) seen.add(pid)
  }
  const timer = setInterval(poll, 20)
  return {
    seen,
    stop: () => {
      poll()
      clearInterval(timer)
      return [...seen]
    }
  }
}

export const waitFor = async (predicate: () => boolean, ms: number): Promise<boolean> => {
  const end = Date.now() + ms
  while (!predicate() && Date.now() < end) await Bun.sleep(25)
  return predicate()
}

export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = net.createServer()
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as net.AddressInfo).port
      server.close(() => resolve(port))
    })
    server.on("error", reject)
  })

let markers = 0
/** A unique string to find a test's MCP processes by in /proc. */
export const newMarker = (name: string) => `lait-e2e-${name}-${process.pid}-${++markers}-${Date.now()}`

/**
 * server-everything over stdio behind `sh -c` (not exec'd, so the server is a grandchild of lait: the
 * whole tree must go). The marker rides along as an argument the server ignores.
 */
export const wrappedEverything = (marker: string) => ({
  command: "sh",
  args: ["-c", `node ${everythingBin} stdio ${marker}; true`]
})

export interface LoggedBody {
  readonly messages: ReadonlyArray<{ readonly role: string; readonly content?: unknown; readonly tool_call_id?: string }>
  readonly tools?: ReadonlyArray<{ readonly function: { readonly name: string } }>
  readonly response_format?: unknown
  readonly model: string
}

/**
 * One test file's scratch directory (made before its tests, removed after them with every fixture
 * server it started) and the projects in it: `project` writes lait.config.yml pointing at `server`
 * (model `fixture-model`, plus `config`) and the files given.
 */
export const toolWorkspace = (prefix: string) => {
  let cwd = ""
  let dirs = 0
  const servers: Array<OpenAiServer> = []
  beforeAll(async () => {
    cwd = fs.realpathSync(makeTempDir(prefix))
    await binaryWorks(cwd)
  }, 300_000)
  afterAll(async () => {
    for (const s of servers) await s.stop()
    fs.rmSync(cwd, { recursive: true, force: true })
  })
  const writeConfig = (dir: string, server: OpenAiServer, config: Record<string, unknown>) =>
    write(dir, "lait.config.yml", YAML.stringify({ base_url: server.baseUrl, default: { model: "fixture-model" }, ...config }))
  return {
    /** The scratch directory (set once the file's tests start). */
    cwd: () => cwd,
    model: (script: ReadonlyArray<ScriptedReply>): OpenAiServer => {
      const server = startOpenAiServer({ script })
      servers.push(server)
      return server
    },
    writeConfig,
    project: (server: OpenAiServer, config: Record<string, unknown>, files: Record<string, string> = {}): string => {
      const dir = path.join(cwd, `p${++dirs}`)
      fs.mkdirSync(dir, { recursive: true })
      writeConfig(dir, server, config)
      for (const [name, text] of Object.entries(files)) write(dir, name, text)
      return dir
    }
  }
}
