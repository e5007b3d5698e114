// `lait --version`, `-V`, `--help` and `-h` are answered by src/cli/fastPath.ts before the CLI loads,
// the help from a text build.ts rendered with effect/cli. Each must print exactly what the full CLI
// prints for the same request: `--no-env` in front (a global flag that changes nothing here) sends the
// same request down the slow path, so any drift (a command added, a description changed, a new
// version format) fails here. On a terminal (`script` gives one) help is coloured; that must match too.
import { afterAll, describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import { ensureBinary, makeTempDir, run } from "./util.ts"

const cwd = makeTempDir("fast-path")
afterAll(() => fs.rmSync(cwd, { recursive: true, force: true }))

const env = { PATH: process.env["PATH"], HOME: cwd, LANG: "C.UTF-8" }

const both = async (args: ReadonlyArray<string>, withEnv: Record<string, string | undefined>) => {
  const lait = await ensureBinary()
  const fast = await run([lait, ...args], { cwd, env: withEnv })
  const slow = await run([lait, "--no-env", ...args], { cwd, env: withEnv })
  return { fast, slow }
}

describe("the fast path prints what the full CLI prints", () => {
  for (const args of [["--version"], ["-V"], ["--help"], ["-h"]]) {
    test(`lait ${args.join(" ")}`, async () => {
      const { fast, slow } = await both(args, { ...env, NO_COLOR: "1" })
      expect(slow.code).toBe(0)
      expect(slow.stdout.length).toBeGreaterThan(10)
      expect(fast).toEqual(slow)
    }, 60_000)
  }

  test.skipIf(Bun.which("script") === null)("lait --help on a terminal, in colour", async () => {
    const lait = await ensureBinary()
    const onTty = (args: string) => run(["script", "-qec", `${lait} ${args}`, "/dev/null"], { cwd, env: { ...env, TERM: "xterm" } })
    const [fast, slow] = [await onTty("--help"), await onTty("--no-env --help")]
    expect(slow.stdout).toContain("\x1b[1mDESCRIPTION\x1b[0m")
    expect(fast).toEqual(slow)
  }, 60_000)
})
