// Shared by the model e2e tests (test/e2e/model*.test.ts): lait run in this process (runCli's
// default, test/e2e/inProcess.ts), a clean environment per run (no OPENAI_* or LAIT_* from the
// developer's shell, HOME/XDG pointing into the workspace so no global config leaks in), and the
// fixture OpenAI server on 127.0.0.1.
import { afterAll, afterEach, beforeAll } from "bun:test"
import * as fs from "node:fs"
import * as net from "node:net"
import * as path from "node:path"
import { type OpenAiServer, type OpenAiServerOptions, startOpenAiServer } from "../fixtures/openai-server.ts"
import { type OtlpReceiver, startOtlpReceiver } from "../fixtures/otlp-receiver.ts"
import { makeTempDir, type RunResult, runCli } from "./util.ts"

/**
 * Call in beforeAll. Nothing to prepare any more: lait runs in this process. Kept so that the test
 * files need not change; a file that wants the binary asks runCli for it.
 */
export const prepareCli = async (): Promise<void> => {}

export interface Workspace {
  readonly dir: string
  /** Writes `text` to `name` (relative to the workspace) and returns the absolute path. */
  write(name: string, text: string | Uint8Array): string
  read(name: string): string
  /** Runs lait in the workspace. `env` adds to (undefined removes from) the clean environment. */
  lait(args: ReadonlyArray<string>, options?: LaitOptions): Promise<RunResult>
  remove(): void
}

export interface LaitOptions {
  readonly env?: Readonly<Record<string, string | undefined>>
  readonly stdin?: string
  readonly cwd?: string
  /** A real `bun src/main.ts` process (runCli's `process`), for what only a process shows. */
  readonly process?: boolean
  /** The compiled dist/lait (runCli's `binary`), for what only the single-file build shows. */
  readonly binary?: boolean
}

/** The environment every run starts from. */
export const cleanEnv = (home: string): Record<string, string | undefined> => {
  const env: Record<string, string | undefined> = {}
  for (const [key, value] of Object.entries(process.env)) {
    if (/^(OPENAI_|LAIT_|OTEL_)/.test(key)) continue
    env[key] = value
  }
  // The history (docs/history.md) goes into the workspace too, where the secrets sweeps search.
  return {
    ...env,
    NO_COLOR: "1",
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, ".config"),
    XDG_DATA_HOME: path.join(home, ".local", "share")
  }
}

export const workspace = (prefix: string): Workspace => {
  const dir = fs.realpathSync(makeTempDir(prefix))
  return {
    dir,
    write(name, text) {
      const file = path.join(dir, name)
      fs.mkdirSync(path.dirname(file), { recursive: true })
      fs.writeFileSync(file, text)
      return file
    },
    read: (name) => fs.readFileSync(path.join(dir, name), "utf8"),
    lait: (args, options = {}) =>
      runCli(args, {
        cwd: options.cwd ?? dir,
        env: { ...cleanEnv(dir), ...options.env },
        process: options.process === true,
        binary: options.binary === true,
        timeoutMs: 60_000,
        ...(options.stdin !== undefined ? { stdin: options.stdin } : {})
      }),
    remove: () => fs.rmSync(dir, { recursive: true, force: true })
  }
}

/**
 * Fresh numbered directories inside `ws`, each holding `files` (paths may name subdirectories); `lait`
 * runs there with the workspace's clean environment plus `env` (through dist/lait with `binary`).
 */
export const projectsIn = (ws: Workspace, where: { readonly binary?: boolean } = {}) => {
  let counter = 0
  return (files: Readonly<Record<string, string | Uint8Array>> = {}) => {
    const dir = path.join(ws.dir, `p${++counter}`)
    fs.mkdirSync(dir, { recursive: true })
    for (const [file, text] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true })
      fs.writeFileSync(path.join(dir, file), text)
    }
    return {
      dir,
      at: (rel: string) => path.join(dir, rel),
      lait: (args: ReadonlyArray<string>, env: Readonly<Record<string, string | undefined>> = {}, stdin?: string) =>
        ws.lait(args, { cwd: dir, env, binary: where.binary === true, ...(stdin === undefined ? {} : { stdin }) })
    }
  }
}

/** Started servers are stopped by `stopServers` (call it in afterEach). */
const running: Array<OpenAiServer> = []

export const server = (options: OpenAiServerOptions = {}): OpenAiServer => {
  const s = startOpenAiServer(options)
  running.push(s)
  return s
}

export const stopServers = async (): Promise<void> => {
  await Promise.all(running.splice(0).map((s) => s.stop()))
}

/** Whether a connection to 127.0.0.1:`port` is refused now. */
const refuses = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = net.connect({ host: "127.0.0.1", port })
    socket.once("connect", () => {
      socket.destroy()
      resolve(false)
    })
    socket.once("error", (error: NodeJS.ErrnoException) => resolve(error.code === "ECONNREFUSED"))
  })

/**
 * A base URL on 127.0.0.1 where nothing listens. Not a port just released by a server: the kernel may
 * hand that one to the next server a concurrent test starts on port 0, whose requests the "refused"
 * run would then reach. A port below the ephemeral range (32768 and up on Linux) is never given out
 * for port 0; one that refuses a connection now is taken.
 */
export const refusedBaseUrl = async (): Promise<string> => {
  for (let tries = 0; tries < 100; tries++) {
    const port = 20_000 + Math.floor(Math.random() * 12_000)
    if (await refuses(port)) return `http://127.0.0.1:${port}/v1`
  }
  throw new Error("no refused port found on 127.0.0.1 between 20000 and 32000")
}

/** Every regular file under `dir` (recursively), with its bytes. */
export const filesUnder = (dir: string): Array<{ readonly path: string; readonly bytes: Buffer }> => {
  const out: Array<{ path: string; bytes: Buffer }> = []
  const visit = (p: string) => {
    const st = fs.lstatSync(p)
    if (st.isDirectory()) for (const entry of fs.readdirSync(p).sort()) visit(path.join(p, entry))
    else if (st.isFile()) out.push({ path: p, bytes: fs.readFileSync(p) })
  }
  if (fs.existsSync(dir)) visit(dir)
  return out
}

/** The JSON bodies the server received, in order. */
export const bodies = (s: OpenAiServer): Array<Record<string, unknown>> =>
  s.requests.map((r) => r.body as Record<string, unknown>)

/** A workflow `models:` block with one alias per entry: `alias: [base_url, model_id, extra yaml]`. */
export const modelsYaml = (
  aliases: Readonly<Record<string, ReadonlyArray<{ readonly baseUrl: string; readonly modelId: string; readonly extra?: string }>>>
): string =>
  [
    "models:",
    ...Object.entries(aliases).flatMap(([alias, defs]) => [
      `  ${alias}:`,
      ...defs.flatMap((d) => [
        `    - provider: { base_url: '${d.baseUrl}' }`,
        `      model_id: ${d.modelId}`,
        ...(d.extra === undefined ? [] : d.extra.split("\n").map((l) => `      ${l}`))
      ])
    ])
  ].join("\n")

export const outcome = (r: RunResult) => ({ code: r.code, stdout: r.stdout, stderr: r.stderr })

/**
 * The hooks of a test file that exports traces: its workspace, a local OTLP/HTTP receiver for the whole
 * file (emptied after each test, like the fixture model servers, which are stopped), both removed at
 * the end.
 */
export const otlpSuite = (prefix: string): { readonly ws: Workspace; readonly receiver: OtlpReceiver } => {
  const ws = workspace(prefix)
  let receiver: OtlpReceiver | undefined
  beforeAll(async () => {
    await prepareCli()
    receiver = startOtlpReceiver()
  }, 300_000)
  afterEach(async () => {
    await stopServers()
    if (receiver !== undefined) receiver.requests.length = 0
  })
  afterAll(async () => {
    await receiver?.stop()
    ws.remove()
  })
  return {
    ws,
    get receiver() {
      if (receiver === undefined) throw new Error("the OTLP receiver starts in beforeAll")
      return receiver
    }
  }
}
