// `lait test` runs with JavaScriptCore's FTL tier off (src/platform/jscTuning.ts): the process
// replaces itself once with BUN_JSC_useFTLJIT=0 in its environment, then takes the option out again so
// that what a test runs does not inherit it. A `run:` step shows both sides: its own environment and
// lait's initial one (/proc/<lait>/environ, which keeps what the process was started with). `lait run`
// raises the JIT policy (Bun.unsafe.setJITPolicy) for its first half second, seen through a preload
// that records the calls. `lait proxy`, a server whose requests run the same code thousands of times,
// runs with the FTL tier off as `lait test` does (issue 41), seen in its /proc/<pid>/environ. No other
// command is tuned (`lait eval` no longer raises the policy: issue 37).
import { afterAll, describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as path from "node:path"
import { ensureBinary, makeTempDir, repoRoot, run, runCli } from "./util.ts"

const dir = fs.realpathSync(makeTempDir("e2e-jsc"))
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

fs.writeFileSync(
  path.join(dir, "wf.yml"),
  `steps:
  - run: [sh, -c, 'echo "own: $(env | grep -E "^(BUN_JSC_use(FTL|DFG)JIT|LAIT_JSC_TUNED)=" | sort | tr "\\n" " ")"; echo "lait: $(tr "\\0" "\\n" < /proc/$PPID/environ | grep -E "^(BUN_JSC_use(FTL|DFG)JIT|LAIT_JSC_TUNED)=" | sort | tr "\\n" " ")"']
`
)
fs.mkdirSync(path.join(dir, "cassettes"))
/** A test file whose assertion shows the step's output whatever it is (the message quotes it). */
fs.writeFileSync(
  path.join(dir, "env.yml"),
  "workflow: wf.yml\ninput: x\nreplay: cassettes\nassert:\n  - type: equals\n    value: nothing\n"
)

/** An eval whose one run is that workflow; its failing assertion shows the output likewise. */
fs.writeFileSync(
  path.join(dir, "env-eval.yml"),
  "target: { workflow: wf.yml }\ncases:\n  - input: x\n    assert: [{ type: equals, value: nothing }]\n"
)

const env = (extra: Record<string, string> = {}) => {
  const base: Record<string, string | undefined> = { ...process.env, NO_COLOR: "1", HOME: dir }
  delete base["BUN_JSC_useFTLJIT"]
  delete base["BUN_JSC_useDFGJIT"]
  delete base["LAIT_JSC_TUNED"]
  return { ...base, ...extra }
}

/** The step's output as the failing assertion quotes it. */
const shown = (stdout: string): string => {
  const match = /got "(.*)"/.exec(stdout)
  if (match === null) throw new Error(`no output shown in: ${stdout}`)
  return JSON.parse(`"${match[1]}"`) as string
}

describe.skipIf(process.platform !== "linux")("lait test and JavaScriptCore's FTL tier", () => {
  test("lait test runs with the option set; the commands it starts do not inherit it", async () => {
    const r = await runCli(["--no-env", "test", "env.yml"], { cwd: dir, env: env(), binary: true })
    expect(r.code).toBe(1)
    expect(shown(r.stdout)).toBe("own: \nlait: BUN_JSC_useFTLJIT=0 LAIT_JSC_TUNED=1 ")
  }, 60_000)

  test("lait run is not re-executed", async () => {
    const r = await runCli(["--no-env", "run", "wf.yml", "x"], { cwd: dir, env: env(), binary: true })
    expect(r.code).toBe(0)
    expect(r.stdout).toBe("own: \nlait: \n")
  }, 60_000)

  test("an option the user set is the user's: no re-execution, and the commands inherit it", async () => {
    const r = await runCli(["--no-env", "test", "env.yml"], {
      cwd: dir,
      env: env({ BUN_JSC_useFTLJIT: "1" }),
      binary: true
    })
    expect(shown(r.stdout)).toBe("own: BUN_JSC_useFTLJIT=1 \nlait: BUN_JSC_useFTLJIT=1 ")
  }, 60_000)

  test("from the sources too (bun src/main.ts test)", async () => {
    // The re-execution is the process's own: only a process of its own shows it.
    const r = await runCli(["--no-env", "test", "env.yml"], { cwd: dir, env: env(), process: true })
    expect(shown(r.stdout)).toBe("own: \nlait: BUN_JSC_useFTLJIT=0 LAIT_JSC_TUNED=1 ")
  }, 60_000)

  test("from the sources with a runtime flag on the command line (a preload): no re-execution, the flag applies", async () => {
    fs.writeFileSync(path.join(dir, "mark.ts"), "process.on('exit', () => process.stderr.write('preloaded\\n'))\n")
    const r = await run(
      [process.execPath, "--preload", path.join(dir, "mark.ts"), path.join(repoRoot, "src", "main.ts"), "--no-env", "test", "env.yml"],
      { cwd: dir, env: env() }
    )
    expect(shown(r.stdout)).toBe("own: \nlait: ")
    expect(r.stderr).toContain("preloaded\n")
  }, 60_000)
})

describe.skipIf(process.platform !== "linux")("lait proxy and JavaScriptCore's FTL tier", () => {
  test("lait proxy runs with the option set", async () => {
    const child = Bun.spawn([await ensureBinary(), "--no-env", "proxy"], {
      cwd: dir,
      env: env(),
      stdin: "ignore",
      stdout: "ignore",
      stderr: "pipe"
    })
    try {
      const reader = child.stderr.getReader()
      let text = ""
      while (!text.includes("listening on")) {
        const { value, done } = await reader.read()
        if (done) throw new Error(`lait proxy did not start: ${text}`)
        text += new TextDecoder().decode(value)
      }
      // The environment it was started with: the exec's (same pid).
      const environ = fs.readFileSync(`/proc/${child.pid}/environ`, "utf8").split("\0")
      expect(environ.filter((e) => /^(BUN_JSC_useFTLJIT|LAIT_JSC_TUNED)=/.test(e)).sort()).toEqual([
        "BUN_JSC_useFTLJIT=0",
        "LAIT_JSC_TUNED=1"
      ])
    } finally {
      child.kill("SIGTERM")
      await child.exited
    }
  }, 60_000)
})

describe.skipIf(process.platform !== "linux")("lait eval and JavaScriptCore", () => {
  test("lait eval is not re-executed, and neither it nor the commands its runs start get an option", async () => {
    const r = await runCli(["--no-env", "eval", "env-eval.yml"], { cwd: dir, env: env(), binary: true })
    expect(r.code).toBe(1)
    expect(shown(r.stdout)).toBe("own: \nlait: ")
  }, 60_000)
})

describe.skipIf(process.platform !== "linux")("lait run and the JIT policy", () => {
  // Records every setJITPolicy call, printed when the process exits.
  const spy = path.join(dir, "jit-spy.ts")
  fs.writeFileSync(
    spy,
    `const calls: Array<number> = []
const unsafe = Bun.unsafe as { setJITPolicy: (scale: number) => void }
const original = unsafe.setJITPolicy
unsafe.setJITPolicy = (scale) => {
  calls.push(scale)
  original(scale)
}
process.on("exit", () => process.stderr.write("jit policy: " + calls.join(" ") + "\\n"))
`
  )
  // Lasts longer than the raised policy, so that its end is seen too.
  fs.writeFileSync(path.join(dir, "slow.yml"), "steps:\n  - run: [sleep, '1']\n")
  /** The exit code and the calls (stderr's last line, after the progress lines). */
  const spied = async (args: ReadonlyArray<string>, extra: Record<string, string> = {}) => {
    const r = await run([process.execPath, "--preload", spy, path.join(repoRoot, "src", "main.ts"), "--no-env", ...args], {
      cwd: dir,
      env: env(extra)
    })
    return { code: r.code, policy: r.stderr.split("\n").at(-2) }
  }

  test("raised twentyfold for the run's start, then back to the default", async () => {
    expect(await spied(["run", "slow.yml", "x"])).toEqual({ code: 0, policy: "jit policy: 20 1" })
  }, 60_000)

  test("left alone when the user chose a tier, and by the other commands", async () => {
    expect(await spied(["run", "slow.yml", "x"], { BUN_JSC_useDFGJIT: "1" })).toEqual({ code: 0, policy: "jit policy: " })
    expect(await spied(["eval", "env-eval.yml"])).toEqual({ code: 1, policy: "jit policy: " })
    expect(await spied(["--version"])).toEqual({ code: 0, policy: "jit policy: " })
  }, 60_000)
})
