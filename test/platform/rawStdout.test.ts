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
// The child counts its sleeps (Atomics.wait, which writeSync sleeps in) rather than its CPU time: a
// spinning writer sleeps never, whatever the machine's speed or load.
test("writeSync waits for a slow reader of a non-blocking pipe without spinning", async () => {
  const script = path.join(dir, "write.ts")
  const module = path.join(import.meta.dir, "..", "..", "src", "platform", "rawStdout.ts")
  fs.writeFileSync(
    script,
    `import { writeSync } from ${JSON.stringify(module)}\n` +
      `let sleeps = 0\nconst wait = Atomics.wait\n` +
      `Atomics.wait = (...args) => { sleeps++; return wait(...args) }\n` +
      `writeSync(1, "x".repeat(4 * 1024 * 1024))\nprocess.stderr.write(String(sleeps))\n`
  )
  const nonBlocking = "use Fcntl; my $f = fcntl(STDOUT, F_GETFL, 0); fcntl(STDOUT, F_SETFL, $f | O_NONBLOCK) or die; exec @ARGV"
  const sleepsFile = path.join(dir, "sleeps.txt")
  // The reader sleeps 600 ms before draining: the writer meets a full pipe meanwhile.
  const pipeline = `perl -e "$0" "$1" "$2" 2>"$3" | { sleep 0.6; wc -c; }`
  const r = Bun.spawnSync(["sh", "-c", pipeline, nonBlocking, process.execPath, script, sleepsFile])
  expect({ code: r.exitCode, bytes: r.stdout.toString().trim() }).toEqual({ code: 0, bytes: String(4 * 1024 * 1024) })
  expect(Number(fs.readFileSync(sleepsFile, "utf8")), "times writeSync slept on the full pipe").toBeGreaterThan(0)
}, 30_000)
