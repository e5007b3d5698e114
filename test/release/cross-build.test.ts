// build.ts --target: the runtime for a foreign target comes from the npm package
// @oven/bun-<os>-<arch>, fetched with npm, and the binary is for that platform. Release-only and slow
// (each build compiles the whole bundle again), so `npm run test:release` runs it, not `npm test`
// (bunfig.toml); build.ts's own usage errors stay in test/e2e/binary.test.ts.
import { describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as path from "node:path"
import { repoRoot, run } from "../e2e/util.ts"

const build = (...args: Array<string>) => run([process.execPath, path.join(repoRoot, "build.ts"), ...args], { cwd: process.cwd(), timeoutMs: 300_000 })

describe("build.ts --target", () => {
  test.each([
    ["bun-linux-arm64", "lait-bun-linux-arm64", (b: Buffer) => b.readUInt32BE(0) === 0x7f454c46 && b.readUInt16LE(18) === 183], // ELF, EM_AARCH64
    ["bun-windows-x64", "lait-bun-windows-x64.exe", (b: Buffer) => b.subarray(0, 2).toString() === "MZ"]
  ])("--target %s builds dist/%s for that platform", async (target, file, isRightFormat) => {
    const out = path.join(repoRoot, "dist", file)
    fs.rmSync(out, { force: true })
    const r = await build("--target", target)
    expect(r.stderr).not.toContain("failed")
    expect(r.code).toBe(0)
    const header = Buffer.alloc(64)
    const fd = fs.openSync(out, "r")
    fs.readSync(fd, header, 0, 64, 0)
    fs.closeSync(fd)
    expect(isRightFormat(header)).toBe(true)
    expect(fs.statSync(out).size).toBeGreaterThan(50 * 2 ** 20)
  }, 300_000)
})
