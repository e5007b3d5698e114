// What an endless model response costs: `lait run` against a server whose 200 body never ends (lait
// stops reading once it passes the 16 MiB cap), against a baseline measured in the same run — the
// same workflow answered by a small completion. Reports wall time and peak RSS of each (medians,
// runs interleaved), and how much the server sent before lait hung up. Checked: the endless run
// exits 4 with `response from '<url>' exceeds 16 MiB`, the small one exits 0 with its answer.
//
//   node_modules/.bin/bun bench/responses/index.ts [--runs N] [--binary PATH]
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { completionText, endless, json, startHostileServer } from "../../test/fixtures/hostile-http.ts"
import { defaultBinary, flag, median, requireBinary, spawnMeasured } from "../util.ts"

export interface ResponsesOptions {
  readonly binary: string
  /** Runs of each (after one warm-up run each). */
  readonly runs: number
}

export interface ResponsesFigures {
  readonly runs: number
  /** Median wall time of the run that fails on the endless body, ms. */
  readonly endlessMs: number
  /** Median peak RSS of that run, bytes. */
  readonly endlessMaxRss: number
  /** The same for one small answer. */
  readonly smallMs: number
  readonly smallMaxRss: number
  /** Body bytes the server handed out per endless run (median), including what was in flight. */
  readonly sentBytes: number
}

export const runResponsesBench = async (options: ResponsesOptions): Promise<ResponsesFigures> => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "lait-bench-responses-"))
  const flood = startHostileServer((_, __, self) => endless(self))
  const small = startHostileServer(() => json(completionText("small")))
  try {
    fs.writeFileSync(path.join(dir, "wf.yml"), "steps:\n  - id: ask\n    model: m\n    prompt: 'hi'\n")
    const env = (baseUrl: string): Record<string, string> => ({
      PATH: process.env["PATH"] ?? "/usr/bin:/bin",
      HOME: dir,
      XDG_CONFIG_HOME: path.join(dir, ".config"),
      NO_COLOR: "1",
      OPENAI_BASE_URL: baseUrl,
      OPENAI_API_KEY: "sk-bench"
    })
    const argv = [options.binary, "run", "wf.yml", "x"]
    const endlessRun = async () => {
      const before = flood.sent.bytes
      const r = await spawnMeasured(argv, { cwd: dir, env: env(flood.baseUrl) })
      const expected = `[1] ask\nlait: response from '${flood.baseUrl}' exceeds 16 MiB\n`
      if (r.code !== 4 || r.stderr !== expected) {
        throw new Error(`endless body: exit ${r.code}, stderr ${JSON.stringify(r.stderr.slice(0, 300))}`)
      }
      return { ...r, sent: flood.sent.bytes - before }
    }
    const smallRun = async () => {
      const r = await spawnMeasured(argv, { cwd: dir, env: env(small.baseUrl) })
      if (r.code !== 0 || r.stdout !== "small\n") {
        throw new Error(`small answer: exit ${r.code}, stderr ${JSON.stringify(r.stderr.slice(0, 300))}`)
      }
      return r
    }
    await endlessRun()
    await smallRun()
    const floods: Array<Awaited<ReturnType<typeof endlessRun>>> = []
    const smalls: Array<Awaited<ReturnType<typeof smallRun>>> = []
    for (let i = 0; i < options.runs; i++) {
      floods.push(await endlessRun())
      smalls.push(await smallRun())
    }
    return {
      runs: options.runs,
      endlessMs: median(floods.map((r) => r.ms)),
      endlessMaxRss: median(floods.map((r) => r.maxRss)),
      smallMs: median(smalls.map((r) => r.ms)),
      smallMaxRss: median(smalls.map((r) => r.maxRss)),
      sentBytes: median(floods.map((r) => r.sent))
    }
  } finally {
    await Promise.all([flood.stop(), small.stop()])
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

if (import.meta.main) {
  const binary = requireBinary(flag("--binary") ?? defaultBinary)
  const f = await runResponsesBench({ binary, runs: Number(flag("--runs") ?? 10) })
  const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`
  process.stdout.write(
    `endless body: ${f.endlessMs.toFixed(0)} ms, peak RSS ${mib(f.endlessMaxRss)}, server sent ${mib(f.sentBytes)}\n` +
      `small answer: ${f.smallMs.toFixed(0)} ms, peak RSS ${mib(f.smallMaxRss)} (medians of ${f.runs})\n`
  )
}
