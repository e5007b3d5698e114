import { describe, expect, setDefaultTimeout, test } from "bun:test"
import { spawnGroup } from "../../src/platform/process.ts"

// Tests here wait on processes: bun's 5 s default is no bound for a loaded machine.
setDefaultTimeout(60_000)

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

// A bound for a machine many times slower: a wait ends as soon as the check holds.
const waitFor = async (check: () => boolean, ms = 30_000) => {
  const until = Date.now() + ms
  while (!check() && Date.now() < until) await Bun.sleep(20)
  return check()
}

describe("spawnGroup", () => {
  test("terminate: SIGTERM to the group, SIGKILL after the grace period for what ignored it", async () => {
    // The shell forwards nothing: its background worker ignores SIGTERM and must still die.
    const group = await spawnGroup("sh", ["-c", "trap '' TERM; sleep 30 & echo $!; wait"], {
      stdio: ["ignore", "pipe", "pipe"]
    })
    const workerPid = await new Promise<number>((resolve) =>
      group.child.stdout!.once("data", (chunk: Buffer) => resolve(Number(chunk.toString().trim())))
    )
    expect(alive(workerPid)).toBe(true)
    const started = Date.now()
    await group.terminate(300)
    // A lower bound (the grace period was waited out), which a slower machine cannot break.
    expect(Date.now() - started, "ms terminate took with a 300 ms grace period").toBeGreaterThanOrEqual(250)
    expect(await waitFor(() => !alive(workerPid))).toBe(true)
  })

  test("a program that cannot be started rejects with the OS error", async () => {
    const error = await spawnGroup("/nonexistent/lait-test-program", [], { stdio: ["ignore", "pipe", "pipe"] })
      .then(() => undefined, (e: unknown) => e as { code?: string })
    expect(error?.code).toBe("ENOENT")
  })
})
