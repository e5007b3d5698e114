// `run:` commands that misbehave, through the CLI: the error line of a noisy failure keeps only the end
// of its stderr (-v logs all of it, without splitting a character), and what a command leaves running
// in the background is stopped only when it holds the command's output open (see also the cases in
// test/hardening/hostile/processes.ts).
import { afterAll, beforeAll, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as path from "node:path"
import { alive, makeTempDir } from "./util.ts"
import { binaryWorks, lait, write } from "./tools-util.ts"

let cwd = ""
beforeAll(async () => {
  cwd = fs.realpathSync(makeTempDir("e2e-run-commands"))
  await binaryWorks(cwd)
}, 300_000)
afterAll(() => fs.rmSync(cwd, { recursive: true, force: true }))

const lastLine = (text: string) => text.trimEnd().split("\n").at(-1)

test("a failing command: the error line ends with the last 2 KiB of stderr, -v logs all of it", async () => {
  write(cwd, "noise.txt", `FIRST-WORDS ${"x".repeat(5000)} LAST-WORDS\n`)
  const file = write(cwd, "noisy.yml", "steps:\n  - id: noisy\n    run: [sh, -c, 'cat noise.txt >&2; exit 2']\n")
  const quiet = await lait(cwd, ["run", file, "x"])
  expect(quiet.code).toBe(1)
  expect(quiet.stderr).not.toContain("FIRST-WORDS")
  const line = lastLine(quiet.stderr)!
  expect(line).toStartWith(
    "lait: step 'noisy': command 'sh' exited with exit status: 2: [last 2048 of 5023 bytes of stderr; -v shows all] xxx"
  )
  expect(line).toEndWith("x LAST-WORDS")
  const verbose = await lait(cwd, ["run", file, "x", "-v"])
  expect(verbose.code).toBe(1)
  expect(verbose.stderr).toContain(`lait: [debug] stderr of command 'sh':\nFIRST-WORDS ${"x".repeat(5000)} LAST-WORDS\n`)
  expect(lastLine(verbose.stderr)).toBe(line)
}, 60_000)

test("the cut never splits a UTF-8 character", async () => {
  // 2201 bytes: the last 2048 would start inside an 'é'; the message starts after it.
  write(cwd, "accents.txt", `${"é".repeat(1100)}x`)
  const file = write(cwd, "accents.yml", "steps:\n  - id: a\n    run: [sh, -c, 'cat accents.txt >&2; exit 1']\n")
  const r = await lait(cwd, ["run", file, "x"])
  expect(lastLine(r.stderr)).toBe(
    `lait: step 'a': command 'sh' exited with exit status: 1: [last 2047 of 2201 bytes of stderr; -v shows all] ${"é".repeat(1023)}x`
  )
}, 60_000)

test("a background process that let go of the output pipes keeps running after the step", async () => {
  const pidFile = path.join(cwd, "daemon.pid")
  const file = write(
    cwd,
    "daemon.yml",
    `steps:\n  - run: [sh, -c, 'sleep 300 </dev/null >/dev/null 2>&1 & echo $! > "$0"; echo started', '${pidFile}']\n`
  )
  const r = await lait(cwd, ["run", file, "x"])
  const pid = Number(fs.readFileSync(pidFile, "utf8"))
  try {
    expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 0, stdout: "started\n" })
    // Nothing held the pipes: lait neither waited for the process (300 s) nor killed it as a
    // holder of its pipes after the grace period.
    expect(alive(pid), "the background process still running after lait").toBe(true)
  } finally {
    process.kill(pid, "SIGKILL")
  }
}, 60_000)
