import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { Effect, Exit, Fiber } from "effect"
import { renderChain } from "../../src/core/errors.ts"
import {
  FileLoader,
  isStreamTarget,
  READ_LIMIT,
  writeAtomicSync,
  writeStream,
  writeUserFile
} from "../../src/platform/FileLoader.ts"

let dir = ""
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "lait-fileloader-"))
})
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

const run = <A, E>(effect: Effect.Effect<A, E, FileLoader>) =>
  Effect.runPromiseExit(effect.pipe(Effect.provide(FileLoader.layer)))

const readText = (p: string, waitForWriter = true) => FileLoader.use((f) => f.readText(p, { waitForWriter }))

const failureMessage = (exit: Exit.Exit<unknown, unknown>): string => {
  if (Exit.isSuccess(exit)) throw new Error("expected a failure")
  const reason = exit.cause.reasons[0]
  if (reason === undefined || reason._tag !== "Fail") throw new Error(`expected a typed failure, got ${String(exit.cause)}`)
  return renderChain(reason.error)
}

const mkfifo = (p: string) => {
  const r = Bun.spawnSync(["mkfifo", p])
  if (r.exitCode !== 0) throw new Error("mkfifo failed")
}

describe("FileLoader.readText", () => {
  test("reads a UTF-8 file", async () => {
    const p = path.join(dir, "ok.yml")
    fs.writeFileSync(p, "name: héllo ✓\n")
    const exit = await run(readText(p))
    expect(exit).toEqual(Exit.succeed("name: héllo ✓\n"))
  })

  test("a file of exactly 16 MiB loads; one byte more fails naming the path", async () => {
    const exact = path.join(dir, "exact.txt")
    fs.writeFileSync(exact, Buffer.alloc(READ_LIMIT, 0x61))
    const ok = await run(readText(exact))
    expect(Exit.isSuccess(ok) && ok.value.length).toBe(16_777_216)

    const over = path.join(dir, "over.txt")
    fs.writeFileSync(over, Buffer.alloc(READ_LIMIT + 1, 0x61))
    expect(failureMessage(await run(readText(over)))).toBe(
      `failed to read '${over}': file contents exceed the configured read limit of 16777216 bytes`
    )
  })

  test("an oversized file is rejected without reading it (a sparse 8 TiB file fails at once)", async () => {
    const sparse = path.join(dir, "sparse.bin")
    const fd = fs.openSync(sparse, "w")
    fs.ftruncateSync(fd, 8 * 1024 ** 4)
    fs.closeSync(fd)
    // Reading 8 TiB of zeroes would take far longer than this test's own 60 s bound; the stat
    // check answers at once.
    const message = failureMessage(await run(readText(sparse)))
    expect(message).toContain("exceed the configured read limit of 16777216 bytes")
  }, 60_000)

  test("an endless character device stops at the limit", async () => {
    expect(failureMessage(await run(readText("/dev/zero")))).toBe(
      "failed to read '/dev/zero': file contents exceed the configured read limit of 16777216 bytes"
    )
  })

  test("invalid UTF-8 is rejected", async () => {
    const p = path.join(dir, "latin1.txt")
    fs.writeFileSync(p, Buffer.from([0x61, 0xff, 0xfe, 0x62]))
    expect(failureMessage(await run(readText(p)))).toBe(`failed to read '${p}': file contents were not valid UTF-8`)
  })

  test("missing files and directories give one-line reasons", async () => {
    const missing = path.join(dir, "nope.yml")
    expect(failureMessage(await run(readText(missing)))).toBe(`failed to read '${missing}': no such file or directory`)
    expect(failureMessage(await run(readText(dir)))).toBe(`failed to read '${dir}': is a directory`)
  })

  test("a socket is refused instead of hanging", async () => {
    const sock = path.join(dir, "s.sock")
    const server = net.createServer().listen(sock)
    await new Promise((r) => server.once("listening", r))
    try {
      expect(failureMessage(await run(readText(sock)))).toStartWith(`failed to read '${sock}': not a readable file`)
    } finally {
      server.close()
    }
  })

  test("a FIFO is read once a writer appears and closes", async () => {
    const fifo = path.join(dir, "late-writer.fifo")
    mkfifo(fifo)
    const writer = Bun.spawn(["sh", "-c", `sleep 0.3; printf 'steps: []\\n' > '${fifo}'`])
    const exit = await run(readText(fifo))
    await writer.exited
    expect(exit).toEqual(Exit.succeed("steps: []\n"))
  })

  test("a FIFO with no writer fails at once when the caller must not wait", async () => {
    const fifo = path.join(dir, "no-writer.fifo")
    mkfifo(fifo)
    expect(failureMessage(await run(readText(fifo, false)))).toBe(
      `failed to read '${fifo}': it is a FIFO with no writer`
    )
  })

  test("noFollow: a symlink as the file itself is refused by the open (O_NOFOLLOW), a plain file reads", async () => {
    const target = path.join(dir, "nofollow-target.txt")
    const link = path.join(dir, "nofollow-link.txt")
    fs.writeFileSync(target, "secret")
    fs.symlinkSync(target, link)
    const read = (p: string) => FileLoader.use((f) => f.readText(p, { waitForWriter: false, noFollow: true }))
    expect(failureMessage(await run(read(link)))).toBe(`failed to read '${link}': refusing to follow symbolic link '${link}'`)
    expect(await Effect.runPromise(read(target).pipe(Effect.provide(FileLoader.layer)))).toBe("secret")
  })

  test("waiting on a FIFO with no writer is interruptible", async () => {
    const fifo = path.join(dir, "interrupt.fifo")
    mkfifo(fifo)
    const exit = await Effect.runPromise(
      Effect.gen(function*() {
        const fiber = yield* Effect.forkChild(readText(fifo))
        yield* Effect.sleep("150 millis")
        yield* Fiber.interrupt(fiber)
        return yield* Fiber.await(fiber)
      }).pipe(Effect.provide(FileLoader.layer))
    )
    expect(Exit.isFailure(exit) && exit.cause.reasons.every((r) => r._tag === "Interrupt")).toBe(true)
  })
})

describe("atomic writes", () => {
  test("creates parents, writes the bytes and leaves no temp file", async () => {
    const target = path.join(dir, "nested", "deeper", "out.json")
    const exit = await run(FileLoader.use((f) => f.writeAtomic(target, "{\"a\":1}\n")))
    expect(Exit.isSuccess(exit)).toBe(true)
    expect(fs.readFileSync(target, "utf8")).toBe("{\"a\":1}\n")
    expect(fs.readdirSync(path.dirname(target))).toEqual(["out.json"])
  })

  test("replaces an existing file whole", () => {
    const target = path.join(dir, "replace.txt")
    fs.writeFileSync(target, "old contents that are longer")
    writeAtomicSync(target, "new")
    expect(fs.readFileSync(target, "utf8")).toBe("new")
  })

  test("createDirs: false refuses a missing directory instead of making it", () => {
    const target = path.join(dir, "missing-parent", "out.txt")
    expect(() => writeAtomicSync(target, "x", { createDirs: false })).toThrow(/ENOENT/)
    expect(fs.existsSync(path.dirname(target))).toBe(false)
  })

  test("a replaced file keeps its permissions; a directory target fails like a plain write", () => {
    const target = path.join(dir, "script.sh")
    fs.writeFileSync(target, "#!/bin/sh\n")
    fs.chmodSync(target, 0o750)
    writeAtomicSync(target, "#!/bin/sh\necho new\n")
    expect(fs.statSync(target).mode & 0o7777).toBe(0o750)
    expect(fs.readFileSync(target, "utf8")).toBe("#!/bin/sh\necho new\n")
    const asDir = path.join(dir, "a-dir")
    fs.mkdirSync(asDir)
    expect(() => writeAtomicSync(asDir, "x")).toThrow(expect.objectContaining({ code: "EISDIR" }))
    expect(fs.readdirSync(dir).filter((n) => n.endsWith(".tmp"))).toEqual([])
  })

  test("a failed rename removes the temp file", async () => {
    const target = path.join(dir, "is-a-dir")
    fs.mkdirSync(path.join(target, "child"), { recursive: true })
    const exit = await run(FileLoader.use((f) => f.writeAtomic(target, "data")))
    expect(failureMessage(exit)).toStartWith(`failed to write '${target}'`)
    expect(fs.readdirSync(dir).filter((n) => n.endsWith(".tmp"))).toEqual([])
  })

  test("temp names follow <name>.<pid>.<n>.tmp and never clobber an existing temp", () => {
    const target = path.join(dir, "clash.txt")
    // Occupy the next few candidate names: create-new must skip them rather than overwrite.
    const seen = fs.readdirSync(dir)
    writeAtomicSync(target, "x")
    expect(fs.readdirSync(dir).filter((n) => !seen.includes(n))).toEqual(["clash.txt"])
    for (let n = 0; n < 200; n++) fs.writeFileSync(path.join(dir, `clash.txt.${process.pid}.${n}.tmp`), "keep")
    writeAtomicSync(target, "y")
    expect(fs.readFileSync(target, "utf8")).toBe("y")
    expect(fs.readFileSync(path.join(dir, `clash.txt.${process.pid}.0.tmp`), "utf8")).toBe("keep")
  })
})

describe("writeUserFile and symlinks", () => {
  const write = (p: string, data: string) => Effect.runPromiseExit(writeUserFile(p, data, { createDirs: false }))

  test("a chain of relative symlinks is written through: the last target is replaced, the links stay", async () => {
    const sub = path.join(dir, "links")
    fs.mkdirSync(path.join(sub, "real"), { recursive: true })
    fs.writeFileSync(path.join(sub, "real", "file.txt"), "old")
    fs.chmodSync(path.join(sub, "real", "file.txt"), 0o600)
    fs.symlinkSync("real/file.txt", path.join(sub, "first"))
    fs.symlinkSync("first", path.join(sub, "outer"))
    expect(Exit.isSuccess(await write(path.join(sub, "outer"), "new"))).toBe(true)
    expect([fs.readlinkSync(path.join(sub, "outer")), fs.readlinkSync(path.join(sub, "first"))]).toEqual(["first", "real/file.txt"])
    expect(fs.readFileSync(path.join(sub, "real", "file.txt"), "utf8")).toBe("new")
    expect(fs.statSync(path.join(sub, "real", "file.txt")).mode & 0o7777).toBe(0o600)
    expect(fs.readdirSync(path.join(sub, "real"))).toEqual(["file.txt"])
  })

  test("a dangling symlink gets its target created, as open(2) would", async () => {
    const link = path.join(dir, "dangling-link")
    fs.symlinkSync("dangling-target.txt", link)
    expect(Exit.isSuccess(await write(link, "made"))).toBe(true)
    expect(fs.lstatSync(link).isSymbolicLink()).toBe(true)
    expect(fs.readFileSync(path.join(dir, "dangling-target.txt"), "utf8")).toBe("made")
  })

  test("a symlink loop fails instead of spinning", async () => {
    fs.symlinkSync("loop-b", path.join(dir, "loop-a"))
    fs.symlinkSync("loop-a", path.join(dir, "loop-b"))
    const exit = await write(path.join(dir, "loop-a"), "x")
    expect(Exit.isFailure(exit) && JSON.stringify(exit.cause)).toContain("ELOOP")
  })

  test.skipIf(!fs.existsSync("/proc/self/fd"))("a /proc/self/fd path is written into the descriptor's file, appended", async () => {
    const file = path.join(dir, "descriptor.txt")
    fs.writeFileSync(file, "kept\n")
    const fd = fs.openSync(file, "a")
    try {
      expect(Exit.isSuccess(await write(`/proc/self/fd/${fd}`, "added\n"))).toBe(true)
      fs.writeSync(fd, "then\n")
    } finally {
      fs.closeSync(fd)
    }
    expect(fs.readFileSync(file, "utf8")).toBe("kept\nadded\nthen\n")
  })
})

describe("writing into a FIFO (issue 12)", () => {
  const reader = (fifo: string) => {
    const child = Bun.spawn(["cat", fifo], { stdin: "ignore", stdout: "pipe", stderr: "ignore" })
    return new Response(child.stdout).text()
  }

  test("writeAtomic writes through a FIFO in place instead of renaming a file over it", async () => {
    const fifo = path.join(dir, "trace.fifo")
    mkfifo(fifo)
    const received = reader(fifo)
    const exit = await run(FileLoader.use((f) => f.writeAtomic(fifo, "a\nb\n")))
    expect(Exit.isSuccess(exit)).toBe(true)
    expect(await received).toBe("a\nb\n")
    expect(fs.lstatSync(fifo).isFIFO()).toBe(true)
  })

  test("more than a pipe buffer goes through while the reader drains it", async () => {
    const fifo = path.join(dir, "big.fifo")
    mkfifo(fifo)
    const received = reader(fifo)
    const data = "x".repeat(1024 * 1024)
    expect(Exit.isSuccess(await Effect.runPromiseExit(writeStream(fifo, data)))).toBe(true)
    expect((await received).length).toBe(data.length)
  })

  test("waiting for a reader that never comes is interruptible (no blocking open)", async () => {
    const fifo = path.join(dir, "nobody.fifo")
    mkfifo(fifo)
    expect(isStreamTarget(fifo)).toBe(true)
    const exit = await Effect.runPromise(
      Effect.gen(function*() {
        const fiber = yield* Effect.forkChild(writeStream(fifo, "never read"))
        yield* Effect.sleep("100 millis")
        yield* Fiber.interrupt(fiber)
        return yield* Fiber.await(fiber)
      })
    )
    expect(Exit.isFailure(exit) && exit.cause.reasons.every((r) => r._tag === "Interrupt")).toBe(true)
  })
})

describe("FileLoader metadata and listings", () => {
  test("stat, realPath, list and exists describe the file system; failures carry the OS error", async () => {
    const sub = path.join(dir, "meta")
    fs.mkdirSync(sub)
    fs.writeFileSync(path.join(sub, "a.txt"), "abc")
    fs.symlinkSync(path.join(sub, "a.txt"), path.join(sub, "link"))
    const exit = await run(FileLoader.use((f) =>
      Effect.gen(function*() {
        const stat = yield* f.stat(path.join(sub, "link"))
        const real = yield* f.realPath(path.join(sub, "link"))
        const names = (yield* f.list(sub)).map((e) => `${e.name}:${e.isSymbolicLink() ? "l" : "f"}`).sort()
        const missing = yield* f.stat(path.join(sub, "nope")).pipe(Effect.flip)
        return {
          size: stat.size,
          real,
          names,
          there: yield* f.exists(path.join(sub, "a.txt")),
          gone: yield* f.exists(path.join(sub, "nope")),
          reason: missing.reason._tag,
          code: missing.os.code
        }
      })
    ))
    expect(Exit.isSuccess(exit) ? exit.value : exit).toEqual({
      size: 3,
      real: fs.realpathSync(path.join(sub, "a.txt")),
      names: ["a.txt:f", "link:l"],
      there: true,
      gone: false,
      reason: "NotFound",
      code: "ENOENT"
    })
  })

  test("writeInPlace appends to an existing file instead of replacing it", async () => {
    const target = path.join(dir, "inplace.txt")
    fs.writeFileSync(target, "one\n")
    const before = fs.statSync(target).ino
    expect(Exit.isSuccess(await run(FileLoader.use((f) => f.writeInPlace(target, "two\n"))))).toBe(true)
    expect(fs.readFileSync(target, "utf8")).toBe("one\ntwo\n")
    expect(fs.statSync(target).ino).toBe(before)
  })
})
