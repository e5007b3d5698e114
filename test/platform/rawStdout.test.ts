// isTerminal answers as tty.isatty does, loading node:tty only for a device that may be a terminal.
import { afterAll, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as tty from "node:tty"
import { isTerminal } from "../../src/platform/rawStdout.ts"

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "lait-rawstdout-"))
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

test("isTerminal agrees with tty.isatty on memory devices, files, directories, pseudo-terminals and closed fds", () => {
  const file = path.join(dir, "f.txt")
  fs.writeFileSync(file, "x")
  const candidates = ["/dev/null", "/dev/zero", "/dev/full", "/dev/urandom", file, dir, "/dev/ptmx"]
  const fds = candidates.flatMap((p) => {
    try {
      return [[p, fs.openSync(p, "r")] as const]
    } catch {
      return []
    }
  })
  try {
    // A pseudo-terminal's master side is a terminal where the platform has one: the node:tty branch.
    if (process.platform === "linux") expect(fds.map(([p]) => p)).toContain("/dev/ptmx")
    for (const [p, fd] of fds) expect({ p, answer: isTerminal(fd) }).toEqual({ p, answer: tty.isatty(fd) })
    expect(fds.some(([, fd]) => isTerminal(fd))).toBe(process.platform === "linux")
  } finally {
    for (const [, fd] of fds) fs.closeSync(fd)
  }
  const closed = fs.openSync(file, "r")
  fs.closeSync(closed)
  expect(isTerminal(closed)).toBe(tty.isatty(closed))
})
