// Hostile-input corpus (issue 12): every case in hostile/cases.ts (inputs) and hostile/processes.ts
// (misbehaving MCP servers and `run:` commands, with a time limit) runs the compiled binary in a fresh
// workspace (a copy of hostile/files/, which is also HOME, XDG_CONFIG_HOME and TMPDIR) under a hang
// guard, and must end with its documented exit code and exactly its one `lait: ` error line on stderr
// (after progress lines), no stack trace, nothing on stdout (except the documented per-file report of
// `lait test` / `lait lint`), and no file created or changed in the workspace except where allowed.
import { afterAll, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { ensureBinary } from "../e2e/util.ts"
import { cases as inputCases, type HostileCase, type Workspace } from "./hostile/cases.ts"
import { processCases } from "./hostile/processes.ts"

const cases: ReadonlyArray<HostileCase> = [...inputCases, ...processCases]

const FILES = path.join(import.meta.dir, "hostile", "files")
/**
 * The hang guard: a case still running after this long is killed and fails. Only a hang comes near
 * it: the slowest case (jq's 3 000 000-item output) took over 20 s on a loaded 2-core machine, and a
 * machine ten times slower than a quiet one must pass; what a case must not wait for (the MCP I/O
 * timeout, a 600 s background sleep) lasts longer still.
 */
const HANG_GUARD_MS = 100_000
/** Cases run a few at a time: the machine is small and shared, and most of a case is waiting for its process. */
const CONCURRENCY = 4

const root = fs.mkdtempSync(path.join(os.tmpdir(), "lait-hostile-"))
// `lait history` lives outside the workspace whose writes a case checks: a successful run records
// itself there by design (docs/history.md). Shared by every case (appends are atomic), any user.
const historyHome = path.join(root, "data")
fs.mkdirSync(historyHome, { mode: 0o777 })
fs.chmodSync(historyHome, 0o777)
const asRoot = typeof process.getuid === "function" && process.getuid() === 0
/** `nobody`, for the cases that need permission bits to apply. */
const NOBODY = 65534
afterAll(() => fs.rmSync(root, { recursive: true, force: true }))

let slots = CONCURRENCY
const waiting: Array<() => void> = []
const withSlot = async <A>(f: () => Promise<A>): Promise<A> => {
  if (slots > 0) slots--
  else await new Promise<void>((resolve) => waiting.push(resolve))
  try {
    return await f()
  } finally {
    const next = waiting.shift()
    if (next !== undefined) next()
    else slots++
  }
}

// ---------------------------------------------------------------------------------------------------
// Workspace snapshots: every entry (symlinks not followed) with its type, and for files size + mtime.

type Snapshot = Map<string, string>

const entryKind = (st: fs.Stats): string =>
  st.isSymbolicLink() ? "link" : st.isDirectory() ? "dir" : st.isFIFO() ? "fifo" : st.isSocket() ? "socket" : "file"

const snapshot = (dir: string): Snapshot => {
  const out: Snapshot = new Map()
  const visit = (rel: string) => {
    const full = path.join(dir, rel)
    const st = fs.lstatSync(full)
    const kind = entryKind(st)
    // A directory's own mtime moves when a temp file comes and goes; its entries are what count.
    out.set(rel, kind === "file" ? `file ${st.size} ${st.mtimeMs}` : kind)
    if (kind === "dir") for (const name of fs.readdirSync(full)) visit(rel === "" ? name : path.join(rel, name))
  }
  visit("")
  out.delete("")
  return out
}

const changes = (before: Snapshot, after: Snapshot, allowed: ReadonlyArray<string>): Array<string> => {
  const isAllowed = (rel: string) => allowed.some((a) => rel === a || rel.startsWith(`${a}/`))
  const out: Array<string> = []
  for (const [rel, was] of before) {
    const now = after.get(rel)
    if (now === undefined) out.push(`removed ${rel}`)
    else if (now !== was && !isAllowed(rel)) out.push(`changed ${rel} (${was} -> ${now})`)
  }
  for (const rel of after.keys()) if (!before.has(rel) && !isAllowed(rel)) out.push(`created ${rel}`)
  return out
}

// ---------------------------------------------------------------------------------------------------

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

const withWorkspace = (expected: string | RegExp, ws: string): string | RegExp =>
  typeof expected === "string"
    ? expected.split("${WS}").join(ws)
    : new RegExp(expected.source.split("\\$\\{WS\\}").join(escapeRegExp(ws)), expected.flags)

const matches = (line: string | undefined, expected: string | RegExp): boolean =>
  line !== undefined && (typeof expected === "string" ? line === expected : expected.test(line))

/** Engine progress printed before a run fails: `[1] step-1 (jq)`, indented for child workflows. */
const isProgress = (line: string) => /^\s*\[\d+\] \S/.test(line)

interface Outcome {
  readonly code: number | null
  readonly signal: string | number | null
  readonly stdout: string
  readonly stderr: string
  readonly timedOut: boolean
  readonly writes: ReadonlyArray<string>
  readonly ws: string
}

const runCase = async (c: HostileCase): Promise<Outcome> => {
  const binary = await ensureBinary()
  const dir = fs.mkdtempSync(path.join(root, "case-"))
  const ws = fs.realpathSync(dir)
  fs.cpSync(FILES, ws, { recursive: true })
  for (const [dest, source] of Object.entries(c.place ?? {})) fs.copyFileSync(path.join(FILES, source), path.join(ws, dest))
  for (const sub of ["home/.config", "tmp"]) fs.mkdirSync(path.join(ws, sub), { recursive: true })
  const stops: Array<() => void> = []
  const workspace: Workspace = { dir: ws, keep: (stop) => stops.push(stop) }
  try {
    await c.setup?.(workspace)
    const before = snapshot(ws)
    const command = [binary, ...c.args]
    if (c.unprivileged === true && asRoot) {
      // The user needs to reach the workspace (mkdtemp makes 0700 directories); nothing else changes.
      for (const d of [root, ws]) fs.chmodSync(d, 0o755)
      command.unshift("setpriv", `--reuid=${NOBODY}`, `--regid=${NOBODY}`, "--clear-groups", "--")
    }
    const child = Bun.spawn(command, {
      cwd: path.join(ws, c.cwd ?? ""),
      env: {
        PATH: process.env["PATH"] ?? "/usr/bin:/bin",
        HOME: path.join(ws, "home"),
        XDG_CONFIG_HOME: path.join(ws, "home", ".config"),
        XDG_DATA_HOME: historyHome,
        TMPDIR: path.join(ws, "tmp"),
        LANG: "C.UTF-8",
        NO_COLOR: "1"
      },
      stdin: c.stdin === undefined ? "ignore" : typeof c.stdin === "string" ? new TextEncoder().encode(c.stdin) : c.stdin,
      stdout: "pipe",
      stderr: "pipe"
    })
    let timedOut = false
    const guard = setTimeout(() => {
      timedOut = true
      child.kill("SIGKILL")
    }, HANG_GUARD_MS)
    try {
      // stderr is read as it comes, so a `during` step can wait for a progress line.
      let stderr = ""
      const readStderr = async () => {
        const decoder = new TextDecoder()
        for await (const chunk of child.stderr) stderr += decoder.decode(chunk, { stream: true })
        stderr += decoder.decode()
      }
      const [stdout] = await Promise.all([
        new Response(child.stdout).text(),
        readStderr(),
        c.during?.({ pid: child.pid, ws: workspace, stderr: () => stderr })
      ])
      await child.exited
      const after = snapshot(ws)
      await c.after?.(workspace)
      return {
        code: child.exitCode,
        signal: child.signalCode,
        stdout,
        stderr,
        timedOut,
        writes: changes(before, after, c.writes ?? []),
        ws
      }
    } finally {
      clearTimeout(guard)
      child.kill("SIGKILL")
    }
  } finally {
    for (const stop of stops) stop()
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

const check = (c: HostileCase, o: Outcome) => {
  const shown = `exit ${o.code} (signal ${o.signal})\n--- stdout\n${o.stdout}--- stderr\n${o.stderr}`
  expect(o.timedOut, `still running after the ${HANG_GUARD_MS} ms hang guard, killed\n${shown}`).toBe(false)
  expect(o.code, shown).toBe(c.exit)
  if (c.report !== undefined) {
    // The documented per-file report of `lait test` / `lait lint`: on stdout, line for line.
    const out = o.stdout.endsWith("\n") ? o.stdout.slice(0, -1).split("\n") : [o.stdout]
    expect(out.length, `report should have ${c.report.length} lines\n${shown}`).toBe(c.report.length)
    c.report.forEach((expected, i) =>
      expect(matches(out[i], withWorkspace(expected, o.ws)), `report line ${i + 1} should match ${expected}\n${shown}`).toBe(true)
    )
  } else {
    expect(o.stdout, shown).toBe(c.stdout ?? "")
  }
  // No stack frame, no JS error class name, no raw object dump.
  expect(o.stderr, shown).not.toMatch(/^\s+at \S/m)
  expect(o.stderr, shown).not.toMatch(/\b[A-Z]\w*Error\b|\[object Object\]/)
  expect(o.writes, shown).toEqual([])
  if (c.stderrExact !== undefined) {
    expect(o.stderr).toBe(c.stderrExact.split("${WS}").join(o.ws))
    return
  }
  expect(o.stderr === "" || o.stderr.endsWith("\n"), shown).toBe(true)
  const lines = o.stderr === "" ? [] : o.stderr.slice(0, -1).split("\n")
  let i = 0
  if (c.progress === true) while (i < lines.length && isProgress(lines[i]!)) i++
  const rest = lines.slice(i)
  if (c.error === null) {
    expect(rest, shown).toEqual([])
    return
  }
  expect(rest.length, `expected exactly one error line after progress/report\n${shown}`).toBe(1)
  const expected = withWorkspace(c.error, o.ws)
  if (typeof expected === "string") expect(rest[0]).toBe(expected)
  else expect(rest[0]).toMatch(expected)
}

test("the corpus has at least 60 committed input files and 60 cases", () => {
  const count = (dir: string): number =>
    fs.readdirSync(dir, { withFileTypes: true }).reduce(
      (n, e) => n + (e.isDirectory() ? count(path.join(dir, e.name)) : 1),
      0
    )
  expect(count(FILES)).toBeGreaterThanOrEqual(60)
  expect(cases.length).toBeGreaterThanOrEqual(60)
  expect(new Set(cases.map((c) => c.name)).size).toBe(cases.length)
})

test("the checker is not vacuous: a file the case did not allow is caught, an allowed one passes", async () => {
  const writing: HostileCase = {
    name: "--output to a new file",
    args: ["run", "inputs/plain.yml", "x", "--output", "out.txt"],
    exit: 0,
    progress: true,
    error: null
  }
  const outcome = await withSlot(() => runCase(writing))
  expect(outcome.writes).toEqual(["created out.txt"])
  expect(() => check(writing, outcome)).toThrow()
  const allowed = { ...writing, writes: ["out.txt"] }
  check(allowed, await withSlot(() => runCase(allowed)))
}, 600_000)

for (const c of cases) {
  // A queued case waits for a slot; this bounds the whole case, the hang guard bounds the process.
  test.concurrent(c.name, () => withSlot(() => runCase(c)).then((o) => check(c, o)), 600_000)
}
