// A jq filter that never terminates must not take the step timeout or Ctrl-C with it: real processes,
// from source and as the compiled binary (a copy outside the repo, PATH without node/bun).
//
// `def f: f; f` never leaves wasm, so the thread evaluating it cannot be stopped from JavaScript;
// these tests prove the main thread stays in charge anyway. Each signal is sent only once the process
// is provably spinning (its CPU time grows while it waits in jq), so an early exit cannot pass for a
// prompt one. Durations here are hang guards, never pass/fail thresholds.
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as path from "node:path"
import { ensureBinary, envWithoutJsRuntimes, makeTempDir, repoRoot, run } from "../e2e/util.ts"

const FIRST = "lait: received Ctrl-C, stopping (press Ctrl-C again to exit immediately)..."
// Only a hang comes near it (a prompt exit takes well under a second): it holds on a loaded machine.
const HANG_GUARD_MS = 45_000

let dir = ""
let binary = ""

beforeAll(async () => {
  dir = fs.realpathSync(makeTempDir("jq-interrupt"))
  binary = path.join(dir, "lait")
  fs.copyFileSync(await ensureBinary(), binary)
  fs.chmodSync(binary, 0o755)
  const write = (name: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true })
    fs.writeFileSync(path.join(dir, name), text)
  }
  write("timeout.yml", "version: 2\nsteps:\n  - id: spin\n    jq: 'def f: f; f'\n    timeout: 1\n")
  write("endless.yml", "version: 2\nsteps:\n  - id: spin\n    jq: 'def f: f; f'\n")
  // lait test: the workflow marks that it ran (so the assertion is what spins), then the assertion never
  // ends. /bin/sh by absolute path: the binary runs with a PATH that may lack the coreutils directory.
  write("suite/wf.yml", "version: 2\nsteps:\n  - run: ['/bin/sh', '-c', ': > workflow-done']\n  - jq: '{n: 1}'\n")
  fs.mkdirSync(path.join(dir, "suite/cassettes"), { recursive: true })
  write(
    "suite/tests/endless.yml",
    "workflow: ../wf.yml\ninput: x\nreplay: ../cassettes\nassert:\n  - type: jq\n    expr: 'def f: f; f'\n"
  )
}, 300_000)

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

type Variant = "src" | "binary"

const commandFor = (variant: Variant, args: ReadonlyArray<string>): Array<string> =>
  variant === "binary"
    ? [binary, "--no-config", "--no-env", ...args]
    : [process.execPath, path.join(repoRoot, "src", "main.ts"), "--no-config", "--no-env", ...args]

const envFor = (variant: Variant): Record<string, string> => {
  const base = variant === "binary"
    ? envWithoutJsRuntimes()
    : Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined))
  return { ...base, NO_COLOR: "1", HOME: dir, XDG_CONFIG_HOME: path.join(dir, "xdg") }
}

/** User + system CPU time of `pid` in clock ticks (all its threads), or undefined once it is gone. */
const cpuTicks = (pid: number): number | undefined => {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8")
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    return Number(fields[11]) + Number(fields[12])
  } catch {
    return undefined
  }
}

interface Running {
  readonly child: Bun.Subprocess<"ignore", "pipe", "pipe">
  readonly stderr: () => string
  readonly finished: Promise<{ code: number | null; stdout: string; stderr: string; hung: boolean }>
}

const start = (variant: Variant, args: ReadonlyArray<string>, cwd = dir): Running => {
  const child = Bun.spawn(commandFor(variant, args), {
    cwd,
    env: envFor(variant),
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe"
  })
  let stderr = ""
  let hung = false
  const guard = setTimeout(() => {
    hung = true
    child.kill("SIGKILL")
  }, HANG_GUARD_MS)
  const readErr = (async () => {
    const decoder = new TextDecoder()
    for await (const chunk of child.stderr) stderr += decoder.decode(chunk, { stream: true })
  })()
  const finished = (async () => {
    const [stdout] = await Promise.all([new Response(child.stdout).text(), readErr])
    await child.exited
    clearTimeout(guard)
    return { code: child.exitCode, stdout, stderr, hung }
  })()
  return { child, stderr: () => stderr, finished }
}

/**
 * CPU time, in clock ticks, of `pid`'s worker threads (the runtime names them "Worker"): here they
 * run nothing but jq. 0 before the first one starts; undefined once the process is gone.
 */
const workerTicks = (pid: number): number | undefined => {
  let tasks: Array<string>
  try {
    tasks = fs.readdirSync(`/proc/${pid}/task`)
  } catch {
    return undefined
  }
  let ticks = 0
  for (const tid of tasks) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8")
      if (stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")")) !== "Worker") continue
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
      ticks += Number(fields[11]) + Number(fields[12])
    } catch {
      // the thread ended meanwhile
    }
  }
  return ticks
}

/**
 * Resolves once `ready()` holds and then jq has burnt CPU: a quarter second in the worker threads, or
 * (where the runtime's threads go by other names) half a second in the whole process. On a loaded
 * machine a process gets a small share of a CPU, so the bound is a hang guard, not a speed.
 */
const waitUntilSpinning = async (running: Running, ready: () => boolean): Promise<void> => {
  const deadline = Date.now() + HANG_GUARD_MS / 2
  while (!ready()) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for the step to start; stderr so far:\n${running.stderr()}`)
    await Bun.sleep(20)
  }
  const pid = running.child.pid
  const base = cpuTicks(pid)
  const workerBase = workerTicks(pid)
  if (base === undefined || workerBase === undefined) throw new Error(`exited before spinning; stderr:\n${running.stderr()}`)
  for (;;) {
    const now = cpuTicks(pid)
    const worker = workerTicks(pid)
    if (now === undefined || worker === undefined) throw new Error(`exited before spinning; stderr:\n${running.stderr()}`)
    if (worker >= workerBase + 25 || now >= base + 50) return
    if (Date.now() > deadline) throw new Error(`gave up waiting for jq to spin (CPU time); stderr so far:\n${running.stderr()}`)
    await Bun.sleep(20)
  }
}

describe.each(["src", "binary"] as const)("jq that never terminates (%s)", (variant) => {
  test("a step timeout fails the step with the usual timeout error (exit 5)", async () => {
    const r = await start(variant, ["run", "timeout.yml", "x"]).finished
    expect(r.hung, `still running ${HANG_GUARD_MS} ms after it started (killed by the hang guard)`).toBe(false)
    expect(r.stdout).toBe("")
    expect(r.stderr).toEndWith("lait: step 'spin' timed out after 1s (attempt 1/1)\n")
    expect(r.code).toBe(5)
  }, 120_000)

  test("lait run stops at the first Ctrl-C (exit 130)", async () => {
    const running = start(variant, ["run", "endless.yml", "x"])
    await waitUntilSpinning(running, () => running.stderr().includes("spin"))
    running.child.kill("SIGINT")
    const r = await running.finished
    expect(r.hung, `still running ${HANG_GUARD_MS} ms after it started (killed by the hang guard)`).toBe(false)
    expect(r.stdout).toBe("")
    expect(r.stderr).toContain(`${FIRST}\n`)
    expect(r.stderr).not.toContain("second Ctrl-C")
    expect(r.code).toBe(130)
  }, 120_000)

  test("a second Ctrl-C right after the first still exits 130", async () => {
    const running = start(variant, ["run", "endless.yml", "x"])
    await waitUntilSpinning(running, () => running.stderr().includes("spin"))
    running.child.kill("SIGINT")
    running.child.kill("SIGINT")
    const r = await running.finished
    expect(r.hung, `still running ${HANG_GUARD_MS} ms after it started (killed by the hang guard)`).toBe(false)
    expect(r.stderr).toContain(FIRST)
    expect(r.code).toBe(130)
  }, 120_000)

  test("lait test with a jq assertion that never terminates stops at the first Ctrl-C (exit 130)", async () => {
    const cwd = path.join(dir, "suite")
    fs.rmSync(path.join(cwd, "workflow-done"), { force: true })
    const running = start(variant, ["test", "tests"], cwd)
    await waitUntilSpinning(running, () => fs.existsSync(path.join(cwd, "workflow-done")))
    running.child.kill("SIGINT")
    const r = await running.finished
    expect(r.hung, `still running ${HANG_GUARD_MS} ms after it started (killed by the hang guard)`).toBe(false)
    expect(r.stderr).toContain(`${FIRST}\n`)
    expect(r.code).toBe(130)
  }, 120_000)
})

// The sources also run under Deno (deno.json), whose workers must be module workers and have no
// ref/unref. Skipped only when the `deno` devDependency cannot run here.
const deno = path.join(repoRoot, "node_modules", "deno", process.platform === "win32" ? "deno.exe" : "deno")
const denoRuns = fs.existsSync(deno) &&
  Bun.spawnSync([deno, "--version"], { stdin: "ignore", stdout: "pipe", stderr: "pipe" }).exitCode === 0

describe.skipIf(!denoRuns)("jq under Deno", () => {
  const denoRun = (file: string) =>
    run(
      [deno, "task", "--quiet", "--config", path.join(repoRoot, "deno.json"), "lait", "--no-config", "--no-env", "run", path.join(dir, file), "x"],
      { cwd: dir, env: { ...envFor("src"), XDG_CONFIG_HOME: path.join(dir, "xdg") }, timeoutMs: HANG_GUARD_MS * 3 }
    )

  test("a jq step evaluates, and one that never terminates fails at its step timeout (exit 5)", async () => {
    fs.writeFileSync(path.join(dir, "deno-ok.yml"), "version: 2\nsteps:\n  - jq: '{n: .}'\n")
    const ok = await denoRun("deno-ok.yml")
    expect(ok).toMatchObject({ code: 0, stdout: "{\"n\":\"x\"}\n", timedOut: false })
    const r = await denoRun("timeout.yml")
    expect(r.timedOut).toBe(false)
    expect(r.stderr).toEndWith("lait: step 'spin' timed out after 1s (attempt 1/1)\n")
    expect(r.code).toBe(5)
  }, 120_000)
})
