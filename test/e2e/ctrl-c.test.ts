// Ctrl-C as a user presses it: real processes, real SIGINTs.
// First Ctrl-C: a message, the run is interrupted (finalizers run), exit 130.
// Second Ctrl-C: a message and exit 130 at once, even while cleanup is still going.
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { alive, waitUntil } from "./util.ts"

const root = path.resolve(import.meta.dir, "../..")
const bun = path.join(root, "node_modules/.bin/bun")
let dir = ""

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "lait-ctrlc-"))
})
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

const FIRST = "lait: received Ctrl-C, stopping (press Ctrl-C again to exit immediately)..."
const SECOND = "lait: received a second Ctrl-C; exiting immediately"

const start = (args: Array<string>) =>
  Bun.spawn([bun, path.join(root, "src/main.ts"), ...args], {
    cwd: dir,
    env: { ...process.env, NO_COLOR: "1", XDG_CONFIG_HOME: path.join(dir, "xdg") },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe"
  })

/**
 * Resolves once `pid` holds `fifo` open (read from /proc/PID/fd), so the Ctrl-C lands while lait
 * waits on it rather than during start-up; where there is no /proc, after a pause.
 */
const waitingOn = async (pid: number, fifo: string) => {
  if (!fs.existsSync("/proc/self/fd")) return Bun.sleep(1_000)
  const real = fs.realpathSync(fifo)
  const holds = () => {
    try {
      return fs.readdirSync(`/proc/${pid}/fd`).some((fd) => {
        try {
          return fs.readlinkSync(`/proc/${pid}/fd/${fd}`) === real
        } catch {
          return false
        }
      })
    } catch {
      return false
    }
  }
  await waitUntil(`lait (pid ${pid}) to open ${fifo}`, holds)
}

/**
 * Resolves once `text` has appeared on the process's stderr, or the stream ended, or after `ms` (a hang
 * guard). A read still pending when a poll gives up is kept for the next one: dropping it would lose
 * the chunk it later returns.
 */
const waitForStderr = async (stream: ReadableStream<Uint8Array>, text: string, ms = 30_000) => {
  let seen = ""
  const reader = stream.getReader()
  const decoder = new TextDecoder()
  let pending: ReturnType<typeof reader.read> | undefined
  let ended = false
  const take = (chunk: Awaited<ReturnType<typeof reader.read>>) => {
    pending = undefined
    if (chunk.done) ended = true
    else seen += decoder.decode(chunk.value, { stream: true })
  }
  const deadline = Date.now() + ms
  while (!seen.includes(text) && !ended && Date.now() < deadline) {
    pending ??= reader.read()
    const chunk = await Promise.race([pending, Bun.sleep(100).then(() => undefined)])
    if (chunk !== undefined) take(chunk)
  }
  return {
    seen,
    rest: async () => {
      while (!ended) take(await (pending ?? reader.read()))
      return seen
    }
  }
}

describe("Ctrl-C", () => {
  test("a load waiting on a FIFO with no writer stops at the first Ctrl-C (exit 130)", async () => {
    const fifo = path.join(dir, "config.fifo")
    Bun.spawnSync(["mkfifo", fifo])
    const child = start(["--config", fifo, "models"])
    await waitingOn(child.pid, fifo)
    child.kill("SIGINT")
    // The FIFO never gets a writer: exiting at all shows the wait stopped at the Ctrl-C.
    const code = await child.exited
    expect(code).toBe(130)
    const stderr = await new Response(child.stderr).text()
    expect(stderr).toContain(FIRST)
    expect(await new Response(child.stdout).text()).toBe("")
  }, 60_000)

  test("the first Ctrl-C interrupts a running step and kills its child process", async () => {
    const pidFile = path.join(dir, "child.pid")
    const wf = path.join(dir, "sleep.yml")
    fs.writeFileSync(wf, `steps:\n  - id: wait\n    run: [sh, -c, 'echo $$ > "${pidFile}"; exec sleep 30']\n`)
    const child = start(["run", wf, "hello"])
    await waitUntil("the step's shell to write its pid", () => fs.existsSync(pidFile) && fs.readFileSync(pidFile, "utf8").endsWith("\n"))
    const sleeper = Number(fs.readFileSync(pidFile, "utf8").trim())
    expect(alive(sleeper)).toBe(true)
    child.kill("SIGINT")
    expect(await child.exited).toBe(130)
    expect(await new Response(child.stderr).text()).toContain(FIRST)
    // The kill is delivered asynchronously; the step's `sleep 30` outlasts this bound.
    await waitUntil("the step's sleep to be gone", () => !alive(sleeper), 20_000)
  }, 60_000)

  test("a workflow file on a FIFO is waited for, and the wait stops at Ctrl-C", async () => {
    const fifo = path.join(dir, "workflow.fifo")
    Bun.spawnSync(["mkfifo", fifo])
    const child = start(["run", fifo, "hello"])
    await waitingOn(child.pid, fifo)
    child.kill("SIGINT")
    expect(await child.exited).toBe(130)
    expect(await new Response(child.stderr).text()).toContain(FIRST)
  }, 60_000)

  test("a second Ctrl-C exits at once while the first is still waiting for a child to stop", async () => {
    // The child ignores SIGTERM, so the graceful stop after the first Ctrl-C would wait out its
    // grace period; the second Ctrl-C must not wait, and must still take the child down with it.
    const pidFile = path.join(dir, "stubborn.pid")
    const wf = path.join(dir, "stubborn.yml")
    fs.writeFileSync(wf, `steps:\n  - run: [sh, -c, 'trap "" TERM; echo $$ > "${pidFile}"; while :; do sleep 0.1; done']\n`)
    const child = start(["run", wf, "hello"])
    await waitUntil("the step's shell to write its pid", () => fs.existsSync(pidFile) && fs.readFileSync(pidFile, "utf8").endsWith("\n"))
    const stubborn = Number(fs.readFileSync(pidFile, "utf8").trim())
    child.kill("SIGINT")
    const first = await waitForStderr(child.stderr, FIRST)
    expect(first.seen, "stderr (waited up to 30 s for the first Ctrl-C's message)").toContain(FIRST)
    await Bun.sleep(300)
    expect(child.exitCode).toBeNull()
    child.kill("SIGINT")
    expect(await child.exited).toBe(130)
    // At once: lait prints the second notice just before process.exit (src/cli/runProcess.ts), so
    // it is the last line; waiting out the child's grace period would not print it.
    expect(await first.rest()).toEndWith(`${SECOND}\n`)
    // The group's SIGKILL is delivered asynchronously; a child left alive would stay so.
    await waitUntil("the stubborn child to be gone", () => !alive(stubborn), 10_000)
  }, 60_000)
})
