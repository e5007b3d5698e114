// Shared helpers for end-to-end tests: run the CLI inside this process (the default), as a real process
// from source or as the compiled binary, keep stdout and stderr apart, and build dist/lait on demand.
// Which to choose: docs/architecture.md#testing.
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
// Already preloaded by bunfig.toml; imported again (one module, so a no-op) for a `bun test` started
// where bunfig.toml is not found.
import "../hermetic.ts"

export const repoRoot = path.resolve(import.meta.dir, "../..")
export const binaryPath = path.join(repoRoot, "dist", process.platform === "win32" ? "lait.exe" : "lait")

export interface RunOptions {
  /** Required on purpose: a test that runs in the repo would pick up whatever config lies around. */
  readonly cwd: string
  /** The complete environment of the child (not merged). Default: this process's env plus NO_COLOR=1. */
  readonly env?: Readonly<Record<string, string | undefined>>
  /** Written to the child's stdin, which is then closed. Without it the child gets no stdin at all. */
  readonly stdin?: string
  /** Run dist/lait (built first when missing or stale) instead of running lait in this process. */
  readonly binary?: boolean
  /**
   * Run `bun src/main.ts` as a real process instead of running lait in this process
   * (test/e2e/inProcess.ts): for what only a process shows (signals, exit-time flushing, start-up,
   * the process's own stdin, TTY or descriptors).
   */
  readonly process?: boolean
  /** Kill the child after this long; the result then has `timedOut: true`. Default 30 s. */
  readonly timeoutMs?: number
}

export interface RunResult {
  readonly code: number | null
  readonly signal: NodeJS.Signals | number | null
  readonly stdout: string
  readonly stderr: string
  readonly timedOut: boolean
}

export const runCli = async (args: ReadonlyArray<string>, options: RunOptions): Promise<RunResult> => {
  if (options.binary === true) return run([await ensureBinary(), ...args], options)
  if (options.process === true) return run([process.execPath, path.join(repoRoot, "src", "main.ts"), ...args], options)
  const { runInThisProcess } = await import("./inProcess.ts")
  return runInThisProcess(args, options, withScratchHistory(options.env ?? { ...process.env, NO_COLOR: "1" }))
}

/**
 * Every successful `lait run` appends to the user's history (docs/history.md): a child whose env
 * names no XDG_DATA_HOME of its own (even "unset") gets this process's, the temp one of
 * test/hermetic.ts, rather than falling back to whatever HOME the test gave it.
 */
const withScratchHistory = (env: Readonly<Record<string, string | undefined>>) =>
  "XDG_DATA_HOME" in env ? env : { ...env, XDG_DATA_HOME: process.env["XDG_DATA_HOME"] }

/** Spawns any command with the same conventions as runCli. */
export const run = async (
  command: ReadonlyArray<string>,
  options: Omit<RunOptions, "binary" | "process">
): Promise<RunResult> => {
  const env = withScratchHistory(options.env ?? { ...process.env, NO_COLOR: "1" })
  const child = Bun.spawn([...command], {
    cwd: options.cwd,
    env: Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined)),
    stdin: options.stdin === undefined ? "ignore" : new TextEncoder().encode(options.stdin),
    stdout: "pipe",
    stderr: "pipe"
  })
  let timedOut = false
  const timer = setTimeout(() => {
    timedOut = true
    child.kill("SIGKILL")
  }, options.timeoutMs ?? 30_000)
  try {
    const [stdout, stderr] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text()])
    await child.exited
    return { code: child.exitCode, signal: child.signalCode, stdout, stderr, timedOut }
  } finally {
    clearTimeout(timer)
  }
}

/**
 * Polls until `check` holds; past `ms` (a bound for a machine many times slower than this one, not an
 * expectation of speed) throws, saying what it waited for and for how long.
 */
export const waitUntil = async (what: string, check: () => boolean | Promise<boolean>, ms = 30_000): Promise<void> => {
  const end = Date.now() + ms
  while (!(await check())) {
    if (Date.now() >= end) throw new Error(`gave up after ${ms} ms waiting for ${what}`)
    await Bun.sleep(20)
  }
}

export const makeTempDir = (prefix: string): string => fs.mkdtempSync(path.join(os.tmpdir(), `lait-${prefix}-`))

/**
 * Whether a process is still running. A killed child that nobody has reaped yet (a zombie, which
 * `kill(pid, 0)` still finds, and which this container's non-reaping PID 1 may keep for a while) has
 * stopped running, so /proc is asked where there is one.
 */
export const alive = (pid: number): boolean => {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8")
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z"
  } catch {
    if (fs.existsSync("/proc/self/stat")) return false
  }
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** Newest modification time of anything the binary is built from. */
export const newestSourceMtime = (): number => {
  let newest = 0
  const visit = (p: string) => {
    const st = fs.statSync(p)
    if (st.isDirectory()) for (const entry of fs.readdirSync(p)) visit(path.join(p, entry))
    else newest = Math.max(newest, st.mtimeMs)
  }
  for (const p of ["src", "build.ts", "package.json", "package-lock.json"]) {
    const full = path.join(repoRoot, p)
    if (fs.existsSync(full)) visit(full)
  }
  return newest
}

let building: Promise<string> | undefined

const isStale = (): boolean =>
  (fs.existsSync(binaryPath) ? fs.statSync(binaryPath).mtimeMs : -1) < newestSourceMtime()

// `npm test` runs files in several worker processes (package.json): one of them builds, the others wait
// for it (a directory is created atomically) instead of compiling the same binary side by side.
const buildLock = path.join(repoRoot, "dist", ".build.lock")

const lockOwner = (): number | undefined => {
  try {
    const pid = Number(fs.readFileSync(path.join(buildLock, "pid"), "utf8"))
    return pid > 0 ? pid : undefined
  } catch {
    return undefined
  }
}

const lockAgeMs = (): number => {
  try {
    return Date.now() - fs.statSync(buildLock).mtimeMs
  } catch {
    return 0
  }
}

const takeBuildLock = async (): Promise<boolean> => {
  fs.mkdirSync(path.dirname(buildLock), { recursive: true })
  for (;;) {
    try {
      fs.mkdirSync(buildLock)
      fs.writeFileSync(path.join(buildLock, "pid"), String(process.pid))
      return true
    } catch {
      // A lock left by a killed run is taken over: its owner is gone, or it never wrote its pid.
      const owner = lockOwner()
      const abandoned = owner === undefined ? lockAgeMs() > 60_000 : !alive(owner)
      if (abandoned) fs.rmSync(buildLock, { recursive: true, force: true })
      else if (!isStale()) return false
      else await Bun.sleep(200)
    }
  }
}

/** Path of dist/lait, running `bun build.ts` first when it is missing or older than its sources. */
export const ensureBinary = (): Promise<string> => {
  building ??= (async () => {
    if (!isStale() || !(await takeBuildLock())) return binaryPath
    try {
      if (isStale()) {
        const r = await run([process.execPath, path.join(repoRoot, "build.ts")], { cwd: repoRoot, timeoutMs: 300_000 })
        if (r.code !== 0) throw new Error(`bun build.ts failed (exit ${r.code}):\n${r.stdout}${r.stderr}`)
      }
    } finally {
      fs.rmSync(buildLock, { recursive: true, force: true })
    }
    return binaryPath
  })()
  return building
}

const runtimeNames = ["node", "bun", "nodejs", "deno"].flatMap((n) => (process.platform === "win32" ? [`${n}.exe`] : [n]))

/** PATH without every directory that holds node, bun or deno. */
export const pathWithoutJsRuntimes = (pathValue = process.env["PATH"] ?? ""): string =>
  pathValue
    .split(path.delimiter)
    .filter((dir) => dir !== "" && !runtimeNames.some((name) => fs.existsSync(path.join(dir, name))))
    .join(path.delimiter)

/**
 * This process's env with PATH stripped of JavaScript runtimes and no BUN_*, NODE_* or npm_* variables
 * (a compiled Bun binary changes behaviour under some BUN_* variables, e.g. BUN_BE_BUN).
 */
export const envWithoutJsRuntimes = (extra: Readonly<Record<string, string>> = {}): Record<string, string> => {
  const env: Record<string, string> = {}
  for (const [key, value] of Object.entries(process.env)) {
    if (value === undefined || /^(BUN_|NODE_|npm_)/i.test(key)) continue
    env[key] = value
  }
  env["PATH"] = pathWithoutJsRuntimes()
  return { ...env, ...extra }
}
