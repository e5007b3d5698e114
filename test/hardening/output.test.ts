// Output that fails is a failure: every command that prints results, driven as the compiled binary
// through `sh -c` with its stdout on /dev/full, on a closed descriptor, past `ulimit -f`, and into a
// pipe nobody reads. A failed write is one `lait: failed to write output: <reason>` line and exit 1;
// a reader that went away ends lait quietly with 141, as `cat` or `git` in a pipe. `write:` steps and
// `-o` keep the old file when the new one cannot be written, and write through symlinks.
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { ensureBinary, repoRoot, run, type RunResult } from "../e2e/util.ts"

let ws = ""
let lait = ""

const EXAMPLE_TESTS = path.join(repoRoot, "examples", "tests", "cases")

beforeAll(async () => {
  lait = await ensureBinary()
  ws = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "lait-output-")))
  fs.mkdirSync(path.join(ws, "home", ".config"), { recursive: true })
  const write = (name: string, text: string) => fs.writeFileSync(path.join(ws, name), text)
  write("wf.yml", "steps:\n  - id: up\n    jq: 'ascii_upcase'\n")
  // About 1.2 MB of output: far more than a pipe holds.
  write("big.yml", "steps:\n  - jq: '[range(200000)] | tostring'\n")
  write("ev.yml", "target: { workflow: wf.yml }\ncases:\n  - input: hi\n    assert: [{ type: equals, value: HI }]\n")
  const traced = await sh(`${q(lait)} run wf.yml hi --trace-file trace.jsonl`)
  expect(traced.code).toBe(0)
}, 300_000)
afterAll(() => {
  fs.rmSync(ws, { recursive: true, force: true })
  fs.rmSync(`${ws}-data`, { recursive: true, force: true })
})

const q = (text: string) => `'${text.split("'").join(`'\\''`)}'`

const sh = (script: string): Promise<RunResult> =>
  run(["sh", "-c", script], {
    cwd: ws,
    env: {
      PATH: process.env["PATH"] ?? "/usr/bin:/bin",
      HOME: path.join(ws, "home"),
      XDG_CONFIG_HOME: path.join(ws, "home", ".config"),
      // `lait history` records successful runs outside the directory whose contents the tests check.
      XDG_DATA_HOME: `${ws}-data`,
      LANG: "C.UTF-8",
      NO_COLOR: "1"
    },
    timeoutMs: 60_000
  })

/** Every command that prints results on stdout, with each of its output formats. */
const commands: ReadonlyArray<ReadonlyArray<string>> = [
  ["run", "wf.yml", "hi"],
  ["run", "wf.yml", "hi", "--json"],
  ["run", "wf.yml", "hi", "--dry-run"],
  ["test", EXAMPLE_TESTS],
  ["test", EXAMPLE_TESTS, "--format", "json"],
  ["test", EXAMPLE_TESTS, "--format", "junit"],
  ["eval", "ev.yml"],
  ["eval", "ev.yml", "--format", "json"],
  ["eval", "ev.yml", "--format", "junit"],
  ["eval", "ev.yml", "--dry-run"],
  ["trace", "show", "trace.jsonl"],
  ["trace", "show", "trace.jsonl", "--json"],
  ["trace", "show", "trace.jsonl", "--summary"],
  ["lint", "wf.yml"],
  ["lint", "wf.yml", "--format", "json"],
  ["schema", "workflow"],
  ["graph", "wf.yml"],
  ["graph", "wf.yml", "--format", "dot"],
  ["config", "show"],
  ["config", "show", "--json"],
  ["--version"],
  ["--help"]
]

const commandLine = (args: ReadonlyArray<string>) => [lait, ...args].map(q).join(" ")

/** The lines lait may print on stderr besides its error: progress, notes, eval progress. */
const isChatter = (line: string) => /^\s*\[\d+\] \S|^note: |^eval: |^==> /.test(line)

/** stderr holds exactly `expected` as its one `lait: ` line, last, after progress lines only. */
const expectOneErrorLine = (r: RunResult, expected: string) => {
  const lines = r.stderr.split("\n").filter((line) => line !== "")
  expect({ code: r.code, last: lines.at(-1) }).toEqual({ code: 1, last: expected })
  expect(lines.slice(0, -1).filter((line) => !isChatter(line))).toEqual([])
}

/** A pipe with no reader left: a FIFO opened for writing while a reader held it, then the reader closed. */
const intoDeadPipe = (args: ReadonlyArray<string>, fifo: string) =>
  `mkfifo ${q(fifo)} && exec 3<>${q(fifo)} 4>${q(fifo)} 3<&- && ${commandLine(args)} >&4 4>&-`

describe("stdout that cannot be written", () => {
  let n = 0
  for (const args of commands) {
    const name = args.join(" ")

    test(`${name} > /dev/full: one line naming the reason, exit 1`, async () => {
      expectOneErrorLine(await sh(`${commandLine(args)} > /dev/full`), "lait: failed to write output: No space left on device")
    })

    // Only Linux shows that the runtime reopened a closed fd 1 on /dev/null (see src/cli/output.ts).
    test.skipIf(!fs.existsSync("/proc/self/fdinfo"))(`${name} >&- (closed stdout): exit 1`, async () => {
      expectOneErrorLine(await sh(`${commandLine(args)} >&-`), "lait: failed to write output: Bad file descriptor")
    })

    test(`${name} into a pipe whose reader is gone: quiet, exit 141`, async () => {
      const r = await sh(intoDeadPipe(args, `dead-${++n}.fifo`))
      expect(r.code).toBe(141)
      expect(r.stderr.split("\n").filter((line) => line !== "" && !isChatter(line))).toEqual([])
    })
  }

  /** `lait ARGS | head -c 10`: what head printed, and lait's own status and stderr. */
  const intoHead = async (args: ReadonlyArray<string>) => {
    const r = await sh(`{ ${commandLine(args)} 2>head.err; echo $? > head.status; } | head -c 10`)
    const read = (name: string) => fs.readFileSync(path.join(ws, name), "utf8")
    return { head: r.stdout, code: Number(read("head.status")), stderr: read("head.err") }
  }

  test("a big run output into `| head -c 10`: quiet, exit 141", async () => {
    expect(await intoHead(["run", "big.yml", "x"])).toEqual({ head: "[0,1,2,3,4", code: 141, stderr: "[1] step-1 (jq)\n" })
  })

  test("`lait schema workflow | head -c 10`: nothing on stderr", async () => {
    const r = await intoHead(["schema", "workflow"])
    // The whole schema may fit in the pipe before head exits (0) or not (141); either way, quietly.
    expect(r).toEqual({ head: "{\n  \"$sche", code: r.code === 0 ? 0 : 141, stderr: "" })
  })

  test("stdout past `ulimit -f`: File too large, exit 1 (SIGXFSZ does not kill lait)", async () => {
    const r = await sh(`ulimit -f 8 && ${commandLine(["run", "big.yml", "x"])} > big.out`)
    expectOneErrorLine(r, "lait: failed to write output: File too large")
  })
})

describe("files written for the user", () => {
  test("a write: step that cannot write the new file (ulimit -f) keeps the old one whole", async () => {
    fs.writeFileSync(path.join(ws, "kept.txt"), "old content\n")
    fs.writeFileSync(path.join(ws, "write-big.yml"), "steps:\n  - jq: '[range(20000)] | tostring'\n  - write: kept.txt\n")
    const r = await sh(`ulimit -f 8 && ${commandLine(["run", "write-big.yml", "x"])} > /dev/null`)
    expect(r.code).toBe(1)
    expect(r.stderr).toEndWith(
      "lait: step 'step-2 (write)': failed to write output to 'kept.txt': File too large (os error 27)\n"
    )
    expect(fs.readFileSync(path.join(ws, "kept.txt"), "utf8")).toBe("old content\n")
    expect(fs.readdirSync(ws).filter((name) => name.endsWith(".tmp"))).toEqual([])
  })

  test("-o past `ulimit -f` keeps the old file whole", async () => {
    fs.writeFileSync(path.join(ws, "result.txt"), "old result\n")
    const r = await sh(`ulimit -f 8 && ${commandLine(["run", "big.yml", "x", "-o", "result.txt"])}`)
    expect(r.code).toBe(1)
    expect(r.stderr).toEndWith("lait: failed to write the response to 'result.txt': File too large (os error 27)\n")
    expect(fs.readFileSync(path.join(ws, "result.txt"), "utf8")).toBe("old result\n")
  })

  test("-o onto a symlink replaces the link's target and keeps the link", async () => {
    fs.mkdirSync(path.join(ws, "real"), { recursive: true })
    fs.writeFileSync(path.join(ws, "real", "target.txt"), "before\n")
    fs.symlinkSync("real/target.txt", path.join(ws, "link.txt"))
    const r = await sh(commandLine(["run", "wf.yml", "after", "-o", "link.txt"]))
    expect(r.code).toBe(0)
    expect(fs.lstatSync(path.join(ws, "link.txt")).isSymbolicLink()).toBe(true)
    expect(fs.readlinkSync(path.join(ws, "link.txt"))).toBe("real/target.txt")
    expect(fs.readFileSync(path.join(ws, "real", "target.txt"), "utf8")).toBe("AFTER\n")
  })

  test("a write: step onto a symlink replaces the link's target and keeps the link", async () => {
    fs.writeFileSync(path.join(ws, "step-target.txt"), "before")
    fs.symlinkSync("step-target.txt", path.join(ws, "step-link.txt"))
    fs.writeFileSync(path.join(ws, "write-link.yml"), "steps:\n  - write: step-link.txt\n")
    const r = await sh(commandLine(["run", "write-link.yml", "written"]))
    expect(r.code).toBe(0)
    expect(fs.lstatSync(path.join(ws, "step-link.txt")).isSymbolicLink()).toBe(true)
    expect(fs.readFileSync(path.join(ws, "step-target.txt"), "utf8")).toBe("written")
  })

  test("a write: step onto /dev/stdout writes into the descriptor, not over the file behind it", async () => {
    fs.writeFileSync(path.join(ws, "to-stdout.yml"), "steps:\n  - write: /dev/stdout\n")
    fs.writeFileSync(path.join(ws, "appended.txt"), "first\n")
    const r = await sh(`${commandLine(["run", "to-stdout.yml", "second"])} >> appended.txt`)
    expect(r.code).toBe(0)
    expect(fs.readFileSync(path.join(ws, "appended.txt"), "utf8")).toBe("first\nsecondsecond\n")
  })
})
