// Seeded interruption trials against the compiled binary: start a real `lait` process in a fresh
// workspace against the fixture OpenAI server (with latency), send a shutdown signal (SIGINT, SIGTERM
// or SIGHUP, drawn per trial) at a drawn moment, then check that nothing is torn: the exit code, stray `*.tmp` files, every cassette / cache entry / trace file,
// child processes (shell tools, `run:` steps, MCP servers) and stderr. Used by
// test/hardening/interrupt.test.ts (a fixed seed in CI) and bench/interrupt (many trials, a table).
//
// A trial is reproducible from (seed, index) alone: its scenario and delays come from PRNGs seeded by
// those two numbers, and every failure message starts with them and the command that replays it.
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import YAML from "yaml"
import { type OpenAiServer, type ScriptedReply, startOpenAiServer } from "../fixtures/openai-server.ts"
import { alive } from "../e2e/util.ts"
import { prng } from "../fixtures/prng.ts"
export { alive } from "../e2e/util.ts"

export const repoRoot = path.resolve(import.meta.dir, "../..")
const everythingBin = path.join(repoRoot, "node_modules/@modelcontextprotocol/server-everything/dist/index.js")
const scriptedMcpServer = path.join(repoRoot, "test/fixtures/mcp/scripted-server.ts")
/** The runtime that runs this harness (bun); it runs the scripted MCP fixture server. */
const bunPath = process.execPath

/** The signals that stop lait, and the exit code each one ends a run with (128 + its number). */
export const SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const
export type TrialSignal = (typeof SIGNALS)[number]
const SIGNAL_NUMBER: Record<TrialSignal, number> = { SIGHUP: 1, SIGINT: 2, SIGTERM: 15 }
export const exitCodeFor = (signal: TrialSignal): number => 128 + SIGNAL_NUMBER[signal]

const named = (signal: TrialSignal) => (signal === "SIGINT" ? "Ctrl-C" : signal)

/** What lait prints on stderr at the first shutdown signal. */
export const firstMessage = (signal: TrialSignal): string =>
  signal === "SIGINT"
    ? "lait: received Ctrl-C, stopping (press Ctrl-C again to exit immediately)..."
    : `lait: received ${signal}, stopping (a second signal exits immediately)...`

/** What lait prints when `second` arrives while it is still stopping after `first`. */
export const secondMessage = (first: TrialSignal, second: TrialSignal): string =>
  first === second
    ? `lait: received a second ${named(second)}; exiting immediately`
    : `lait: received ${named(second)} while stopping; exiting immediately`

/**
 * Every process a trial starts inherits this variable (lait passes its environment on to `run:` steps,
 * shell tools and stdio MCP servers), so leftovers are found even when they carry no marker argument
 * (a `sleep` forked by `sh -c`) and have been re-parented away from the dead lait.
 */
export const MARKER_VARIABLE = "INTERRUPT_TRIAL_MARKER"

export const SCENARIOS = [
  "run-record",
  "run-trace-tools",
  "run-cache",
  "test-replay",
  "test-update",
  "run-fanout",
  "run-mcp",
  "second-signal"
] as const
export type ScenarioName = (typeof SCENARIOS)[number]

// ---------------------------------------------------------------------------------------------------
// Seeded randomness (prng: test/fixtures/prng.ts)

/** A 32-bit seed derived from the run's seed and a label (FNV-1a). */
const derive = (seed: number, label: string): number => {
  let hash = 0x811c9dc5 ^ (seed >>> 0)
  for (const byte of new TextEncoder().encode(label)) hash = Math.imul(hash ^ byte, 0x01000193)
  return hash >>> 0
}

export interface TrialSpec {
  readonly seed: number
  readonly index: number
  readonly scenario: ScenarioName
  /** The first signal sent; the run must then exit with 128 + its number (or 0 if it had finished). */
  readonly signal: TrialSignal
  /** The second signal, when one is sent (second-signal, and double taps): any of the three. */
  readonly secondSignal: TrialSignal
  /**
   * When to send the signal, as a fraction of the scenario's calibrated duration (an uninterrupted run of
   * it in this session). Values above 1 land after the run has usually finished (exit 0 expected).
   */
  readonly at: number
  /** Some trials aim at lait's first milliseconds (start-up, before any work): a delay in ms. */
  readonly earlyMs: number | undefined
  /** second-signal: which stubborn child, how long after it runs the first signal, then the second. */
  readonly variant: "run-step" | "mcp" | undefined
  readonly firstAfterChildMs: number
  readonly secondAfterMs: number
  /**
   * Other scenarios: a second signal this long after the first (an impatient double Ctrl-C), which
   * exits without running finalizers; the exit hooks alone must then leave nothing behind.
   */
  readonly doubleTapMs: number | undefined
}

/**
 * Trial `index` of a run with `seed`. Scenarios are dealt in shuffled blocks of all of them, so any
 * run of n trials holds each scenario ⌊n/8⌋ or ⌈n/8⌉ times; everything else is drawn per trial.
 */
export const planTrial = (seed: number, index: number): TrialSpec => {
  const block = Math.floor(index / SCENARIOS.length)
  const shuffle = prng(derive(seed, `block ${block}`))
  const order = [...SCENARIOS]
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(shuffle() * (i + 1))
    ;[order[i], order[j]] = [order[j]!, order[i]!]
  }
  const scenario = order[index % SCENARIOS.length]!
  const draw = prng(derive(seed, `trial ${index}`))
  const early = draw() < 0.08
  const at = draw() * 1.15
  const earlyMs = Math.floor(draw() * 120)
  const variant = draw() < 0.5 ? "run-step" as const : "mcp" as const
  const firstAfterChildMs = Math.floor(draw() * 400)
  const secondAfterMs = 50 + Math.floor(draw() * 1100)
  const doubleTap = draw() < 0.25
  const doubleTapMs = Math.floor(draw() * 250)
  // Drawn last, so the parameters above stay what they were for a seed before signals were drawn.
  const signal = SIGNALS[Math.floor(draw() * SIGNALS.length)]!
  const secondSignal = SIGNALS[Math.floor(draw() * SIGNALS.length)]!
  return {
    seed,
    index,
    scenario,
    signal,
    secondSignal,
    at: Number(at.toFixed(3)),
    earlyMs: early && scenario !== "second-signal" ? earlyMs : undefined,
    variant: scenario === "second-signal" ? variant : undefined,
    firstAfterChildMs,
    secondAfterMs,
    doubleTapMs: doubleTap && scenario !== "second-signal" ? doubleTapMs : undefined
  }
}

export const planTrials = (seed: number, count: number, first = 0): Array<TrialSpec> =>
  Array.from({ length: count }, (_, i) => planTrial(seed, first + i))

/** The one line that names a trial (and how to replay it alone) in every failure message. */
export const describeTrial = (spec: TrialSpec): string => {
  const when = spec.scenario === "second-signal"
    ? `variant=${spec.variant} ${spec.signal}=${spec.firstAfterChildMs}ms-after-child ${spec.secondSignal}=+${spec.secondAfterMs}ms`
    : spec.earlyMs !== undefined
    ? `${spec.signal}-at=${spec.earlyMs}ms`
    : `${spec.signal}-at=${spec.at}×calibrated`
  const tap = spec.doubleTapMs === undefined ? "" : ` then-${spec.secondSignal}=+${spec.doubleTapMs}ms`
  return `seed=${spec.seed} trial=${spec.index} scenario=${spec.scenario} ${when}${tap} ` +
    `(replay: bun bench/interrupt/index.ts --seed ${spec.seed} --only ${spec.index})`
}

// ---------------------------------------------------------------------------------------------------
// /proc

/** Live processes (not zombies) whose command line or environment carries `marker`. */
export const markedProcesses = (marker: string): Array<{ readonly pid: number; readonly cmdline: string }> => {
  const found: Array<{ pid: number; cmdline: string }> = []
  const needle = `${MARKER_VARIABLE}=${marker}`
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue
    try {
      const cmdline = fs.readFileSync(`/proc/${entry}/cmdline`, "utf8")
      let marked = cmdline.includes(marker)
      if (!marked) marked = fs.readFileSync(`/proc/${entry}/environ`, "utf8").split("\0").includes(needle)
      if (marked && alive(Number(entry))) found.push({ pid: Number(entry), cmdline: cmdline.replaceAll("\0", " ").trim() })
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return found
}

/**
 * Whether `pid` has a handler for `signal` right now (bit signo - 1 of SigCgt in /proc/PID/status).
 * Before it has one, the default disposition applies and the signal simply ends the process.
 */
export const catchesSignal = (pid: number, signal: TrialSignal): boolean => {
  try {
    const mask = fs.readFileSync(`/proc/${pid}/status`, "utf8").match(/^SigCgt:\s*([0-9a-f]+)/m)?.[1]
    return mask !== undefined && (BigInt(`0x${mask}`) & (1n << BigInt(SIGNAL_NUMBER[signal] - 1))) !== 0n
  } catch {
    return false
  }
}

/**
 * Whether `pid`, running `lait ARGS`, will still replace its image: `lait test` re-executes itself once
 * at start (src/platform/jscTuning.ts), and the new image carries LAIT_JSC_TUNED in the environment
 * it started with. A handler seen before that exec does not survive it: until the new image installs
 * its own, a signal meets the default disposition, as in any process's first milliseconds.
 */
export const reexecPending = (pid: number, args: ReadonlyArray<string>): boolean => {
  if (args[0] !== "test") return false
  try {
    return !fs.readFileSync(`/proc/${pid}/environ`, "utf8").split("\0").some((e) => e.startsWith("LAIT_JSC_TUNED="))
  } catch {
    return false
  }
}

const waitUntil = async (predicate: () => boolean, ms: number, step = 20): Promise<boolean> => {
  const end = Date.now() + ms
  while (!predicate()) {
    if (Date.now() >= end) return false
    await Bun.sleep(step)
  }
  return true
}

// ---------------------------------------------------------------------------------------------------
// Artefact checks

/** Every regular file under `dir`, relative paths, sorted. */
const walk = (dir: string): Array<string> => {
  const out: Array<string> = []
  const visit = (rel: string) => {
    const full = path.join(dir, rel)
    let st: fs.Stats
    try {
      st = fs.lstatSync(full)
    } catch {
      return
    }
    if (st.isDirectory()) for (const e of fs.readdirSync(full).sort()) visit(rel === "" ? e : path.join(rel, e))
    else out.push(rel)
  }
  visit("")
  return out
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v)

/** Why `text` is not a complete chat-completions response wrapper with `stamp` (undefined: it is). */
const responseProblem = (value: unknown, stamp: string): string | undefined => {
  if (!isObject(value)) return "not a JSON object"
  if (typeof value[stamp] !== "string" || Number.isNaN(Date.parse(value[stamp] as string))) return `no valid '${stamp}'`
  const response = value["response"]
  if (!isObject(response) || !Array.isArray(response["choices"]) || response["choices"].length === 0) {
    return "'response' has no choices"
  }
  const message = (response["choices"][0] as { message?: unknown }).message
  if (!isObject(message)) return "'response.choices[0].message' missing"
  return undefined
}

/** Cassettes (`lait run --record`): {recorded_at, request: {..., messages, base_url, model_id}, response}. */
export const cassetteProblem = (text: string): string | undefined => {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (e) {
    return `not JSON (${e instanceof Error ? e.message : String(e)})`
  }
  const problem = responseProblem(value, "recorded_at")
  if (problem !== undefined) return problem
  const request = (value as Record<string, unknown>)["request"]
  if (!isObject(request)) return "'request' is not an object"
  if (typeof request["base_url"] !== "string" || typeof request["model_id"] !== "string") return "'request' lacks base_url/model_id"
  if (!Array.isArray(request["messages"])) return "'request.messages' is not an array"
  return undefined
}

/** Cache entries (`.lait/cache/<key>.json`): {created_at, response}. */
export const cacheEntryProblem = (text: string): string | undefined => {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (e) {
    return `not JSON (${e instanceof Error ? e.message : String(e)})`
  }
  return responseProblem(value, "created_at")
}

const TRACE_KEYS = ["seq", "operation", "label", "start", "end", "duration_ms", "attributes"]

/** A `--trace-file` JSONL file: every line one event; the operations seen. */
export const traceProblem = (text: string): { problem?: string; operations: Array<string> } => {
  const operations: Array<string> = []
  if (text.length > 0 && !text.endsWith("\n")) return { problem: "the last line has no newline (torn?)", operations }
  const lines = text.split("\n").slice(0, -1)
  if (lines.length === 0) return { problem: "empty trace file", operations }
  for (const [i, line] of lines.entries()) {
    let event: unknown
    try {
      event = JSON.parse(line)
    } catch (e) {
      return { problem: `line ${i + 1} is not JSON (${e instanceof Error ? e.message : String(e)})`, operations }
    }
    if (!isObject(event)) return { problem: `line ${i + 1} is not an object`, operations }
    const keys = Object.keys(event)
    if (TRACE_KEYS.some((k, j) => keys[j] !== k)) return { problem: `line ${i + 1} keys ${keys.join(",")}`, operations }
    if (
      typeof event["seq"] !== "number" || typeof event["operation"] !== "string" || typeof event["label"] !== "string" ||
      typeof event["duration_ms"] !== "number" || !isObject(event["attributes"]) ||
      Number.isNaN(Date.parse(String(event["start"]))) || Number.isNaN(Date.parse(String(event["end"])))
    ) return { problem: `line ${i + 1} has a field of the wrong type`, operations }
    operations.push(event["operation"])
  }
  return { operations }
}

// ---------------------------------------------------------------------------------------------------
// Scenarios

interface Prepared {
  readonly args: ReadonlyArray<string>
  /** Files checked after the run, besides the workspace-wide `*.tmp` scan. */
  readonly check: (ws: string, finished: boolean) => Array<string>
  /** Resolves when the stubborn child is running (second-signal only). */
  readonly childRunning?: (ws: string, server: OpenAiServer) => Promise<boolean>
}

interface ScenarioDef {
  readonly script: (marker: string) => Array<ScriptedReply>
  readonly prepare: (ws: string, baseUrl: string, marker: string, spec: TrialSpec, fixture: TestFixture) => Prepared
}

const LATENCY = 120
const q = (s: string) => `'${s.replaceAll("'", "''")}'`

const writeFile = (dir: string, name: string, text: string): string => {
  const file = path.join(dir, name)
  fs.mkdirSync(path.dirname(file), { recursive: true })
  fs.writeFileSync(file, text)
  return file
}

const config = (baseUrl: string, extra: Record<string, unknown> = {}) =>
  YAML.stringify({ base_url: baseUrl, default: { model: "fixture-model" }, ...extra })

/** A `run:` step whose child sleeps; the marker is its `$0`, so it shows in /proc too. */
const sleepStep = (marker: string, seconds: number, id: string) =>
  `  - id: ${id}\n    run: [sh, -c, ${q(`sleep ${seconds}; echo slept`)}, ${q(marker)}]\n`

/** Several sequential model calls, a for_each of concurrent calls, and a `run:` child in between. */
const multiCallWorkflow = (marker: string) =>
  "steps:\n" +
  "  - id: first\n    prompt: 'first {{ input }}'\n" +
  sleepStep(marker, 0.2, "pause") +
  "  - id: second\n    prompt: 'second {{ steps.first }}'\n" +
  "  - id: items\n    jq: '[1, 2, 3]'\n" +
  "  - id: each\n    for_each: '.'\n    max_concurrency: 3\n    steps:\n      - prompt: 'item {{ input }}'\n" +
  "  - prompt: 'last {{ steps.second }} / {{ steps.each }}'\n"

const checkDir = (ws: string, dir: string, what: string, problemOf: (text: string) => string | undefined) => {
  const failures: Array<string> = []
  const full = path.join(ws, dir)
  if (!fs.existsSync(full)) return { failures, count: 0 }
  const names = fs.readdirSync(full).filter((n) => n.endsWith(".json"))
  for (const name of names) {
    const problem = problemOf(fs.readFileSync(path.join(full, name), "utf8"))
    if (problem !== undefined) failures.push(`${what} ${path.join(dir, name)} is torn or malformed: ${problem}`)
  }
  return { failures, count: names.length }
}

/** Cassettes/cache entries parse; a finished run wrote all `expected` of them. */
const entriesCheck = (dir: string, what: string, problemOf: (text: string) => string | undefined, expected: number) =>
(ws: string, finished: boolean) => {
  const { failures, count } = checkDir(ws, dir, what, problemOf)
  if (finished && count !== expected) failures.push(`finished run left ${count} ${what}(s), expected ${expected}`)
  if (count > expected) failures.push(`${count} ${what}(s), more than the ${expected} an entire run writes`)
  return failures
}

const toolCall = (id: string, name: string, args: unknown) => ({ id, name, arguments: JSON.stringify(args) })

/** Test files and the cassettes they replay, recorded once per harness. */
interface TestFixture {
  readonly dir: string
  readonly cases: ReadonlyArray<{ readonly name: string; readonly original: string; readonly updated: string }>
}

const testWorkflow = (baseUrl: string, marker: string) =>
  `models:\n  m:\n    - provider: { base_url: ${q(baseUrl)} }\n      model_id: fixture-model\n` +
  "default:\n  model: m\n" +
  "steps:\n" +
  "  - id: ask\n    prompt: 'question {{ input }}'\n" +
  sleepStep(marker, 0.3, "pause") +
  "  - id: answer\n    prompt: 'answer {{ steps.ask }}'\n"

const TEST_INPUTS = ["alpha", "beta", "gamma", "delta"]

const testCase = (input: string, value: string) =>
  `workflow: ../wf.yml\ninput: ${input}\nreplay: ../cassettes\nassert:\n` +
  `  - type: step_output\n    id: ask\n    assert:\n      - type: equals\n        value: ${JSON.stringify(value)}\n` +
  `  - type: contains\n    value: answer\n`

const scenarios: Record<ScenarioName, ScenarioDef> = {
  "run-record": {
    script: () => [{ delay_ms: LATENCY, repeat: true }],
    prepare: (ws, baseUrl, marker) => {
      writeFile(ws, "lait.config.yml", config(baseUrl))
      writeFile(ws, "wf.yml", multiCallWorkflow(marker))
      return {
        args: ["run", "wf.yml", "hello", "--record", "cassettes"],
        check: entriesCheck("cassettes", "cassette", cassetteProblem, 6)
      }
    }
  },
  "run-cache": {
    script: () => [{ delay_ms: LATENCY, repeat: true }],
    prepare: (ws, baseUrl, marker) => {
      writeFile(ws, "lait.config.yml", config(baseUrl))
      writeFile(ws, "wf.yml", multiCallWorkflow(marker))
      return {
        args: ["--cache", "run", "wf.yml", "hello"],
        check: entriesCheck(path.join(".lait", "cache"), "cache entry", cacheEntryProblem, 6)
      }
    }
  },
  "run-trace-tools": {
    script: () => [
      { match: "tool says slow-ok", content: "tools done", delay_ms: LATENCY, repeat: true },
      { tool_calls: [toolCall("c1", "tool__slow", { n: 1 })], delay_ms: LATENCY, repeat: true }
    ],
    prepare: (ws, baseUrl, marker) => {
      writeFile(
        ws,
        "lait.config.yml",
        config(baseUrl, {
          tools: { slow: { command: ["sh", "-c", "sleep 0.25; echo tool says slow-ok", marker], description: "slow" } }
        })
      )
      writeFile(
        ws,
        "wf.yml",
        "steps:\n  - id: one\n    prompt: 'use the tool'\n    tools: [slow]\n" +
          "  - id: two\n    prompt: 'again {{ steps.one }}'\n    tools: [slow]\n"
      )
      return {
        args: ["run", "wf.yml", "hello", "--trace-file", "out/trace.jsonl"],
        check: (w, finished) => {
          const file = path.join(w, "out", "trace.jsonl")
          if (!fs.existsSync(file)) return finished ? ["finished run wrote no trace file"] : []
          const { problem, operations } = traceProblem(fs.readFileSync(file, "utf8"))
          if (problem !== undefined) return [`trace file out/trace.jsonl is torn or malformed: ${problem}`]
          const tools = operations.filter((o) => o === "execute_tool").length
          const chats = operations.filter((o) => o === "chat").length
          // Written once, when the run ends (docs/traces.md#failed-and-interrupted-runs): complete after a
          // finished run, the events so far (never more than a whole run has) after an interrupted one.
          if (finished) {
            return tools === 2 && chats === 4 ? [] : [`trace has ${chats} chat / ${tools} execute_tool events, expected 4 / 2`]
          }
          return tools <= 2 && chats <= 4 ? [] : [`interrupted trace has ${chats} chat / ${tools} execute_tool events, more than 4 / 2`]
        }
      }
    }
  },
  "run-fanout": {
    script: () => [{ delay_ms: LATENCY, repeat: true }],
    prepare: (ws, baseUrl, marker) => {
      writeFile(ws, "lait.config.yml", config(baseUrl))
      writeFile(
        ws,
        "wf.yml",
        "steps:\n" +
          sleepStep(marker, 0.15, "warmup") +
          "  - id: fan\n    parallel:\n" +
          `      slow:\n        - run: [sh, -c, ${q("sleep 0.4; echo branch")}, ${q(marker)}]\n` +
          "      ask:\n        - prompt: 'branch {{ input }}'\n" +
          "  - id: items\n    jq: '[1, 2, 3, 4]'\n" +
          "  - id: each\n    for_each: '.'\n    max_concurrency: 2\n    steps:\n" +
          `      - run: [sh, -c, ${q("sleep 0.2; echo item $1")}, ${q(marker)}, '{{ input }}']\n` +
          "      - prompt: 'item {{ input }}'\n" +
          "  - jq: '{fan: $steps.fan, each: $steps.each}'\n"
      )
      return { args: ["run", "wf.yml", "hello"], check: () => [] }
    }
  },
  "run-mcp": {
    script: () => [
      { match: "Echo: interrupt me", content: "mcp done", delay_ms: LATENCY, repeat: true },
      { tool_calls: [toolCall("c1", "everything__echo", { message: "interrupt me" })], delay_ms: LATENCY, repeat: true }
    ],
    prepare: (ws, baseUrl, marker) => {
      writeFile(
        ws,
        "lait.config.yml",
        config(baseUrl, {
          // Behind `sh -c` (not exec'd): the server is lait's grandchild, so the whole tree must go.
          mcp_servers: { everything: { command: "sh", args: ["-c", `node ${everythingBin} stdio ${marker}; true`] } }
        })
      )
      writeFile(ws, "wf.yml", "steps:\n  - prompt: 'call echo'\n    mcp: [everything]\n" + sleepStep(marker, 0.2, "after"))
      return { args: ["run", "wf.yml", "hello"], check: () => [] }
    }
  },
  "test-replay": {
    script: () => [],
    prepare: (ws, _baseUrl, marker, _spec, fixture) => {
      fs.cpSync(fixture.dir, ws, { recursive: true })
      const wf = fs.readFileSync(path.join(ws, "wf.yml"), "utf8")
      writeFile(ws, "wf.yml", wf.replaceAll("MARKER", marker))
      return {
        args: ["test", "cases"],
        check: (w) => {
          const failures: Array<string> = []
          for (const c of fixture.cases) {
            const text = fs.readFileSync(path.join(w, "cases", c.name), "utf8")
            if (text !== c.original) failures.push(`lait test (no --update) changed cases/${c.name}`)
          }
          return failures.concat(entriesCheck("cassettes", "cassette", cassetteProblem, 8)(w, true))
        }
      }
    }
  },
  "test-update": {
    script: () => [],
    prepare: (ws, _baseUrl, marker, _spec, fixture) => {
      fs.cpSync(fixture.dir, ws, { recursive: true })
      const wf = fs.readFileSync(path.join(ws, "wf.yml"), "utf8")
      writeFile(ws, "wf.yml", wf.replaceAll("MARKER", marker))
      // Every case starts failing: --update has something to rewrite in each.
      for (const c of fixture.cases) writeFile(ws, path.join("cases", c.name), c.original.replace(/value: ".*"/, 'value: "stale"'))
      return {
        args: ["test", "cases", "--update"],
        check: (w, finished) => {
          const failures: Array<string> = []
          for (const c of fixture.cases) {
            const text = fs.readFileSync(path.join(w, "cases", c.name), "utf8")
            const stale = c.original.replace(/value: ".*"/, 'value: "stale"')
            try {
              YAML.parse(text)
            } catch (e) {
              failures.push(`cases/${c.name} no longer parses as YAML: ${e instanceof Error ? e.message : String(e)}`)
              continue
            }
            if (text !== stale && text !== c.updated) failures.push(`cases/${c.name} is neither the stale nor the updated text`)
            if (finished && text !== c.updated) failures.push(`finished --update left cases/${c.name} not updated`)
          }
          return failures
        }
      }
    }
  },
  "second-signal": {
    script: () => [
      { match: "stubborn", tool_calls: [toolCall("c1", "stubborn__ping", {})], delay_ms: 20, repeat: true },
      { delay_ms: 20, repeat: true }
    ],
    prepare: (ws, baseUrl, marker, spec) => {
      const pidFile = path.join(ws, "stubborn.pid")
      if (spec.variant === "mcp") {
        writeFile(
          ws,
          "lait.config.yml",
          config(baseUrl, {
            mcp_servers: {
              stubborn: {
                command: "sh",
                args: ["-c", `trap '' TERM; ${bunPath} ${scriptedMcpServer} ${marker}; true`],
                env: { MCP_FIXTURE_MODE: "slow-call", MCP_FIXTURE_STUBBORN: "1" }
              }
            }
          })
        )
        writeFile(ws, "wf.yml", "steps:\n  - prompt: 'call the stubborn server'\n    mcp: [stubborn]\n")
      } else {
        writeFile(ws, "lait.config.yml", config(baseUrl))
        writeFile(
          ws,
          "wf.yml",
          "steps:\n  - prompt: 'warm up'\n" +
            `  - run: [sh, -c, ${q(`trap "" TERM; echo $$ > "${pidFile}"; while :; do sleep 0.1; done`)}, ${q(marker)}]\n`
        )
      }
      return {
        args: ["run", "wf.yml", "hello"],
        check: () => [],
        childRunning: async (w, server) => {
          if (spec.variant === "mcp") {
            // The tool call is in flight once the model asked for it and the server tree is up.
            return await waitUntil(() => server.requests.length >= 1 && markedProcesses(marker).length >= 3, 20_000, 50)
          }
          return await waitUntil(() => fs.existsSync(pidFile) && fs.readFileSync(pidFile, "utf8").endsWith("\n"), 20_000)
        }
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------------
// Running trials

/** What a failed check is about; the test asserts each kind separately. */
export type Check = "exit" | "stderr" | "files" | "processes" | "hang" | "harness"
export const CHECKS: ReadonlyArray<Check> = ["exit", "stderr", "files", "processes", "hang", "harness"]

export interface Failure {
  readonly check: Check
  readonly message: string
}

export interface TrialResult {
  readonly spec: TrialSpec
  /**
   * What happened: 128 + the first signal's number (interrupted), 0 (finished before the signal), or
   * anything else (a failure).
   */
  readonly code: number | null
  readonly signal: string | null
  /**
   * The signal came while the runtime was still loading lait, before it had a handler (SigCgt):
   * the process died of the signal, having started nothing (no request, no file, no output).
   */
  readonly killedAtStartup: boolean
  /**
   * The signal lait took as the first: the first one sent, or, when a second of another kind was sent
   * too, possibly that one (see `firstSignal` in execute); its message and exit code say which.
   */
  readonly firstSignal: TrialSignal
  /** The process had exited before the signal was sent (no signal was sent at all). */
  readonly exitedBeforeSignal: boolean
  readonly signalAfterMs: number | undefined
  readonly durationMs: number
  readonly failures: ReadonlyArray<Failure>
  /** The end of lait's stderr (for failure reports). */
  readonly stderrTail: string
  readonly workspace: string
}

interface Calibration {
  readonly durationMs: number
  readonly stdout: string
}

export interface HarnessOptions {
  /** The lait binary to run (copied to a private path, so a concurrent rebuild cannot swap it). */
  readonly binary: string
  /** Keep the workspaces of failed trials (their path is in the result). */
  readonly keepFailed?: boolean
  /** A process still running this long after its signal is a hang (default 20 s). */
  readonly hangGuardMs?: number
}

const cleanEnv = (home: string, marker: string): Record<string, string> => {
  const env: Record<string, string> = {}
  for (const [key, value] of Object.entries(process.env)) {
    if (value === undefined || /^(OPENAI_|LAIT_|BUN_|NODE_|npm_)/i.test(key)) continue
    env[key] = value
  }
  return {
    ...env,
    NO_COLOR: "1",
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, ".config"),
    LAIT_HTTP_ATTEMPTS: "1",
    [MARKER_VARIABLE]: marker
  }
}

const stackTrace = /^\s+at\s.+(\(|:\d+)|^(Uncaught|panic|error: |TypeError|ReferenceError|RangeError)|node:internal/m

export class InterruptHarness {
  private readonly calibrations = new Map<ScenarioName, Promise<Calibration>>()
  private fixture: Promise<TestFixture> | undefined
  private markers = 0

  private constructor(
    readonly binary: string,
    readonly root: string,
    private readonly options: HarnessOptions
  ) {}

  static create(options: HarnessOptions): InterruptHarness {
    const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "lait-interrupt-")))
    const binary = path.join(root, "lait")
    fs.copyFileSync(options.binary, binary)
    fs.chmodSync(binary, 0o755)
    return new InterruptHarness(binary, root, options)
  }

  close(): void {
    fs.rmSync(this.root, { recursive: true, force: true })
  }

  private newMarker(label: string) {
    return `lait-interrupt-${label}-${process.pid}-${++this.markers}-${Date.now()}`
  }

  private spawn(ws: string, args: ReadonlyArray<string>, marker: string) {
    return Bun.spawn([this.binary, ...args], {
      cwd: ws,
      env: cleanEnv(ws, marker),
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe"
    })
  }

  /** Records the test fixture's cassettes once, with the real binary against a fixture server. */
  private testFixture(): Promise<TestFixture> {
    this.fixture ??= (async () => {
      const dir = path.join(this.root, "test-fixture")
      const server = startOpenAiServer({ script: [{ repeat: true }] })
      try {
        writeFile(dir, "wf.yml", testWorkflow(server.baseUrl, "MARKER"))
        const marker = this.newMarker("fixture")
        // At once: each input's requests are cassette files of their own, and no trial runs yet.
        await Promise.all(TEST_INPUTS.map(async (input) => {
          const proc = this.spawn(dir, ["run", "wf.yml", input, "--record", "cassettes"], marker)
          const [stderr] = await Promise.all([new Response(proc.stderr).text(), new Response(proc.stdout).text()])
          if ((await proc.exited) !== 0) throw new Error(`recording the test fixture failed: ${stderr}`)
        }))
        const cases = TEST_INPUTS.map((input) => {
          const name = `${input}.yml`
          const text = testCase(input, `echo: question ${input}`)
          writeFile(dir, path.join("cases", name), text)
          return { name, original: text, updated: "" }
        })
        // The updated text is whatever `lait test --update` writes, learnt from one uninterrupted run.
        const probe = path.join(this.root, "test-fixture-probe")
        fs.cpSync(dir, probe, { recursive: true })
        for (const c of cases) writeFile(probe, path.join("cases", c.name), c.original.replace(/value: ".*"/, 'value: "stale"'))
        const proc = this.spawn(probe, ["test", "cases", "--update"], marker)
        const [stderr] = await Promise.all([new Response(proc.stderr).text(), new Response(proc.stdout).text()])
        if ((await proc.exited) !== 0) throw new Error(`lait test --update on the fixture failed: ${stderr}`)
        const updated = cases.map((c) => ({ ...c, updated: fs.readFileSync(path.join(probe, "cases", c.name), "utf8") }))
        fs.rmSync(probe, { recursive: true, force: true })
        return { dir, cases: updated }
      } finally {
        await server.stop()
      }
    })()
    return this.fixture
  }

  /**
   * One uninterrupted run of the scenario in this session: its duration scales the signal delays,
   * its stdout is what a run that finished must print.
   */
  calibrate(scenario: ScenarioName): Promise<Calibration> {
    let cached = this.calibrations.get(scenario)
    if (cached === undefined) {
      cached = (async () => {
        if (scenario === "second-signal") return { durationMs: 0, stdout: "" }
        const spec: TrialSpec = { ...planTrial(0, 0), scenario, earlyMs: undefined, variant: undefined, doubleTapMs: undefined }
        const result = await this.execute(spec, { calibration: true })
        if (result.failures.length > 0 || result.code !== 0) {
          throw new Error(`calibration run of ${scenario} failed:\n${formatFailure(result)}`)
        }
        return { durationMs: result.durationMs, stdout: result.stdout }
      })()
      this.calibrations.set(scenario, cached)
    }
    return cached
  }

  async runTrial(spec: TrialSpec): Promise<TrialResult> {
    const calibration = await this.calibrate(spec.scenario)
    const { stdout: _stdout, ...result } = await this.execute(spec, { calibration: false, expected: calibration })
    return result
  }

  private async execute(
    spec: TrialSpec,
    mode: { readonly calibration: boolean; readonly expected?: Calibration }
  ): Promise<TrialResult & { readonly stdout: string }> {
    const def = scenarios[spec.scenario]
    const marker = this.newMarker(`${spec.seed}-${spec.index}`)
    const ws = fs.mkdtempSync(path.join(this.root, `t${spec.index}-${spec.scenario}-`))
    const fixture = spec.scenario.startsWith("test-") ? await this.testFixture() : { dir: "", cases: [] }
    const server = startOpenAiServer({ script: def.script(marker) })
    const failures: Array<Failure> = []
    const fail = (check: Check, message: string) => failures.push({ check, message })
    let stderrTail = ""
    // Only a hang comes near it: a trial ends a few hundred ms after its signal on a quiet machine.
    const hangGuard = this.options.hangGuardMs ?? 60_000
    let exitedBeforeSignal = false
    let signalAfterMs: number | undefined
    let code: number | null = null
    let killedAtStartup = false
    let firstSignal: TrialSignal = spec.signal
    let secondSent = false
    let handlerAtSignal = true
    let execPending = false
    let signal: string | null = null
    let stdout = ""
    let stderr = ""
    const started = Date.now()
    try {
      const prepared = def.prepare(ws, server.baseUrl, marker, spec, fixture)
      const before = walk(ws)
      const proc = this.spawn(ws, prepared.args, marker)
      const out = new Response(proc.stdout).text()
      const err = new Response(proc.stderr).text()
      let exited = false
      const exitedAt = proc.exited.then(() => {
        exited = true
        return Date.now()
      })
      const hung = async (from: number, ms: number) => {
        const end = await Promise.race([exitedAt, Bun.sleep(Math.max(0, from + ms - Date.now())).then(() => undefined)])
        if (end === undefined) {
          fail("hang", `still running ${ms} ms after the last signal (hang); killed with SIGKILL`)
          proc.kill("SIGKILL")
          await proc.exited
        }
        return end
      }

      if (mode.calibration) {
        await hung(started, 60_000)
      } else if (spec.scenario === "second-signal") {
        if (!(await prepared.childRunning!(ws, server))) fail("harness", "the stubborn child never started")
        await Bun.sleep(spec.firstAfterChildMs)
        if (exited) fail("exit", `exited before the first signal (${spec.signal})`)
        else {
          signalAfterMs = Date.now() - started
          proc.kill(spec.signal)
          await Bun.sleep(spec.secondAfterMs)
          if (exited) {
            fail("exit", `exited within ${spec.secondAfterMs} ms of the first signal (${spec.signal}): cleanup did not wait out the stubborn child's grace period`)
          } else {
            // That the second signal exits at once, not after the grace period, is its message below
            // (printed just before process.exit); this bound only catches a hang, on any machine.
            const second = Date.now()
            secondSent = true
            proc.kill(spec.secondSignal)
            const end = await hung(second, 15_000)
            if (end === undefined) fail("hang", `the second signal (${spec.secondSignal}) did not exit within 15 s`)
          }
        }
      } else {
        const delay = spec.earlyMs ?? Math.round(spec.at * mode.expected!.durationMs)
        await Promise.race([exitedAt, Bun.sleep(delay)])
        if (exited) exitedBeforeSignal = true
        else {
          signalAfterMs = Date.now() - started
          // The re-exec first: a handler read before `lait test` replaces its image (the old image's)
          // says nothing of the new one, which meets the signal with none until it installs its own.
          // Read in this order, a handler seen is the final image's, and handlers are never removed.
          execPending = reexecPending(proc.pid, prepared.args)
          handlerAtSignal = catchesSignal(proc.pid, spec.signal)
          proc.kill(spec.signal)
          if (spec.doubleTapMs !== undefined) {
            await Promise.race([exitedAt, Bun.sleep(spec.doubleTapMs)])
            if (!exited) {
              secondSent = true
              proc.kill(spec.secondSignal)
            }
          }
          await hung(Date.now(), hangGuard)
        }
      }
      await proc.exited
      code = proc.exitCode
      signal = proc.signalCode === null ? null : String(proc.signalCode)
      stdout = await out
      stderr = await err
      const durationMs = Date.now() - started
      const finished = code === 0

      // Exit code and what the streams say.
      const laitLines = stderr.split("\n").filter((l) => l.startsWith("lait:"))
      // Two signals of different kinds that are both pending when lait's JavaScript next runs (after a
      // long synchronous stretch, such as its start-up on a loaded machine) reach its handlers in no
      // set order: Bun 1.4 does not keep their arrival order. lait can only answer the one it sees
      // first; its message names it, and the exit code must follow that one.
      if (secondSent && spec.secondSignal !== spec.signal && laitLines[0] === firstMessage(spec.secondSignal)) {
        firstSignal = spec.secondSignal
      }
      const otherSignal = firstSignal === spec.signal ? spec.secondSignal : spec.signal
      const first = firstMessage(firstSignal)
      const expectedCode = exitCodeFor(firstSignal)
      if (signal !== null) {
        // While the runtime loads the bundle, before any of lait's code runs, the signal still has its
        // default disposition (src/core/earlySignals.ts installs handlers first thing after that).
        // Dying of it is then the conventional outcome, and harmless only if nothing had started. The
        // same holds across `lait test`'s re-exec, whatever handler the image before it had.
        killedAtStartup = signal === spec.signal && signalAfterMs !== undefined && (!handlerAtSignal || execPending) &&
          server.requests.length === 0 && JSON.stringify(walk(ws)) === JSON.stringify(before) && stderr === "" &&
          stdout === ""
        if (!killedAtStartup) {
          fail(
            "exit",
            `killed by ${signal} sent ${signalAfterMs} ms after the start (${handlerAtSignal ? `although a ${spec.signal} handler was installed` : `before a ${spec.signal} handler existed, but after work had started`})`
          )
        }
      } else if (mode.calibration || exitedBeforeSignal) {
        if (code !== 0) fail("exit", `exit ${code} without any signal (expected 0)`)
        if (laitLines.length > 0) fail("stderr", `stderr of an uninterrupted run has lait: lines: ${JSON.stringify(laitLines)}`)
      } else if (spec.scenario === "second-signal") {
        if (code !== expectedCode) fail("exit", `exit ${code} after ${spec.signal} then ${spec.secondSignal} (expected ${expectedCode})`)
        const expected = [first, secondMessage(firstSignal, otherSignal)]
        if (JSON.stringify(laitLines) !== JSON.stringify(expected)) {
          fail("stderr", `stderr lait: lines are ${JSON.stringify(laitLines)}, expected ${JSON.stringify(expected)}`)
        }
      } else if (code === 0) {
        // The signal came while lait was already on its way out: the result must be complete.
        if (stdout !== mode.expected!.stdout) fail("exit", `exit 0 after ${spec.signal} but stdout is not the full result: ${JSON.stringify(stdout)}`)
        if (laitLines.some((l) => l !== first)) fail("stderr", `stderr lait: lines ${JSON.stringify(laitLines)}`)
      } else if (code === expectedCode) {
        // A second signal that found lait still running must have been answered with its message.
        const expected = secondSent && laitLines.length === 2 ? [first, secondMessage(firstSignal, otherSignal)] : [first]
        if (JSON.stringify(laitLines) !== JSON.stringify(expected)) {
          fail("stderr", `stderr lait: lines are ${JSON.stringify(laitLines)}, expected ${JSON.stringify(expected)}`)
        }
        if (stdout !== "" && stdout !== mode.expected!.stdout) fail("exit", `partial stdout after ${spec.signal}: ${JSON.stringify(stdout)}`)
      } else {
        fail("exit", `exit ${code} after ${spec.signal} (expected ${expectedCode}, or 0 with the full result)`)
      }
      if (stackTrace.test(stderr)) fail("stderr", "stderr holds a stack trace or an uncaught error")

      // Files.
      for (const rel of walk(ws)) if (rel.endsWith(".tmp")) fail("files", `leftover temp file ${rel}`)
      for (const message of prepared.check(ws, finished)) fail("files", message)

      // Processes: every descendant carries the marker in its environment.
      const settled = await waitUntil(() => markedProcesses(marker).length === 0, 2_000, 50)
      if (!settled) {
        const left = markedProcesses(marker)
        fail("processes", `processes left running 2 s after exit: ${left.map((p) => `${p.pid} ${p.cmdline}`).join("; ")}`)
        for (const p of left) {
          try {
            process.kill(p.pid, "SIGKILL")
          } catch {
            // gone already
          }
        }
      }
      stderrTail = stderr.slice(-2000)
      return { spec, code, signal, killedAtStartup, firstSignal, exitedBeforeSignal, signalAfterMs, durationMs, failures, stderrTail, workspace: ws, stdout }
    } catch (e) {
      fail("harness", `harness error: ${e instanceof Error ? e.stack ?? e.message : String(e)}`)
      return { spec, code, signal, killedAtStartup, firstSignal, exitedBeforeSignal, signalAfterMs, durationMs: Date.now() - started, failures, stderrTail, workspace: ws, stdout }
    } finally {
      await server.stop()
      if (failures.length === 0 || this.options.keepFailed !== true) fs.rmSync(ws, { recursive: true, force: true })
    }
  }
}

/** Runs `specs` with at most `concurrency` at a time; results in spec order. */
export const runTrials = async (
  harness: InterruptHarness,
  specs: ReadonlyArray<TrialSpec>,
  concurrency: number,
  onResult?: (result: TrialResult) => void
): Promise<Array<TrialResult>> => {
  // Calibrate first, one at a time: the baselines should not compete with each other for the CPU.
  for (const scenario of new Set(specs.map((s) => s.scenario))) await harness.calibrate(scenario)
  const results: Array<TrialResult> = new Array(specs.length)
  let next = 0
  const worker = async () => {
    while (next < specs.length) {
      const i = next++
      results[i] = await harness.runTrial(specs[i]!)
      onResult?.(results[i]!)
    }
  }
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, specs.length)) }, worker))
  return results
}

/**
 * The result's outcome class for tables: the exit code of an interrupted run ("130", "143", "129"),
 * "0" (finished before/while signalled), "startup" (died of the signal before lait's code ran, having
 * done nothing), or "fail".
 */
export const outcomeOf = (r: TrialResult): "130" | "143" | "129" | "0" | "startup" | "fail" =>
  r.failures.length > 0
    ? "fail"
    : r.killedAtStartup
    ? "startup"
    : r.code === 0
    ? "0"
    : (String(r.code) as "130" | "143" | "129")

/** A failure report: the trial line first, then each failed check. */
export const formatFailure = (r: TrialResult): string =>
  `${describeTrial(r.spec)}: exit ${r.code}${r.signal !== null ? ` (${r.signal})` : ""}, ` +
  `${r.exitedBeforeSignal ? `exited before ${r.spec.signal}` : `${r.spec.signal} at ${r.signalAfterMs} ms`}, ran ${r.durationMs} ms` +
  `${r.firstSignal === r.spec.signal ? "" : ` (lait saw ${r.firstSignal} first)`}` +
  `${fs.existsSync(r.workspace) ? `, workspace kept at ${r.workspace}` : ""}\n` +
  r.failures.map((f) => `  - [${f.check}] ${f.message}\n`).join("") +
  `  stderr: ${JSON.stringify(r.stderrTail)}`
