// FileLoader.readStdin: a regular file or /dev/null on stdin is read at once, without building Node's
// stdin stream (what `lait run wf.yml 41 </dev/null` paid about 10 ms for); pipes still go through
// the stream. Same text, limit and errors either way. Each case is a child process with that stdin.
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { stdinSpy } from "./stdinSpy.ts"

const repoRoot = path.resolve(import.meta.dir, "../..")
let dir = ""

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "lait-stdin-"))
})
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

// Reports whether the script touched `process.stdin` (the getter builds the stream on first use).
const script = `
  import { Effect } from "effect"
  import { renderChain } from ${JSON.stringify(path.join(repoRoot, "src/core/errors.ts"))}
  import { FileLoader } from ${JSON.stringify(path.join(repoRoot, "src/platform/FileLoader.ts"))}
  ${stdinSpy}
  const exit = await Effect.runPromiseExit(FileLoader.use((f) => f.readStdin).pipe(Effect.provide(FileLoader.layer)))
  const text = exit._tag === "Success" ? exit.value : undefined
  const error = exit._tag === "Failure" ? renderChain(exit.cause.reasons.find((r) => r._tag === "Fail")?.error) : undefined
  console.log(JSON.stringify({ text, error, stream }))
  process.exit(0)
`

const readWith = async (stdin: "pipe" | number, piped?: Uint8Array) => {
  const child = Bun.spawn([process.execPath, "-e", script], { cwd: repoRoot, stdin, stdout: "pipe", stderr: "pipe" })
  if (piped !== undefined && typeof child.stdin === "object" && child.stdin !== null) {
    child.stdin.write(piped)
    await child.stdin.end()
  }
  const [stdout, stderr] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text()])
  await child.exited
  expect(stderr).toBe("")
  return JSON.parse(stdout) as { text?: string; error?: string; stream: boolean }
}

const fromFile = async (bytes: Uint8Array | string) => {
  const file = path.join(dir, `in-${Math.random().toString(36).slice(2)}`)
  fs.writeFileSync(file, bytes)
  const fd = fs.openSync(file, "r")
  try {
    return await readWith(fd)
  } finally {
    fs.closeSync(fd)
  }
}

const INVALID = new Uint8Array([0x68, 0x69, 0xff, 0xfe, 0x0a])

describe("readStdin", () => {
  test("a regular file is read without the stream, trailing newlines dropped", async () => {
    expect(await fromFile("hello\nworld\n\n")).toEqual({ text: "hello\nworld", stream: false })
  }, 30_000)

  test("/dev/null is empty, without the stream", async () => {
    const fd = fs.openSync("/dev/null", "r")
    try {
      expect(await readWith(fd)).toEqual({ text: "", stream: false })
    } finally {
      fs.closeSync(fd)
    }
  }, 30_000)

  test("a pipe goes through the stream, with the same text", async () => {
    expect(await readWith("pipe", new TextEncoder().encode("hello\nworld\n\n"))).toEqual({
      text: "hello\nworld",
      stream: true
    })
  }, 30_000)

  test("invalid UTF-8 fails alike from a file and from a pipe", async () => {
    const file = await fromFile(INVALID)
    const pipe = await readWith("pipe", INVALID)
    expect(file).toEqual({ error: "failed to read from stdin: stream did not contain valid UTF-8", stream: false })
    expect(pipe).toEqual({ ...file, stream: true })
  }, 30_000)

  test("a file over the read limit fails with the limit", async () => {
    const result = await fromFile(new Uint8Array(16 * 1024 * 1024 + 1).fill(0x61))
    expect(result.stream).toBe(false)
    expect(result.error).toContain("stdin exceeds the configured read limit of 16777216 bytes")
  }, 30_000)
})
