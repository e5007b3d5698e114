// SIGTERM (docker stop, systemd, CI cancellation) and SIGHUP (a closed terminal) against the compiled
// binary: each behaves like the first Ctrl-C (the run is cancelled, finalizers kill `run:` children
// with their whole process group, no temp file is left) and exits 128 + signo; a second signal of any
// of the three kinds exits at once.
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as path from "node:path"
import { startOpenAiServer } from "../fixtures/openai-server.ts"
import { catchesSignal, MARKER_VARIABLE, markedProcesses } from "../hardening/interrupt-harness.ts"
import { ensureBinary, makeTempDir } from "./util.ts"

let dir = ""
let binary = ""
let server: ReturnType<typeof startOpenAiServer> | undefined

beforeAll(async () => {
  dir = makeTempDir("signals")
  binary = await ensureBinary()
  server = startOpenAiServer({ script: [{ content: "recorded answer", repeat: true }] })
})
afterAll(async () => {
  await server?.stop()
  fs.rmSync(dir, { recursive: true, force: true })
})

let workspaces = 0

/** A fresh workspace with `wf.yml`; every process the run starts carries a marker in its environment. */
const start = (workflow: string, args: ReadonlyArray<string> = []) => {
  const ws = path.join(dir, `ws${++workspaces}`)
  fs.mkdirSync(ws)
  fs.writeFileSync(path.join(ws, "lait.config.yml"), `base_url: '${server!.baseUrl}'\ndefault: { model: fixture-model }\n`)
  fs.writeFileSync(path.join(ws, "wf.yml"), workflow)
  const marker = `lait-signals-${process.pid}-${workspaces}-${Date.now()}`
  const env: Record<string, string> = {}
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !/^(OPENAI_|LAIT_|BUN_|NODE_|npm_)/i.test(key)) env[key] = value
  }
  const proc = Bun.spawn([binary, "run", "wf.yml", "hello", ...args], {
    cwd: ws,
    env: { ...env, NO_COLOR: "1", HOME: ws, XDG_CONFIG_HOME: path.join(ws, ".config"), [MARKER_VARIABLE]: marker },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe"
  })
  const stderr = new Response(proc.stderr).text()
  return { ws, marker, proc, stderr }
}

const waitFor = async (predicate: () => boolean, ms = 10_000) => {
  const end = Date.now() + ms
  while (!predicate() && Date.now() < end) await Bun.sleep(25)
  return predicate()
}

const tempFiles = (ws: string): Array<string> =>
  (fs.readdirSync(ws, { recursive: true }) as Array<string>).filter((f) => f.endsWith(".tmp"))

// A model call recorded to a cassette first, then a `run:` child that forks a grandchild (a
// background `sleep`) and waits in a foreground one: three processes, only one of them lait's child.
const grandchildWorkflow = (pidFile: string) =>
  "steps:\n  - prompt: 'first {{ input }}'\n" +
  `  - run: [sh, -c, 'sleep 100 & echo $! > "${pidFile}"; sleep 100; wait']\n`

describe("SIGTERM and SIGHUP", () => {
  for (const [signal, code] of [["SIGTERM", 143], ["SIGHUP", 129]] as const) {
    test(`${signal} cancels the run, kills the child and its own children, exits ${code}`, async () => {
      const run = start(grandchildWorkflow("bg.pid"), ["--record", "cassettes"])
      const pidFile = path.join(run.ws, "bg.pid")
      expect(await waitFor(() => fs.existsSync(pidFile) && markedProcesses(run.marker).length >= 3), "the recorded call, the child and its grandchild running").toBe(true)
      const background = Number(fs.readFileSync(pidFile, "utf8").trim())
      expect(markedProcesses(run.marker).map((p) => p.pid)).toContain(background)

      run.proc.kill(signal)
      expect(await run.proc.exited).toBe(code)
      expect(run.proc.signalCode).toBeNull()
      const stderr = await run.stderr
      expect(stderr.split("\n").filter((l) => l.startsWith("lait:"))).toEqual([
        `lait: received ${signal}, stopping (a second signal exits immediately)...`
      ])
      expect(await new Response(run.proc.stdout).text()).toBe("")
      // sh, the background sleep and the foreground sleep: all gone, not re-parented to PID 1.
      expect(await waitFor(() => markedProcesses(run.marker).length === 0, 10_000), "the run's processes gone").toBe(true)
      expect(tempFiles(run.ws)).toEqual([])
      const cassettes = fs.readdirSync(path.join(run.ws, "cassettes"))
      expect(cassettes.length).toBe(1)
      expect(JSON.parse(fs.readFileSync(path.join(run.ws, "cassettes", cassettes[0]!), "utf8")).response.choices.length).toBe(1)
    }, 20_000)
  }

  for (const [first, second, code] of [["SIGTERM", "SIGINT", 143], ["SIGHUP", "SIGTERM", 129], ["SIGINT", "SIGHUP", 130]] as const) {
    test(`${second} after ${first}, while a child holds up cleanup, exits ${code} at once`, async () => {
      // The child ignores SIGTERM, so cleanup after the first signal waits out its grace period.
      const run = start(`steps:\n  - run: [sh, -c, 'trap "" TERM; echo $$ > stubborn.pid; while :; do sleep 0.1; done']\n`)
      const pidFile = path.join(run.ws, "stubborn.pid")
      expect(await waitFor(() => fs.existsSync(pidFile) && fs.readFileSync(pidFile, "utf8").endsWith("\n")), "the stubborn child's pid file").toBe(true)
      run.proc.kill(first)
      await Bun.sleep(400)
      expect(run.proc.exitCode).toBeNull()
      run.proc.kill(second)
      expect(await run.proc.exited).toBe(code)
      // At once: the notice below is printed just before process.exit (src/cli/runProcess.ts);
      // waiting out the child's grace period instead would not print it.
      const lines = (await run.stderr).split("\n").filter((l) => l.startsWith("lait:"))
      expect(lines.length).toBe(2)
      expect(lines[1]).toBe(`lait: received ${second === "SIGINT" ? "Ctrl-C" : second} while stopping; exiting immediately`)
      expect(await waitFor(() => markedProcesses(run.marker).length === 0, 10_000), "the run's processes gone").toBe(true)
    }, 20_000)
  }

  test("SIGTERM as soon as lait can catch it, before the run has started, still exits 143", async () => {
    const run = start("steps:\n  - run: [sleep, '100']\n")
    // Whether the start-up handler or main's own one takes it, the outcome is the same.
    expect(await waitFor(() => catchesSignal(run.proc.pid, "SIGTERM")), "lait to catch SIGTERM").toBe(true)
    run.proc.kill("SIGTERM")
    expect(await run.proc.exited).toBe(143)
    expect(run.proc.signalCode).toBeNull()
    expect(await run.stderr).toContain("lait: received SIGTERM, stopping")
    expect(await waitFor(() => markedProcesses(run.marker).length === 0, 10_000), "the run's processes gone").toBe(true)
  }, 20_000)
})
