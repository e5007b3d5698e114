// runCli's default (test/e2e/util.ts): lait run inside this test process (src/cli/inProcess.ts)
// rather than as `bun src/main.ts`, whose start-up cost is most of what a short command costs. For
// one run at a time the process takes the child's place: its working directory, its environment
// (replaced, then restored), a stdin text and capturing stdout/stderr; a timeout interrupts the run.
// Runs wait their turn (tests that use test.concurrent share this process). test/e2e/in-process.test.ts
// checks that the outcome is what a real process gives.
import type { RunOptions, RunResult } from "./util.ts"

let queue: Promise<unknown> = Promise.resolve()

/** Runs `lait ARGS` in this process, after the runs already waiting; the result as runCli's. */
export const runInThisProcess = (
  args: ReadonlyArray<string>,
  options: RunOptions,
  env: Readonly<Record<string, string | undefined>>
): Promise<RunResult> => {
  const turn = queue.then(() => runOnce(args, options, env))
  queue = turn.catch(() => undefined)
  return turn
}

/** Makes process.env hold exactly `env` (the object stays: Bun and Node read it, not a copy). */
const replaceEnv = (env: Readonly<Record<string, string | undefined>>): void => {
  for (const key of Object.keys(process.env)) if (env[key] === undefined) delete process.env[key]
  for (const [key, value] of Object.entries(env)) if (value !== undefined) process.env[key] = value
}

// How long an interrupted run may take to stop (its finalizers) before the call gives up on it.
const STOP_GRACE_MS = 30_000

const runOnce = async (
  args: ReadonlyArray<string>,
  options: RunOptions,
  env: Readonly<Record<string, string | undefined>>
): Promise<RunResult> => {
  const { runInProcess } = await import("../../src/cli/inProcess.ts")
  const stdout: Array<string> = []
  const stderr: Array<string> = []
  const stdio = { write: (fd: 1 | 2, text: string) => void (fd === 1 ? stdout : stderr).push(text), stdin: options.stdin ?? "" }
  const savedEnv = { ...process.env }
  const savedCwd = process.cwd()
  const stop = new AbortController()
  let timedOut = false
  const timer = setTimeout(() => {
    timedOut = true
    stop.abort()
  }, options.timeoutMs ?? 30_000)
  try {
    replaceEnv(env)
    process.chdir(options.cwd)
    const run = runInProcess(args, { stdio, signal: stop.signal })
    const stopped = new Promise<undefined>((resolve) =>
      stop.signal.addEventListener("abort", () => setTimeout(() => resolve(undefined), STOP_GRACE_MS), { once: true })
    )
    const code = await Promise.race([run, stopped])
    // As a killed child reports it: no exit code, the signal that ended it.
    if (timedOut) return { code: null, signal: "SIGKILL", stdout: stdout.join(""), stderr: stderr.join(""), timedOut }
    return { code: code ?? null, signal: null, stdout: stdout.join(""), stderr: stderr.join(""), timedOut }
  } finally {
    clearTimeout(timer)
    process.chdir(savedCwd)
    replaceEnv(savedEnv)
  }
}
