// `lait eval` throughput: 40 cases x --repeat 5 (200 model requests) against the fixture OpenAI server
// answering every request after 50 ms. Measured in one run, as ratios:
//   ideal     — requests x latency / 8: what 8 concurrent runs could do if nothing but the server's
//               latency counted (lait runs at most 8 pairs at once, like upstream);
//   promptfoo — `promptfoo eval` on the same 40 cases (same prompt, same `contains` assertions,
//               --repeat 5, 8 concurrent requests, no cache) against the same server.
//   plain     — a plain `fetch` loop (plainFetch.ts, its own process) sending the same requests, as
//               many at once: the floor this server, loopback and machine leave any client.
// Both tools' process start-up is measured too (`--version`) and reported, since it is part of what a
// user waits for but not of the scheduling being compared.
//
//   bun bench/eval/index.ts [--rounds N] [--binary PATH] [--promptfoo PATH] [--cases N] [--repeat N]
//                           [--latency MS] [--jobs N]   (npm run bench's eval-scale row: 100 x 100, 20 ms, -j 32)
// promptfoo is not a dependency of lait: install it outside the project, e.g.
//   npm install --prefix /tmp/promptfoo promptfoo   (then --promptfoo /tmp/promptfoo/node_modules/.bin/promptfoo)
// Without it the promptfoo column is reported as unavailable and the ideal ratio still stands.
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { startOpenAiServer } from "../../test/fixtures/openai-server.ts"
import { spawnMeasured } from "../util.ts"

const LATENCY_MS = 50
/** lait's default: 8 (case, repeat) pairs at once, like upstream. */
const CONCURRENCY = 8
export const defaultPromptfoo = "/tmp/promptfoo/node_modules/.bin/promptfoo"

export interface EvalOptions {
  /** The lait binary to measure. */
  readonly binary: string
  /** Timed rounds of each tool (after one warm-up round). */
  readonly rounds: number
  /** Cases (default 40) and --repeat (default 5): cases x repeat model requests per run. */
  readonly cases?: number
  readonly repeat?: number
  /** promptfoo's executable; undefined = not requested (the comparison is reported as skipped). */
  readonly promptfoo: string | undefined
  /** Why promptfoo was not requested, for the report (default "not requested"). */
  readonly promptfooSkipped?: string
  /** The server's latency per request (default 50 ms). */
  readonly latencyMs?: number
  /** `lait eval -j N` (default: lait's own default, 8). */
  readonly jobs?: number
}

export type PromptfooFigures =
  | { readonly ms: number; readonly startMs: number; readonly maxRss: number }
  | { readonly unavailable: string }

export interface EvalFigures {
  readonly rounds: number
  readonly requests: number
  readonly latencyMs: number
  readonly concurrency: number
  /** requests x latency / concurrency. */
  readonly idealMs: number
  /** Median wall time of `lait eval`. */
  readonly laitMs: number
  /** Median wall time of `lait --version`. */
  readonly laitStartMs: number
  /** Largest peak RSS of a `lait eval` run, bytes. */
  readonly laitMaxRss: number
  /**
   * Median wall time of a plain `fetch` loop sending the same requests, as many at once, as its own
   * process (bench/eval/plainFetch.ts): the floor the server, loopback and machine leave any client.
   */
  readonly plainMs: number
  readonly promptfoo: PromptfooFigures
}

interface Timed {
  readonly ms: number
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
  /** Bytes. */
  readonly maxRss: number
}

const median = (xs: ReadonlyArray<number>) => {
  const sorted = [...xs].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

/** The eval rows' project in `dir`: model `m` at `baseUrl`, one `contains` case per input. */
export const writeEvalProject = (dir: string, baseUrl: string, inputs: ReadonlyArray<string>): void => {
  fs.writeFileSync(
    path.join(dir, "lait.config.yml"),
    `models:\n  m:\n    - provider: { base_url: '${baseUrl}' }\n      model_id: bench-model\n`
  )
  fs.writeFileSync(
    path.join(dir, "eval.yml"),
    [
      "target: { model: m, prompt: '{{input}}' }",
      "cases:",
      ...inputs.map((input) => `  - input: '${input}'\n    assert: [{ type: contains, value: '${input}' }]`),
      ""
    ].join("\n")
  )
}

export const runEvalBench = async (options: EvalOptions): Promise<EvalFigures> => {
  const ROUNDS = options.rounds
  const CASES = options.cases ?? 40
  const REPEAT = options.repeat ?? 5
  const laitBinary = options.binary
  const promptfooBinary = options.promptfoo
  const LATENCY = options.latencyMs ?? LATENCY_MS
  const JOBS = options.jobs ?? CONCURRENCY

  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "lait-bench-eval-")))
  const server = startOpenAiServer({ script: [{ delay_ms: LATENCY, repeat: true }] })
  try {
    const inputs = Array.from({ length: CASES }, (_, i) => `question number ${i + 1}`)

    // lait: a model target; the fixture echoes the prompt (`echo: <prompt>`), which `contains` checks.
    writeEvalProject(dir, server.baseUrl, inputs)

    // promptfoo: the same prompt, cases and assertions, through its OpenAI chat provider.
    fs.writeFileSync(
      path.join(dir, "promptfooconfig.yaml"),
      [
        "prompts: ['{{input}}']",
        "providers:",
        "  - id: openai:chat:bench-model",
        "    config:",
        `      apiBaseUrl: '${server.baseUrl}'`,
        "      apiKey: bench",
        "tests:",
        ...inputs.map((input) => `  - vars: { input: '${input}' }\n    assert: [{ type: contains, value: '${input}' }]`),
        ""
      ].join("\n")
    )

    const cleanEnv = (): Record<string, string> => {
      const env: Record<string, string> = {}
      for (const [key, value] of Object.entries(process.env)) {
        if (value !== undefined && !/^(OPENAI_|LAIT_|BUN_|NODE_|npm_|PROMPTFOO_)/i.test(key)) env[key] = value
      }
      return {
        ...env,
        NO_COLOR: "1",
        HOME: dir,
        XDG_CONFIG_HOME: path.join(dir, ".config"),
        PROMPTFOO_CONFIG_DIR: path.join(dir, ".promptfoo"),
        PROMPTFOO_DISABLE_TELEMETRY: "1",
        PROMPTFOO_DISABLE_UPDATE: "1",
        PROMPTFOO_DISABLE_SHARING: "1",
        PROMPTFOO_CACHE_ENABLED: "false",
        PROMPTFOO_SELF_HOSTED: "1"
      }
    }

    const timed = (command: ReadonlyArray<string>): Promise<Timed> => spawnMeasured(command, { cwd: dir, env: cleanEnv() })

    /** Median wall time of `command` run `n` times one after another (process start-up). */
    const startup = async (command: ReadonlyArray<string>, n = 5) => {
      const times: Array<number> = []
      for (let i = 0; i < n; i++) {
        const r = await timed(command)
        if (r.code !== 0) throw new Error(`${command.join(" ")}: exit ${r.code}`)
        times.push(r.ms)
      }
      return median(times)
    }

    interface Measured {
      readonly name: string
      readonly command: ReadonlyArray<string>
      readonly ok: (r: Timed) => string | undefined
    }
    /**
     * Runs each command ROUNDS times (after one warm-up round), interleaved round by round (the order
     * alternating), checking each run made `requests` requests; medians and largest peak RSS.
     */
    type Figures = { readonly ms: number; readonly maxRss: number }
    const measure = async (commands: ReadonlyArray<Measured>, requests: number): Promise<Array<Figures>> => {
      const times = commands.map((): Array<number> => [])
      const maxRss = commands.map(() => 0)
      for (let round = 0; round <= ROUNDS; round++) {
        const order = commands.map((_, i) => i)
        for (const i of round % 2 === 0 ? order : order.reverse()) {
          const { name, command, ok } = commands[i]!
          const before = server.requests.length
          const r = await timed(command)
          const made = server.requests.length - before
          const problem = ok(r) ?? (made !== requests ? `made ${made} requests, expected ${requests}` : undefined)
          if (problem !== undefined) throw new Error(`${name}: ${problem}\n${r.stdout.slice(0, 2000)}\n${r.stderr.slice(0, 2000)}`)
          if (round > 0) times[i]!.push(r.ms)
          maxRss[i] = Math.max(maxRss[i]!, r.maxRss)
        }
      }
      return commands.map((_, i) => ({ ms: median(times[i]!), maxRss: maxRss[i]! }))
    }

    const requests = CASES * REPEAT
    const idealMs = (requests * LATENCY) / JOBS

    const jobs = options.jobs === undefined ? [] : ["-j", String(JOBS)]
    // The floor: what any client pays on this machine and server (bench/eval/plainFetch.ts), measured
    // interleaved with lait so that load from other jobs hits both alike.
    const [lait, plain] = (await measure([
      {
        name: "lait eval",
        command: [laitBinary, "eval", "eval.yml", "--repeat", String(REPEAT), ...jobs],
        ok: (r) => r.code === 0 && r.stdout.includes(`${CASES} of ${CASES} case(s) fully passed`) ? undefined : `exit ${r.code}`
      },
      {
        name: "plain fetch client",
        command: [
          process.execPath,
          path.join(import.meta.dir, "plainFetch.ts"),
          ...["--url", server.baseUrl, "--cases", String(CASES), "--repeat", String(REPEAT), "--jobs", String(JOBS)]
        ],
        ok: (r) => (r.code === 0 ? undefined : `exit ${r.code}: ${r.stderr.slice(0, 500)}`)
      }
    ], requests)) as [Figures, Figures]
    const laitStartMs = await startup([laitBinary, "--version"])

    let promptfoo: PromptfooFigures
    if (promptfooBinary === undefined) {
      promptfoo = { unavailable: options.promptfooSkipped ?? "not requested" }
    } else if (!fs.existsSync(promptfooBinary)) {
      promptfoo = { unavailable: `${promptfooBinary} not found (npm install --prefix /tmp/promptfoo promptfoo)` }
    } else {
      // promptfoo failing to run is reported, not fatal: it is a third-party peer, not what is tested.
      try {
        const [pf] = (await measure([{
          name: "promptfoo eval",
          command: [
            promptfooBinary,
            "eval",
            "-c",
            "promptfooconfig.yaml",
            "--repeat",
            String(REPEAT),
            "--max-concurrency",
            String(JOBS),
            "--no-cache",
            "--no-table",
            "--no-progress-bar",
            "--no-write"
          ],
          ok: (r) => (r.code === 0 && new RegExp(`\\b${requests} passed\\b`).test(r.stdout) ? undefined : `exit ${r.code}`)
        }], requests)) as [Figures]
        const startMs = await startup([promptfooBinary, "--version"])
        promptfoo = { ms: pf.ms, startMs, maxRss: pf.maxRss }
      } catch (e) {
        promptfoo = { unavailable: e instanceof Error ? e.message.split("\n").slice(0, 6).join(" | ") : String(e) }
      }
    }
    return {
      rounds: ROUNDS,
      requests,
      latencyMs: LATENCY,
      concurrency: JOBS,
      idealMs,
      laitMs: lait.ms,
      laitStartMs,
      laitMaxRss: lait.maxRss,
      plainMs: plain.ms,
      promptfoo
    }
  } finally {
    await server.stop()
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

if (import.meta.main) {
  const { flag, defaultBinary, requireBinary } = await import("../util.ts")
  const f = await runEvalBench({
    binary: requireBinary(flag("--binary") ?? defaultBinary),
    rounds: Number(flag("--rounds") ?? 3),
    cases: Number(flag("--cases") ?? 40),
    repeat: Number(flag("--repeat") ?? 5),
    latencyMs: Number(flag("--latency") ?? LATENCY_MS),
    ...(flag("--jobs") === undefined ? {} : { jobs: Number(flag("--jobs")) }),
    promptfoo: flag("--promptfoo") ?? defaultPromptfoo
  })
  const ms = (x: number) => `${x.toFixed(0)} ms`
  const pf = f.promptfoo
  const lines = [
    `lait eval: ${f.requests} requests, server latency ${f.latencyMs} ms, median of ${f.rounds}`,
    `  ideal (requests x latency / ${f.concurrency}):  ${ms(f.idealMs)}`,
    `  lait eval:                       ${ms(f.laitMs)}   = ${(f.laitMs / f.idealMs).toFixed(2)} x ideal   (start-up ${ms(f.laitStartMs)})`,
    `  plain fetch client (the floor):  ${ms(f.plainMs)}   = ${(f.plainMs / f.idealMs).toFixed(2)} x ideal`,
    "ms" in pf
      ? `  promptfoo eval (-j ${f.concurrency}):          ${ms(pf.ms)}   = ${(pf.ms / f.idealMs).toFixed(2)} x ideal   (start-up ${
        ms(pf.startMs)
      })\n  lait / promptfoo:                ${(f.laitMs / pf.ms).toFixed(2)}   (start-up excluded: ${
        ((f.laitMs - f.laitStartMs) / (pf.ms - pf.startMs)).toFixed(2)
      })`
      : `  promptfoo eval:                  unavailable: ${pf.unavailable}`
  ]
  process.stdout.write(`${lines.join("\n")}\n`)
  process.stdout.write(`${JSON.stringify(f)}\n`)
}
