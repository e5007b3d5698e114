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

// A full non-blocking pipe (a parent may hand one over) answers EAGAIN until its reader drains it;
// writeSync must wait for that asleep, not spin on the CPU for as long as the reader dawdles.
// perl (part of every Debian and macOS base system) sets O_NONBLOCK on the pipe, then execs Bun.
test("writeSync waits for a slow reader of a non-blocking pipe without spinning", async () => {
  const script = path.join(dir, "write.ts")
  const module = path.join(import.meta.dir, "..", "..", "src", "platform", "rawStdout.ts")
  fs.writeFileSync(
    script,
    `import { writeSync } from ${JSON.stringify(module)}\n` +
      `const before = process.cpuUsage()\nwriteSync(1, "x".repeat(4 * 1024 * 1024))\n` +
      `const used = process.cpuUsage(before)\nprocess.stderr.write(String((used.user + used.system) / 1000))\n`
  )
  const nonBlocking = "use Fcntl; my $f = fcntl(STDOUT, F_GETFL, 0); fcntl(STDOUT, F_SETFL, $f | O_NONBLOCK) or die; exec @ARGV"
  const cpuFile = path.join(dir, "cpu.txt")
  // The reader sleeps 600 ms before draining: the writer is blocked on a full pipe meanwhile.
  const pipeline = `perl -e "$0" "$1" "$2" 2>"$3" | { sleep 0.6; wc -c; }`
  const r = Bun.spawnSync(["sh", "-c", pipeline, nonBlocking, process.execPath, script, cpuFile])
  expect({ code: r.exitCode, bytes: r.stdout.toString().trim() }).toEqual({ code: 0, bytes: String(4 * 1024 * 1024) })
  const cpuMs = Number(fs.readFileSync(cpuFile, "utf8"))
  // Spinning costs about as much CPU as the 600 ms of waiting; sleeping costs a few milliseconds.
  expect(cpuMs).toBeLessThan(200)
}, 30_000)
