// `lait run` with stdin redirected from a file or /dev/null (cron, CI, `</dev/null`) reads it at once
// instead of through Node's stdin stream, which cost about 10 ms of every such run
// (test/fixtures/stdin-trap.ts reports a read of the stream).
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

const repoRoot = path.resolve(import.meta.dir, "../..")
const TRAP = "stdin-trap: the stdin stream was read"
let dir = ""

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "lait-run-stdin-"))
  fs.writeFileSync(path.join(dir, "wf.yml"), "steps:\n  - jq: 'tostring + \"!\"'\n")
  fs.writeFileSync(path.join(dir, "input.txt"), "from a file\n")
})
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

// A process, not runCli's in-process default: what is tested is the process's own fd 0 (a file,
// /dev/null, a pipe) and whether its stdin stream gets built.
const lait = async (args: ReadonlyArray<string>, stdin: number | "pipe", piped?: string) => {
  const command = [
    process.execPath,
    "--preload",
    path.join(repoRoot, "test/fixtures/stdin-trap.ts"),
    path.join(repoRoot, "src/main.ts"),
    "--no-config",
    "--no-env",
    ...args
  ]
  const child = Bun.spawn(command, {
    cwd: dir,
    stdin,
    stdout: "pipe",
    stderr: "pipe",
    env: { ...process.env, NO_COLOR: "1", XDG_DATA_HOME: path.join(dir, "data") }
  })
  if (piped !== undefined && typeof child.stdin === "object" && child.stdin !== null) {
    child.stdin.write(piped)
    await child.stdin.end()
  }
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited
  ])
  return { stdout, stderr, code }
}

const withFd = async <A>(file: string, use: (fd: number) => Promise<A>): Promise<A> => {
  const fd = fs.openSync(file, "r")
  try {
    return await use(fd)
  } finally {
    fs.closeSync(fd)
  }
}

describe("lait run's stdin", () => {
  test("/dev/null: PROMPT alone, and the stdin stream is never read", async () => {
    const r = await withFd("/dev/null", (fd) => lait(["run", "wf.yml", "41"], fd))
    expect(r.stdout).toBe("41!\n")
    expect(r.code).toBe(0)
    expect(r.stderr).not.toContain(TRAP)
  }, 30_000)

  test("a file: it is the PROMPT, and the stdin stream is never read", async () => {
    const r = await withFd(path.join(dir, "input.txt"), (fd) => lait(["run", "wf.yml"], fd))
    expect(r.stdout).toBe("from a file!\n")
    expect(r.code).toBe(0)
    expect(r.stderr).not.toContain(TRAP)
  }, 30_000)

  test("a pipe still goes through the stream (the trap sees it)", async () => {
    const r = await lait(["run", "wf.yml"], "pipe", "piped\n")
    expect(r.stdout).toBe("piped!\n")
    expect(r.code).toBe(0)
    expect(r.stderr).toContain(TRAP)
  }, 30_000)
})
