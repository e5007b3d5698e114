// Smoke test of the benchmark harness (bench/index.ts): every benchmark runs in --quick mode against
// the built binary and reports its rows, a failing correctness check makes the run exit 1, bad flags
// exit 2. No timing is asserted: the figures of a --quick run on a shared machine mean nothing.
import { describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as path from "node:path"
import { formatTable } from "../../bench/index.ts"
import { ensureBinary, makeTempDir, repoRoot, run } from "../e2e/util.ts"

const bench = path.join(repoRoot, "bench", "index.ts")

interface Report {
  readonly quick: boolean
  readonly results: ReadonlyArray<{
    readonly name: string
    readonly ok: boolean
    readonly error?: string
    readonly rows: ReadonlyArray<{ benchmark: string; lait: string; baseline: string; ratio: string; peakRss: string; notes: string }>
    readonly figures?: Record<string, unknown>
  }>
}

describe("bench/index.ts", () => {
  test("--quick runs every benchmark once and reports a row for each comparison", async () => {
    const binary = await ensureBinary()
    const r = await run([process.execPath, bench, "--quick", "--no-promptfoo", "--json", "--binary", binary], {
      cwd: repoRoot,
      timeoutMs: 120_000
    })
    expect(r.timedOut).toBe(false)
    if (r.code !== 0) throw new Error(`bench exited ${r.code}:\n${r.stderr}`)
    const report = JSON.parse(r.stdout) as Report
    expect(report.quick).toBe(true)
    expect(report.results.map((x) => [x.name, x.ok])).toEqual([
      ["startup", true],
      ["engine", true],
      ["test-suite", true],
      ["test-scaling", true],
      ["eval", true],
      ["eval-scale", true],
      ["responses", true],
      ["proxy", true]
    ])
    const rows = report.results.flatMap((x) => x.rows)
    expect(rows.map((row) => row.benchmark)).toEqual([
      "start-up: `lait --version`",
      "start-up: `lait --help`",
      "start-up: `lait run (one jq step)`",
      "start-up: `lait run --replay (release-notes)`",
      "jq step (per step, 50-step workflow)",
      "run step (10 `run: [true]` steps)",
      "replay test suite (`lait test`, 6 files)",
      "`lait test` marginal cost per file (2 vs 6 files)",
      "`lait test` peak RSS, 6 / 10 files",
      "eval throughput (8 requests, 50 ms latency)",
      "eval vs promptfoo",
      "eval at scale (16 runs, 20 ms latency, -j 32)",
      "endless response body (16 MiB cap)",
      "`lait proxy --replay` (50 requests, 8 clients)"
    ])
    // Every measured comparison has a finite ratio; only the skipped promptfoo row has none.
    for (const [i, row] of rows.entries()) {
      if (i === 10) expect(row).toMatchObject({ baseline: "unavailable", ratio: "-", notes: "skipped (--no-promptfoo)" })
      else expect(Number.isFinite(Number.parseFloat(row.ratio))).toBe(true)
    }
    // The endless body is dropped at the cap: its run stays within tens of MiB of a small one.
    const responses = report.results[6]!.figures as { endlessMaxRss: number; smallMaxRss: number }
    expect(responses.endlessMaxRss).toBeLessThan(responses.smallMaxRss + 128 * 2 ** 20)
    // Peak RSS is the measured process's own (tens of MiB), not the harness's.
    expect(rows[0]!.peakRss).toMatch(/^\d+\.\d MiB$/)
    const suite = report.results[2]!.figures as { files: number; suiteMaxRss: number; baselineMaxRss: number }
    expect(suite.files).toBe(6)
    expect(suite.suiteMaxRss).toBeGreaterThan(0)
    expect(suite.baselineMaxRss).toBeGreaterThan(0)
  }, 150_000)

  test("a benchmark whose check fails is reported as FAILED and the run exits 1", async () => {
    const dir = makeTempDir("bench-smoke")
    try {
      // Not lait: `--version` fails, which the start-up benchmark must catch rather than time.
      const fake = path.join(dir, "lait")
      fs.writeFileSync(fake, "#!/bin/sh\necho 'lait: broken' >&2\nexit 3\n", { mode: 0o755 })
      const r = await run([process.execPath, bench, "--only", "startup", "--binary", fake], { cwd: repoRoot, timeoutMs: 60_000 })
      expect(r.code).toBe(1)
      expect(r.stdout).toContain("| startup ")
      expect(r.stdout).toContain("FAILED")
      expect(r.stdout).toContain("startup: FAILED in ")
      expect(r.stderr).toContain(`bench: startup failed its check: lait --version: exit 3`)
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  }, 60_000)

  test("bad flags exit 2 with the usage", async () => {
    const r = await run([process.execPath, bench, "--only", "nope"], { cwd: repoRoot, timeoutMs: 30_000 })
    expect(r.code).toBe(2)
    expect(r.stderr).toStartWith("bench: --only: unknown benchmark 'nope' (one of startup, engine, test-suite, test-scaling, eval, eval-scale, responses, proxy)\nusage: bun bench/index.ts")
    expect(r.stdout).toBe("")
  })

  test("formatTable renders a Markdown table with escaped cells", () => {
    const table = formatTable([
      {
        name: "startup",
        ok: true,
        seconds: 1,
        rows: [{ benchmark: "a|b", lait: "1 ms", baseline: "2 ms", ratio: "0.50x", peakRss: "1.0 MiB", notes: "n" }]
      }
    ])
    expect(table.split("\n")).toEqual([
      "| benchmark | lait | baseline | ratio | peak RSS | notes |",
      "|-----------|------|----------|-------|----------|-------|",
      "| a\\|b      | 1 ms | 2 ms     | 0.50x | 1.0 MiB  | n     |"
    ])
  })
})
