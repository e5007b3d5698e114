// FileLoader's metadata and housekeeping operations fail with a FileError whose reason says what the
// OS refused, and keep the OS error for callers that word it themselves (src/platform/fileOps.ts).
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Effect } from "effect"
import { renderChain } from "../../src/core/errors.ts"
import { FileError } from "../../src/core/fileErrors.ts"
import { errnoOf, osReason } from "../../src/core/osError.ts"
import { FileLoader } from "../../src/platform/FileLoader.ts"

let dir = ""
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "lait-fileops-"))
})
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

/** The FileError an operation fails with (the test fails when it succeeds). */
const failure = <A>(effect: Effect.Effect<A, FileError, FileLoader>): Promise<FileError> =>
  Effect.runPromise(Effect.flip(effect).pipe(Effect.provide(FileLoader.layer)))

const ok = <A>(effect: Effect.Effect<A, FileError, FileLoader>): Promise<A> =>
  Effect.runPromise(effect.pipe(Effect.provide(FileLoader.layer)))

describe("FileLoader metadata operations", () => {
  test("stat of a missing path fails with NotFound, keeping the OS error", async () => {
    const missing = path.join(dir, "missing.yml")
    const e = await failure(FileLoader.use((f) => f.stat(missing)))
    expect(e).toBeInstanceOf(FileError)
    expect(e.reason._tag).toBe("NotFound")
    expect(e.detail).toBe("no such file or directory")
    expect(renderChain(e)).toBe(`failed to read '${missing}': no such file or directory`)
    expect(errnoOf(e.os)).toBe("ENOENT")
    expect(osReason(e.os)).toBe("No such file or directory")
  })

  test("list of a file fails with OsFailed naming the directory call", async () => {
    const file = path.join(dir, "plain.txt")
    fs.writeFileSync(file, "x")
    const e = await failure(FileLoader.use((f) => f.list(file)))
    expect(e.reason).toMatchObject({ _tag: "OsFailed", op: "list" })
    expect(errnoOf(e.os)).toBe("ENOTDIR")
    expect(renderChain(e)).toBe(`failed to read directory '${file}': a component of the path is not a directory`)
  })

  test("realPath and removeFile of a missing path fail with NotFound in their own words", async () => {
    const missing = path.join(dir, "gone")
    const resolve = await failure(FileLoader.use((f) => f.realPath(missing)))
    expect(resolve.reason).toMatchObject({ _tag: "NotFound", op: "realPath" })
    expect(resolve.message).toBe(`failed to resolve '${missing}'`)
    const remove = await failure(FileLoader.use((f) => f.removeFile(missing)))
    expect(remove.reason).toMatchObject({ _tag: "NotFound", op: "remove" })
    expect(remove.message).toBe(`failed to remove '${missing}'`)
  })

  test("a directory without permission fails with PermissionDenied", async () => {
    if (process.getuid?.() === 0) return // root reads everything
    const locked = path.join(dir, "locked")
    fs.mkdirSync(locked)
    fs.chmodSync(locked, 0o000)
    try {
      const e = await failure(FileLoader.use((f) => f.list(locked)))
      expect(e.reason).toMatchObject({ _tag: "PermissionDenied", access: "read" })
      expect(errnoOf(e.os)).toBe("EACCES")
    } finally {
      fs.chmodSync(locked, 0o700)
    }
  })

  test("the operations do what they say", async () => {
    const sub = path.join(dir, "tree")
    fs.mkdirSync(sub)
    fs.writeFileSync(path.join(sub, "a.json"), "{\"a\":1}")
    expect(await ok(FileLoader.use((f) => f.listNames(sub)))).toEqual(["a.json"])
    expect((await ok(FileLoader.use((f) => f.list(sub)))).map((e) => e.name)).toEqual(["a.json"])
    expect(await ok(FileLoader.use((f) => f.exists(path.join(sub, "a.json"))))).toBe(true)
    expect(Buffer.from(await ok(FileLoader.use((f) => f.readHead(path.join(sub, "a.json"), 2)))).toString()).toBe("{\"")
    const log = path.join(dir, "logs", "h.jsonl")
    await ok(FileLoader.use((f) => Effect.andThen(f.append(log, "1\n"), f.append(log, "2\n"))))
    expect(await ok(FileLoader.use((f) => f.readOwnText(log)))).toBe("1\n2\n")
    expect(fs.statSync(log).mode & 0o777).toBe(0o600)
    const temp = await ok(FileLoader.use((f) => f.makeTempDirectory("lait-fileops-copy-")))
    try {
      await ok(FileLoader.use((f) => f.copyTree(sub, path.join(temp, "copy"))))
      expect(fs.readFileSync(path.join(temp, "copy", "a.json"), "utf8")).toBe("{\"a\":1}")
      const again = await failure(FileLoader.use((f) => f.copyTree(sub, path.join(temp, "copy"))))
      expect(again.reason).toMatchObject({ _tag: "OsFailed", op: "write" })
    } finally {
      await ok(FileLoader.use((f) => f.removeTree(temp)))
    }
    expect(fs.existsSync(temp)).toBe(false)
    fs.symlinkSync(sub, path.join(dir, "link"))
    // Outside the current directory only the last component counts (files.ts symlinkOnPath).
    expect(await ok(FileLoader.use((f) => f.symlinkOnPath(path.join(dir, "link"))))).toBe(path.join(dir, "link"))
    expect(await ok(FileLoader.use((f) => f.symlinkOnPath(sub)))).toBeUndefined()
  })
})
