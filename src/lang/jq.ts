// jq for every jq-valued workflow field (`when`, `input`, `output`, `jq`, `for_each`, `while`/`until`,
// switch cases, the top-level `output`) and for test assertions, on jq-wasm (jq 1.8.2).
//
// jq-wasm runs jq's `main()` once per call, so every evaluation is one synchronous, self-contained jq
// invocation (~1 ms plus the cost of jq parsing its input). Values travel as JSON text on stdin, never
// as `--argjson` arguments: jq-wasm copies argv onto its 1 MiB C stack, and a large argument silently
// overwrites the memory below it. The globals are read with `input as $steps | …` from the same stream,
// and only the globals the filter text mentions are sent, so an evaluation that does not use `$steps`
// does not pay for serialising and parsing it.
//
// Evaluations run in a Worker (jqWorker.ts), one at a time in arrival order: a filter that never
// terminates (`def f: f; f`) would otherwise block the event loop, and with it step timeouts and
// Ctrl-C. An interrupted evaluation abandons its worker (the next one starts lazily); queued ones go to
// the next worker. JavaScriptCore cannot stop a thread that is inside wasm code, so an abandoned worker
// stuck in an endless jq loop keeps one core busy until lait exits (terminate() still ends one that
// returns to JavaScript). Everything crosses the thread boundary as strings; the worker only runs jq.
//
// The same 1 MiB stack limits how deeply nested a value jq can print or compare: printing a value
// nested about 640 levels deep (or `del(..)` at about 400) overflows it, either trapping or quietly
// corrupting the instance. The evaluating instance is therefore thrown away (and lazily reloaded)
// after any call that trapped or that saw a value nested more than SAFE_DEPTH levels (a filter that
// builds such a value only internally goes unnoticed unless it traps). Syntax checks stay synchronous
// on the main thread, on an instance that never evaluates anything: compiling always terminates (the
// 64 KiB and nesting limits bound it; the slowest construct found, thousands of nested `label`s,
// compiles or fails in about 2.5 s).
import { Effect } from "effect"
import type { Jq } from "jq-wasm/inline"
import { Buffer } from "node:buffer"
import { LaitError } from "../core/errors.ts"
import type { Json } from "../core/json.ts"
import { captureAborts } from "./jqAbort.ts"
import type { JqReply, JqRequest } from "./jqWorker.ts"

/** `$steps`, `$inputs` and `$loop` for one evaluation; `$loop` is null outside loops. */
export interface JqVars {
  readonly steps: Readonly<Record<string, Json>>
  readonly inputs: Readonly<Record<string, Json>>
  readonly loop: Json
}

export type JqWhat = "filter" | "condition"

export const MAX_FILTER_BYTES = 64 * 1024
export const MAX_NESTING = 1024
export const MAX_INPUT_BYTES = 64 * 1024 * 1024
export const MAX_OUTPUT_BYTES = 16 * 1024 * 1024
/** `evalJqAll` stops a stream after this many values (an endless stream would otherwise never end). */
export const MAX_OUTPUTS = 100_000
/** Values nested deeper than this may have overflowed jq-wasm's C stack: the instance is replaced. */
const SAFE_DEPTH = 128
/**
 * jq-wasm leaks one of its 4096 virtual file descriptors on every call whose input holds a string,
 * and fails every later call with "Could not open file /dev/stdin: No file descriptors available":
 * the evaluating instance is replaced well before that.
 */
export const RUNNER_CALL_BUDGET = 2048

const GLOBALS = ["steps", "inputs", "loop"] as const
type GlobalName = (typeof GLOBALS)[number]

// ---------------------------------------------------------------------------------------------------
// Loading

let checker: Jq | undefined
let loading: Promise<void> | undefined

const ensureLoaded = (): Promise<void> => {
  loading ??= (async () => {
    // Imported lazily: the inline build embeds the 1 MB wasm, which commands without jq never need.
    const { loadJq: load } = await import("jq-wasm/inline")
    checker ??= await load()
  })().finally(() => {
    loading = undefined
  })
  return loading
}

/**
 * Loads the syntax checker once per process (about 20–30 ms the first time; free afterwards). Run it
 * before `checkJqSyntax`, which is synchronous and cannot load anything itself. The evaluation
 * functions call it on their own; they start the evaluating worker only when first used.
 */
export const loadJq: Effect.Effect<void, LaitError> = Effect.suspend(() =>
  checker !== undefined
    ? Effect.void
    : Effect.tryPromise({
      try: ensureLoaded,
      catch: (cause) => new LaitError({ message: "failed to load the jq engine", cause })
    })
)

// ---------------------------------------------------------------------------------------------------
// Small helpers

const quote = (text: string): string => JSON.stringify(text)

const oneLine = (text: string): string => text.trim().replace(/\s*\n\s*/g, " ")

/** True when `text` is longer than `limit` bytes as UTF-8 (skips the count when it cannot be). */
const exceedsBytes = (text: string, limit: number): boolean =>
  text.length > limit || (text.length * 3 > limit && Buffer.byteLength(text, "utf8") > limit)

/** Container nesting depth (`1` for `[1]`, `0` for a scalar); stops counting once past `limit`. */
const nestingDepth = (root: Json, limit: number): number => {
  if (root === null || typeof root !== "object") return 0
  let max = 0
  const stack: Array<readonly [Json, number]> = [[root, 1]]
  while (stack.length > 0) {
    const [value, depth] = stack.pop()!
    if (depth > max) {
      max = depth
      if (max > limit) return max
    }
    const children: ReadonlyArray<Json> = Array.isArray(value) ? value : Object.values(value as object)
    for (const child of children) {
      if (child !== null && typeof child === "object") stack.push([child, depth + 1])
    }
  }
  return max
}

/** Bracket nesting outside strings and comments: jq-wasm compiles nested expressions recursively. */
const filterNesting = (filter: string): number => {
  let depth = 0
  let max = 0
  let inString = false
  let escaped = false
  let inComment = false
  for (const ch of filter) {
    if (inComment) {
      if (ch === "\n") inComment = false
      continue
    }
    if (inString) {
      if (escaped) escaped = false
      else if (ch === "\\") escaped = true
      else if (ch === "\"") inString = false
      continue
    }
    if (ch === "\"") inString = true
    else if (ch === "#") inComment = true
    else if (ch === "[" || ch === "{" || ch === "(") {
      depth++
      if (depth > max) max = depth
    } else if (ch === "]" || ch === "}" || ch === ")") depth = Math.max(0, depth - 1)
  }
  return max
}

/** `printed`: what jq-wasm printed, then the message of what it threw. */
const abortReason = (printed: ReadonlyArray<string>): string => {
  const detail = printed.map(oneLine).filter((s) => s.length > 0)
  // A bare `Aborted()` is what a failed allocation looks like, and a stack overflow may look the same:
  // both causes are named, since the engine does not say which it was.
  return `the jq engine aborted (${detail.join("; ")}); it ran out of memory or stack: values of tens of ` +
    "megabytes or nested a few hundred levels deep can exhaust it"
}

/** `jq: error: <msg> at <top-level>, line 1, column 2:` lines → `<msg> at …, column 2`. */
const compileReason = (stderr: string): string => {
  const reasons = stderr
    .split("\n")
    .filter((line) => line.startsWith("jq: error: "))
    .map((line) => line.slice("jq: error: ".length).replace(/:\s*$/, ""))
  return reasons.length > 0 ? reasons.join("; ") : oneLine(stderr)
}

// jq quotes whole inputs in some errors (`fromjson` repeats the text it failed to parse) and
// `error(.)` carries a whole value: a message must stay one readable line, not megabytes of stderr.
const MAX_REASON_CHARS = 500
const EXCERPT_CHARS = 40

const shorten = (reason: string): string => {
  const quoted = /^([\s\S]*?\(while parsing ')([\s\S]*)('\))$/.exec(reason)
  const text = quoted !== null && (quoted[2] ?? "").length > EXCERPT_CHARS
    ? `${quoted[1]}${(quoted[2] ?? "").slice(0, EXCERPT_CHARS)}…${quoted[3]}`
    : reason
  return text.length <= MAX_REASON_CHARS
    ? text
    : `${text.slice(0, MAX_REASON_CHARS)}… (${text.length - MAX_REASON_CHARS} more characters)`
}

const runtimeReason = (stderr: string, exitCode: number): string => shorten(fullRuntimeReason(stderr, exitCode))

/** `jq: error (at /dev/stdin:0): boom` → `boom`; `error({})` → `{} (not a string)`. */
const fullRuntimeReason = (stderr: string, exitCode: number): string => {
  const lines = stderr.split("\n")
  const first = lines.findIndex((line) => line.startsWith("jq: error"))
  if (first < 0) {
    const text = oneLine(stderr) // `halt_error` prints its message bare
    return text.length > 0 ? text : `jq exited with status ${exitCode}`
  }
  const text = lines.slice(first).join("\n")
  const runtime = /^jq: error \(at [^)]*\)( \(not a string\))?: ([\s\S]*)$/.exec(text)
  if (runtime !== null) return oneLine(runtime[2] ?? "") + (runtime[1] !== undefined ? " (not a string)" : "")
  return compileReason(text)
}

// ---------------------------------------------------------------------------------------------------
// Syntax checks

interface SyntaxVerdict {
  readonly message: string | undefined
}

const syntaxCache = new Map<string, SyntaxVerdict>()

// No input on stdin and no `-n`: jq compiles the program and then has nothing to run it on, so a
// filter such as `error("boom")` is checked without being executed. The globals are bound (to null)
// only so that references to them compile.
const CHECK_FLAGS = GLOBALS.flatMap((name) => ["--argjson", name, "null"])

const filterLimitMessage = (filter: string): string | undefined => {
  if (exceedsBytes(filter, MAX_FILTER_BYTES)) {
    return `jq filter exceeds the configured limit of ${MAX_FILTER_BYTES} bytes`
  }
  if (filterNesting(filter) > MAX_NESTING) return `jq filter exceeds the configured nesting limit of ${MAX_NESTING}`
  return undefined
}

/**
 * Checks a filter's syntax (and the 64 KiB / nesting limits) without running it. References to
 * `$steps`, `$inputs`, `$loop` and jq's own `$__loc__`/`$ENV` are accepted. Returns undefined when it
 * compiles, else the one-line message `failed to parse jq filter "<src>": <reason>`.
 * Synchronous: `yield* loadJq` first (it throws a defect when jq was never loaded). Results are cached.
 */
export const checkJqSyntax = (filter: string): string | undefined => {
  const cached = syntaxCache.get(filter)
  if (cached !== undefined) return cached.message
  const limit = filterLimitMessage(filter)
  if (limit !== undefined) {
    syntaxCache.set(filter, { message: limit })
    return limit
  }
  const jq = checker
  if (jq === undefined) throw new Error("jq is not loaded: run `yield* loadJq` before checkJqSyntax")
  const captured = captureAborts(() => jq.raw("", filter, CHECK_FLAGS))
  if (captured.value === undefined) {
    checker = undefined
    const thrown = captured.thrown instanceof Error ? captured.thrown.message : String(captured.thrown)
    return `failed to parse jq filter ${quote(filter)}: ${abortReason([...captured.printed, thrown])}`
  }
  const message = captured.value.exitCode === 0
    ? undefined
    : `failed to parse jq filter ${quote(filter)}: ${compileReason(captured.value.stderr)}`
  syntaxCache.set(filter, { message })
  return message
}

// ---------------------------------------------------------------------------------------------------
// Values in

interface Encoded {
  readonly text: string
  readonly depth: number
}

// Workflow values are immutable, and the same objects (recorded step outputs, the loop item) are fed to
// jq again and again: their JSON text and depth are computed once per object.
const encodedObjects = new WeakMap<object, Encoded>()

const encodeValue = (value: Json, what: string): Encoded | LaitError => {
  if (value === null || typeof value !== "object") {
    const text = JSON.stringify(value) ?? "null"
    return exceedsBytes(text, MAX_INPUT_BYTES) ? tooLarge(what) : { text, depth: 0 }
  }
  const hit = encodedObjects.get(value)
  if (hit !== undefined) return hit
  const depth = nestingDepth(value, MAX_NESTING)
  if (depth > MAX_NESTING) return tooDeep(what)
  const text = JSON.stringify(value)
  if (exceedsBytes(text, MAX_INPUT_BYTES)) return tooLarge(what)
  const encoded = { text, depth }
  encodedObjects.set(value, encoded)
  return encoded
}

// `$steps`/`$inputs` records are rebuilt by the engine as steps complete, but their entries are not:
// encode entry by entry so each recorded value is serialised once.
const encodeRecord = (record: Readonly<Record<string, Json>>, what: string): Encoded | LaitError => {
  const parts: Array<string> = []
  let depth = 1
  let size = 2
  for (const [key, value] of Object.entries(record)) {
    const encoded = encodeValue(value, what)
    if (encoded instanceof LaitError) return encoded
    if (encoded.depth + 1 > MAX_NESTING) return tooDeep(what)
    depth = Math.max(depth, encoded.depth + 1)
    const part = `${JSON.stringify(key)}:${encoded.text}`
    size += part.length + 1
    if (size > MAX_INPUT_BYTES) return tooLarge(what)
    parts.push(part)
  }
  const text = `{${parts.join(",")}}`
  return exceedsBytes(text, MAX_INPUT_BYTES) ? tooLarge(what) : { text, depth }
}

const tooDeep = (what: string) =>
  new LaitError({ message: `${what} exceeds the configured nesting limit of ${MAX_NESTING}` })

const tooLarge = (what: string) =>
  new LaitError({ message: `${what} exceeds the configured limit of ${MAX_INPUT_BYTES} bytes` })

// ---------------------------------------------------------------------------------------------------
// The evaluating worker

interface Job {
  readonly request: Omit<JqRequest, "fresh">
  /**
   * Called once, synchronously in the message handler, so that its verdict on the instance
   * (`freshNext`) is in place before the next request is sent.
   */
  readonly settle: (reply: JqReply | LaitError) => void
}

let worker: Worker | undefined
/** Workers started so far; names the current one in `jqEngineState`. */
let workersStarted = 0
/** Whether the current worker has replied at least once, i.e. it did load. */
let workerAnswered = false
let running: Job | undefined
const queue: Array<Job> = []
/** The next request must run on a new instance: the last one saw a value deep enough to corrupt it. */
let freshNext = false
let instanceSeen: number | undefined
let instanceCalls = 0
let lastIdentity: string | undefined

// In the compiled binary every module shares the entry's URL (`…/$bunfs/root/lait`) and build.ts embeds
// this worker as a second entrypoint rooted, like the entry, at src/: it sits at lang/jqWorker.ts
// beside it. From source, it sits beside this file.
const workerUrl = (): string =>
  import.meta.url.endsWith("/lang/jq.ts")
    ? new URL("./jqWorker.ts", import.meta.url).href
    : new URL("./lang/jqWorker.ts", import.meta.url).href

// Bun's extension; Deno's workers have neither (there, lait's explicit exit ends an idle worker).
const setReferenced = (target: Worker, referenced: boolean): void => {
  const handle = target as { ref?: () => void; unref?: () => void }
  if (referenced) handle.ref?.()
  else handle.unref?.()
}

const startWorker = (): Worker => {
  // `type: "module"`: Deno supports no other kind (Bun ignores it).
  const started = new Worker(workerUrl(), { type: "module" })
  workersStarted++
  workerAnswered = false
  instanceSeen = undefined
  instanceCalls = 0
  freshNext = false
  // Referenced only while an evaluation is in flight: an idle worker must not keep lait alive.
  setReferenced(started, false)
  started.addEventListener("message", (event) => {
    if (started === worker) onReply((event as MessageEvent<JqReply>).data)
  })
  started.addEventListener("error", (event) => {
    event.preventDefault()
    if (started === worker) onBroken((event as ErrorEvent).message)
  })
  started.addEventListener("close", () => {
    if (started === worker) onBroken("its thread exited")
  })
  return started
}

const abandonWorker = (): void => {
  const abandoned = worker
  worker = undefined
  if (abandoned === undefined) return
  setReferenced(abandoned, false)
  abandoned.terminate()
}

const pump = (): void => {
  if (running !== undefined) return
  const job = queue.shift()
  if (job === undefined) return
  try {
    worker ??= startWorker()
  } catch (cause) {
    job.settle(new LaitError({ message: "failed to load the jq engine", cause }))
    return pump()
  }
  running = job
  setReferenced(worker, true)
  worker.postMessage({ ...job.request, fresh: freshNext } satisfies JqRequest)
  freshNext = false
}

const settleAndContinue = (job: Job, reply: JqReply | LaitError): void => {
  try {
    job.settle(reply)
  } finally {
    // `settle` may already have queued and sent the caller's next evaluation.
    pump()
    if (running === undefined && worker !== undefined) setReferenced(worker, false)
  }
}

const onReply = (reply: JqReply): void => {
  const job = running
  if (job === undefined) return
  running = undefined
  workerAnswered = true
  if (reply.kind !== "unavailable") {
    lastIdentity = `${workersStarted}.${reply.instance}`
    if (reply.instance !== instanceSeen) {
      instanceSeen = reply.instance
      instanceCalls = 0
    }
    // A trap already cost the worker its instance; the budget is counted per instance.
    if (reply.kind === "result" && ++instanceCalls >= RUNNER_CALL_BUDGET) freshNext = true
  }
  settleAndContinue(job, reply)
}

// The worker failed to load (e.g. its module is missing) or died: only the evaluation it was running
// fails; the queue moves on to a new worker.
const onBroken = (detail: string): void => {
  const job = running
  running = undefined
  const loaded = workerAnswered
  abandonWorker()
  const error = new LaitError({
    message: loaded ? "the jq engine stopped unexpectedly" : "failed to load the jq engine",
    cause: new Error(detail)
  })
  if (job !== undefined) settleAndContinue(job, error)
  else pump()
}

const cancel = (job: Job): void => {
  const queued = queue.indexOf(job)
  if (queued >= 0) {
    queue.splice(queued, 1)
    return
  }
  if (running !== job) return
  // The evaluation may never end, and a worker cannot be told to stop one: replace the worker.
  running = undefined
  abandonWorker()
  pump()
}

/**
 * For tests: how many evaluating workers this process has started, and `<worker>.<instance>` of the
 * jq instance that ran the last evaluation (undefined before the first), which changes on recycling.
 */
export const jqEngineState = (): { readonly workersStarted: number; readonly lastInstance: string | undefined } => ({
  workersStarted,
  lastInstance: lastIdentity
})

type Outcome = ReadonlyArray<Json> | LaitError

const inWorker = (
  request: Job["request"],
  finish: (reply: JqReply) => Outcome
): Effect.Effect<ReadonlyArray<Json>, LaitError> =>
  Effect.callback<ReadonlyArray<Json>, LaitError>((resume) => {
    const job: Job = {
      request,
      settle: (reply) => {
        const outcome = reply instanceof LaitError ? reply : finish(reply)
        resume(outcome instanceof LaitError ? Effect.fail(outcome) : Effect.succeed(outcome))
      }
    }
    queue.push(job)
    pump()
    return Effect.sync(() => cancel(job))
  })

// ---------------------------------------------------------------------------------------------------
// Evaluation

type Mode = { readonly kind: "one"; readonly what: JqWhat } | { readonly kind: "all" }

// `limit` stops the stream early: for the exactly-one rule a second value is all it takes to fail,
// and it bounds an endless stream for `evalJqAll`. The filter goes on the same line as the prelude so
// `$__loc__` keeps its line numbers; the blank line before `))` ends a comment that continues with a
// trailing backslash (jq 1.8). `input`/`inputs` are redefined because our stream has been consumed.
const program = (filter: string, globals: ReadonlyArray<GlobalName>, limit: number): string =>
  globals.map((name) => `input as $${name} | `).join("") +
  "input | def input: error(\"No more inputs\"); def inputs: empty; " +
  `limit(${limit}; (${filter}\n\n))`

const usedGlobals = (filter: string): ReadonlyArray<GlobalName> => GLOBALS.filter((name) => filter.includes(`$${name}`))

/** Everything up to running jq, on the main thread: syntax, limits and the JSON text on stdin. */
const prepare = (filter: string, input: Json, vars: JqVars, mode: Mode): Job["request"] | LaitError => {
  const what = mode.kind === "one" ? mode.what : "filter"
  const context = (cause: LaitError) => new LaitError({ message: `jq ${what} ${quote(filter)}`, cause })

  const syntax = checkJqSyntax(filter)
  if (syntax !== undefined) return new LaitError({ message: syntax })

  const globals = usedGlobals(filter)
  const stream: Array<string> = []
  let inputDepth = 0
  for (const name of globals) {
    const label = `jq '$${name}'`
    const encoded = name === "loop" ? encodeValue(vars.loop, label) : encodeRecord(vars[name], label)
    if (encoded instanceof LaitError) return context(encoded)
    stream.push(encoded.text)
    inputDepth = Math.max(inputDepth, encoded.depth)
  }
  const encodedInput = encodeValue(input, "jq input")
  if (encodedInput instanceof LaitError) return context(encodedInput)
  stream.push(encodedInput.text)
  inputDepth = Math.max(inputDepth, encodedInput.depth)

  const limit = mode.kind === "one" ? 2 : MAX_OUTPUTS + 1
  return { stdin: stream.join("\n"), program: program(filter, globals, limit), retire: inputDepth > SAFE_DEPTH }
}

/** The worker's reply as values or the error callers see. Runs before the next request is sent. */
const interpret = (filter: string, mode: Mode, reply: JqReply): Outcome => {
  const what = mode.kind === "one" ? mode.what : "filter"
  const context = (cause: LaitError) => new LaitError({ message: `jq ${what} ${quote(filter)}`, cause })
  if (reply.kind === "unavailable") {
    return new LaitError({ message: "failed to load the jq engine", cause: new Error(reply.message) })
  }
  if (reply.kind === "aborted") {
    return new LaitError({ message: `jq ${what} ${quote(filter)} failed: ${abortReason(reply.detail)}` })
  }
  if (reply.exitCode !== 0) {
    const reason = reply.exitCode === 3 ? compileReason(reply.stderr) : runtimeReason(reply.stderr, reply.exitCode)
    return new LaitError({ message: `jq ${what} ${quote(filter)} failed: ${reason}` })
  }

  const lines = reply.stdout.length === 0 ? [] : reply.stdout.split("\n")
  if (mode.kind === "one") {
    if (lines.length === 0) {
      return new LaitError({ message: `jq ${what} ${quote(filter)} produced no output; expected exactly one value` })
    }
    if (lines.length > 1) {
      return new LaitError({
        message: `jq ${what} ${quote(filter)} produced ${lines.length} outputs; expected exactly one value ` +
          "(wrap a stream in '[...]' to collect it into an array)"
      })
    }
  } else if (lines.length > MAX_OUTPUTS) {
    return context(new LaitError({ message: `jq produced more than ${MAX_OUTPUTS} outputs, the configured limit` }))
  }
  if (exceedsBytes(reply.stdout, MAX_OUTPUT_BYTES)) {
    return context(
      new LaitError({ message: `jq rendered output exceeds the configured limit of ${MAX_OUTPUT_BYTES} bytes` })
    )
  }
  const values: Array<Json> = []
  for (const line of lines) {
    let value: Json
    try {
      value = JSON.parse(line) as Json
    } catch (e) {
      freshNext = true
      return context(
        new LaitError({ message: `jq produced output that is not JSON: ${e instanceof Error ? e.message : String(e)}` })
      )
    }
    const depth = nestingDepth(value, MAX_NESTING)
    if (depth > SAFE_DEPTH) freshNext = true
    if (depth > MAX_NESTING) return context(tooDeep("jq output"))
    values.push(value)
  }
  return values
}

const evaluate = (
  filter: string,
  input: Json,
  vars: JqVars,
  mode: Mode
): Effect.Effect<ReadonlyArray<Json>, LaitError> => {
  const attempt: Effect.Effect<ReadonlyArray<Json>, LaitError> = Effect.suspend(() => {
    // The checker is gone after a syntax check trapped, or was never loaded.
    if (checker === undefined) return Effect.andThen(loadJq, attempt)
    const request = prepare(filter, input, vars, mode)
    if (request instanceof LaitError) return Effect.fail(request)
    return inWorker(request, (reply) => interpret(filter, mode, reply))
  })
  return attempt
}

/**
 * Runs `filter` on `input` with `$steps`/`$inputs`/`$loop` bound and requires exactly one value.
 * `what` names the field kind in messages (`jq condition "…" produced no output; …`).
 */
export const evalJqOne = (filter: string, input: Json, vars: JqVars, what: JqWhat): Effect.Effect<Json, LaitError> =>
  Effect.map(evaluate(filter, input, vars, { kind: "one", what }), (values) => values[0] ?? null)

/** Every value `filter` produces (at most MAX_OUTPUTS), in order. */
export const evalJqAll = (filter: string, input: Json, vars: JqVars): Effect.Effect<ReadonlyArray<Json>, LaitError> =>
  evaluate(filter, input, vars, { kind: "all" })

/** jq truthiness: only `false` and `null` are falsy. */
export const isTruthy = (value: Json): boolean => value !== false && value !== null
