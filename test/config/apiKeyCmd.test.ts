import * as fs from "node:fs"
import * as nodePath from "node:path"
import { describe, expect, setDefaultTimeout, test } from "bun:test"
import { Effect, Exit, Fiber, Redacted } from "effect"
import { resolveApiKeyCmd, runApiKeyCmd } from "../../src/config/apiKeyCmd.ts"
import { renderChain } from "../../src/core/errors.ts"
import { tempDir } from "./helpers.ts"
import { alive } from "../e2e/util.ts"

// Tests here wait on processes: bun's 5 s default is no bound for a loaded machine.
setDefaultTimeout(60_000)

const value = (effect: Effect.Effect<Redacted.Redacted<string>, unknown>) =>
  Effect.runPromise(Effect.map(effect, Redacted.value))
const failure = (effect: Effect.Effect<unknown, unknown>) =>
  Effect.runPromise(Effect.flip(effect)).then(renderChain)

// A bound for a machine many times slower: a wait ends as soon as the check holds.
const waitFor = async (check: () => boolean, ms = 30_000) => {
  const until = Date.now() + ms
  while (!check() && Date.now() < until) await Bun.sleep(10)
  return check()
}

describe("api_key_cmd", () => {
  test("a string runs through sh -c; one trailing newline is removed", async () => {
    expect(await value(runApiKeyCmd("printf 'sk-%s\\n' abc | tr a-z A-Z"))).toBe("SK-ABC")
    expect(await value(runApiKeyCmd("printf 'k\\r\\n'"))).toBe("k")
    expect(await value(runApiKeyCmd("printf ' k \\n\\n'"))).toBe(" k \n")
  })

  test("an array is exec'd directly, without a shell", async () => {
    expect(await value(runApiKeyCmd(["printf", "%s", "$HOME; echo no"]))).toBe("$HOME; echo no")
  })

  test("the result is Redacted", async () => {
    const key = await Effect.runPromise(runApiKeyCmd("printf s3cret"))
    expect(String(key)).not.toContain("s3cret")
    expect(JSON.stringify({ key })).not.toContain("s3cret")
    expect(Redacted.value(key)).toBe("s3cret")
  })

  test("runs with the given environment and cwd", async () => {
    const cwd = tempDir()
    expect(await value(runApiKeyCmd("printf '%s:%s' \"$LAIT_K\" \"$(pwd)\"", { env: { LAIT_K: "v", PATH: process.env["PATH"] }, cwd })))
      .toBe(`v:${cwd}`)
  })

  test("success is cached per process", async () => {
    const dir = tempDir()
    const counter = nodePath.join(dir, "count")
    const spec = `echo x >> '${counter}'; printf cached-key`
    expect(await value(resolveApiKeyCmd(spec))).toBe("cached-key")
    expect(await value(resolveApiKeyCmd(spec))).toBe("cached-key")
    expect(fs.readFileSync(counter, "utf8")).toBe("x\n")
  })

  test("concurrent first uses run the command once", async () => {
    const dir = tempDir()
    const counter = nodePath.join(dir, "count")
    const spec = `echo x >> '${counter}'; sleep 0.1; printf once`
    const keys = await Effect.runPromise(
      Effect.all([resolveApiKeyCmd(spec), resolveApiKeyCmd(spec), resolveApiKeyCmd(spec)], { concurrency: "unbounded" })
    )
    expect(keys.map(Redacted.value)).toEqual(["once", "once", "once"])
    expect(fs.readFileSync(counter, "utf8")).toBe("x\n")
  })

  test("a failure is not cached: the next use runs the command again", async () => {
    const dir = tempDir()
    const marker = nodePath.join(dir, "marker")
    const spec = `if [ -e '${marker}' ]; then printf recovered; else touch '${marker}'; exit 1; fi`
    expect(await failure(resolveApiKeyCmd(spec))).toBe("api_key_cmd exited with status 1")
    expect(await value(resolveApiKeyCmd(spec))).toBe("recovered")
  })

  test("empty output is an error", async () => {
    expect(await failure(runApiKeyCmd("true"))).toBe("api_key_cmd produced no output")
    expect(await failure(runApiKeyCmd("echo"))).toBe("api_key_cmd produced no output")
  })

  test("a non-zero exit is an error that never shows stderr", async () => {
    const message = await failure(runApiKeyCmd("printf 'sk-leaked-on-stderr' >&2; printf partial; exit 7"))
    expect(message).toBe("api_key_cmd exited with status 7")
  })

  test("a missing program is an error", async () => {
    expect(await failure(runApiKeyCmd(["lait-no-such-program-xyz"]))).toBe(
      "failed to run api_key_cmd 'lait-no-such-program-xyz': no such file or directory"
    )
  })

  test("a timeout kills the whole process tree", async () => {
    const dir = tempDir()
    const pidFile = nodePath.join(dir, "child.pid")
    // A command left to finish would take 300 s, far past this test's own 60 s bound.
    const message = await failure(
      runApiKeyCmd(`sleep 300 & echo $! > '${pidFile}'; wait`, { timeoutMillis: 300 })
    )
    expect(message).toBe("api_key_cmd timed out after 300ms")
    const pid = Number(fs.readFileSync(pidFile, "utf8").trim())
    expect(await waitFor(() => !alive(pid), 30_000), "the command's child gone").toBe(true)
  }, 60_000)

  test("the default timeout is 30 s", async () => {
    // Seen through the message only; a real 30 s wait would make the suite slow.
    const { API_KEY_CMD_TIMEOUT_MILLIS } = await import("../../src/config/apiKeyCmd.ts")
    expect(API_KEY_CMD_TIMEOUT_MILLIS).toBe(30_000)
    expect(await failure(runApiKeyCmd("sleep 5", { timeoutMillis: 1000 }))).toBe("api_key_cmd timed out after 1s")
  })

  test("stdout over 64 KiB is an error; exactly 64 KiB is accepted", async () => {
    expect(await failure(runApiKeyCmd("head -c 65537 /dev/zero | tr '\\0' a"))).toBe(
      "api_key_cmd's stdout exceeded the limit of 65536 bytes"
    )
    expect((await value(runApiKeyCmd("head -c 65536 /dev/zero | tr '\\0' a"))).length).toBe(65536)
  })

  test("stderr over 64 KiB is an error that shows none of it", async () => {
    const message = await failure(runApiKeyCmd("head -c 70000 /dev/zero | tr '\\0' s >&2; printf key"))
    expect(message).toBe("api_key_cmd's stderr exceeded the limit of 65536 bytes")
  })

  test("an output cap stops a command that would otherwise run on", async () => {
    // Run on, the command would take 300 s, far past this test's own 60 s bound.
    expect(await failure(runApiKeyCmd("printf 123456789; sleep 300", { maxOutputBytes: 8 }))).toBe(
      "api_key_cmd's stdout exceeded the limit of 8 bytes"
    )
  }, 60_000)

  test("interruption kills the process tree", async () => {
    const dir = tempDir()
    const pidFile = nodePath.join(dir, "child.pid")
    const exit = await Effect.runPromise(
      Effect.gen(function*() {
        const fiber = yield* Effect.forkChild(runApiKeyCmd(`sleep 30 & echo $! > '${pidFile}'; wait`))
        yield* Effect.promise(() => waitFor(() => fs.existsSync(pidFile) && fs.readFileSync(pidFile, "utf8").length > 0))
        return yield* Fiber.interrupt(fiber).pipe(Effect.andThen(Fiber.await(fiber)))
      })
    )
    expect(Exit.hasInterrupts(exit)).toBe(true)
    const pid = Number(fs.readFileSync(pidFile, "utf8").trim())
    expect(await waitFor(() => !alive(pid))).toBe(true)
  })

  test("non-UTF-8 output is an error", async () => {
    expect(await failure(runApiKeyCmd("printf '\\377\\376'"))).toBe("api_key_cmd's output was not valid UTF-8")
  })
})
