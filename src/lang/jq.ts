// jq for every jq-valued workflow field (`when`, `input`, `output`, `jq`, `for_each`, `while`/`until`,
// switch cases, the top-level `output`) and for test assertions, on jq-wasm (jq 1.8.2).
//
// Most filters never reach jq-wasm: the native evaluator (jq/) parses a strict subset of jq and
// evaluates it on the main thread, and hands the filter over (unsupported syntax, or a bail at run
// time: any jq error, numbers jq would print differently, too much work, ...) whenever its answer
// could differ from jq-wasm's in any way. jq-wasm is loaded, and its worker started, only for those.
//
// jq-wasm runs jq's `main()` once per call, so every evaluation is one synchronous, self-contained jq
// invocation (~1 ms plus the cost of jq parsing its input). Values travel as JSON text on stdin, never
// as `--argjson` arguments: jq-wasm copies argv onto its 1 MiB C stack, and a large argument silently
// overwrites the memory below it. The globals are read with `input as $steps | …` from the same stream,
// and only the globals the filter text mentions are sent, so an evaluation that does not use `$steps`
// does not pay for serialising and parsing it.
//
// Evaluations run in a Worker (jqWorker.ts, driven by jqRunner.ts), one at a time in arrival order: a
// filter that never terminates (`def f: f; f`) would otherwise block the event loop, and with it step
// timeouts and Ctrl-C. An interrupted evaluation abandons its worker (the next one starts lazily);
// queued ones go to the next worker. JavaScriptCore cannot stop a thread that is inside wasm code, so an
// abandoned worker stuck in an endless jq loop keeps one core busy until lait exits (terminate() still
// ends one that returns to JavaScript). Everything crosses the thread boundary as strings; the worker
// only runs jq.
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
import { JqError } from "./languageErrors.ts"
import type { Json } from "../core/json.ts"
import { captureAborts } from "./jqAbort.ts"
import { inWorker, type Outcome, retireInstance, type RunnerRequest, shareJqModule, warmWorker } from "./jqRunner.ts"
import {
  abortReason,
  compileReason,
  encodeRecord,
  encodeValue,
  exceedsBytes,
  filterNesting,
  MAX_FILTER_BYTES,
  MAX_NESTING,
  MAX_OUTPUT_BYTES,
  MAX_OUTPUTS,
  nestingDepth,
  quote,
  runtimeReason,
  SAFE_DEPTH,
  tooDeep
} from "./jqText.ts"
import type { JqReply } from "./jqWorker.ts"
import { nativeFilter, runNative } from "./jq/index.ts"

export { MAX_FILTER_BYTES, MAX_INPUT_BYTES, MAX_NESTING, MAX_OUTPUT_BYTES, MAX_OUTPUTS } from "./jqText.ts"

/** `$steps`, `$inputs` and `$loop` for one evaluation; `$loop` is null outside loops. */
export interface JqVars {
  readonly steps: Readonly<Record<string, Json>>
  readonly inputs: Readonly<Record<string, Json>>
  readonly loop: Json
}

export type JqWhat = "filter" | "condition"

const GLOBALS = ["steps", "inputs", "loop"] as const
type GlobalName = (typeof GLOBALS)[number]

// ---------------------------------------------------------------------------------------------------
// Loading

let checker: Jq | undefined
let loading: Promise<void> | undefined

/**
 * Runs `load` and returns the WebAssembly.Module it compiled, if any. jq-wasm keeps the module it
 * compiles to itself; compiling the 0.9 MB module is most of a load's cost, so the first load's module
 * is caught (WebAssembly.instantiate of bytes resolves to it) and handed to the evaluating worker.
 */
const catchingModule = async <A>(
  load: () => Promise<A>
): Promise<{ readonly value: A; readonly module?: WebAssembly.Module }> => {
  const original = WebAssembly.instantiate
  let module: WebAssembly.Module | undefined
  const catching = async (...args: Parameters<typeof WebAssembly.instantiate>) => {
    const result: unknown = await (original as (...a: typeof args) => Promise<unknown>).apply(WebAssembly, args)
    const caught = typeof result === "object" && result !== null && "module" in result ? result.module : undefined
    if (caught instanceof WebAssembly.Module) module ??= caught
    return result
  }
  WebAssembly.instantiate = catching as typeof WebAssembly.instantiate
  try {
    const value = await load()
    return module === undefined ? { value } : { value, module }
  } finally {
    WebAssembly.instantiate = original
  }
}

const ensureLoaded = (): Promise<void> => {
  loading ??= (async () => {
    // Imported lazily: the inline build embeds the 1 MB wasm, which commands without jq never need.
    const { loadJq: load } = await import("jq-wasm/inline")
    if (checker !== undefined) return
    const loaded = await catchingModule(load)
    checker = loaded.value
    if (loaded.module !== undefined) shareJqModule(loaded.module)
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
export const loadJq: Effect.Effect<void, JqError> = Effect.suspend(() =>
  checker !== undefined
    ? Effect.void
    : Effect.tryPromise({
      try: ensureLoaded,
      catch: (cause) => new JqError({ reason: { _tag: "EngineUnavailable", cause } })
    })
)

// ---------------------------------------------------------------------------------------------------
// Syntax checks

interface SyntaxVerdict {
  readonly message: string | undefined
}

const syntaxCache = new Map<string, SyntaxVerdict>()
/** Whether some filter needed jq-wasm's syntax check, i.e. is outside the native subset. */
let wasmChecked = false

/** Thrown by checkJqSyntax for a filter only jq-wasm can check, before jq-wasm is loaded. */
class JqNotLoaded extends Error {
  constructor() {
    super("jq is not loaded: run `yield* loadJq` before checkJqSyntax")
  }
}

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
 * Filters in the native subset (jq/) are accepted without jq-wasm; any other needs it loaded:
 * run the synchronous check inside `withJqSyntax`, or `yield* loadJq` first. Results are cached.
 */
export const checkJqSyntax = (filter: string): string | undefined => {
  const cached = syntaxCache.get(filter)
  if (cached !== undefined) return cached.message
  const limit = filterLimitMessage(filter)
  if (limit !== undefined) {
    syntaxCache.set(filter, { message: limit })
    return limit
  }
  if (nativeFilter(filter) !== undefined) {
    syntaxCache.set(filter, { message: undefined })
    return undefined
  }
  const jq = checker
  if (jq === undefined) throw new JqNotLoaded()
  wasmChecked = true
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

/**
 * Runs `check`, a synchronous pass that calls checkJqSyntax, loading jq-wasm and running it again only
 * when some filter needs jq-wasm: a command whose filters are all native never loads it.
 */
export const withJqSyntax = <A>(check: () => A): Effect.Effect<A, JqError> => {
  const attempt = (retries: number): Effect.Effect<A, JqError> =>
    Effect.suspend(() => {
      try {
        return Effect.succeed(check())
      } catch (e) {
        // A check that trapped drops the checker; a few reloads, then the defect it always was.
        if (e instanceof JqNotLoaded && retries > 0) return Effect.andThen(loadJq, attempt(retries - 1))
        throw e
      }
    })
  return attempt(3)
}

/**
 * For a command about to run what it has just loaded: when that held filters (syntax-checked here), starts
 * the evaluating worker now, so that its start overlaps the main thread's work up to the first
 * evaluation instead of delaying it. A process that checked no filter jq-wasm had to check (none, or
 * only native ones) starts no worker.
 */
export const warmJqWorker: Effect.Effect<void> = Effect.sync(() => {
  if (checker !== undefined && wasmChecked) warmWorker()
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
const prepare = (
  filter: string,
  input: Json,
  vars: JqVars,
  mode: Mode
): (RunnerRequest & { readonly limit: number }) | JqError => {
  const what = mode.kind === "one" ? mode.what : "filter"
  const context = (cause: JqError) => new JqError({ reason: { _tag: "InFilter", what, filter, cause } })

  const syntax = checkJqSyntax(filter)
  if (syntax !== undefined) return new JqError({ reason: { _tag: "Syntax", detail: syntax } })

  const globals = usedGlobals(filter)
  const stream: Array<string> = []
  let inputDepth = 0
  for (const name of globals) {
    const label = `jq '$${name}'`
    const encoded = name === "loop" ? encodeValue(vars.loop, label) : encodeRecord(vars[name], label)
    if (encoded instanceof JqError) return context(encoded)
    stream.push(encoded.text)
    inputDepth = Math.max(inputDepth, encoded.depth)
  }
  const encodedInput = encodeValue(input, "jq input")
  if (encodedInput instanceof JqError) return context(encodedInput)
  stream.push(encodedInput.text)
  inputDepth = Math.max(inputDepth, encodedInput.depth)

  const limit = mode.kind === "one" ? 2 : MAX_OUTPUTS + 1
  return { stdin: stream.join("\n"), program: program(filter, globals, limit), retire: inputDepth > SAFE_DEPTH, limit }
}

/** The exactly-one rule, or the cap on a stream's length. */
const countProblem = (filter: string, mode: Mode, count: number): JqError | undefined => {
  if (mode.kind === "one") {
    if (count === 0) return new JqError({ reason: { _tag: "NoOutput", what: mode.what, filter } })
    if (count > 1) return new JqError({ reason: { _tag: "ManyOutputs", what: mode.what, filter, count } })
  } else if (count > MAX_OUTPUTS) {
    const cause = new JqError({ reason: { _tag: "OutputCount", limit: MAX_OUTPUTS } })
    return new JqError({ reason: { _tag: "InFilter", what: "filter", filter, cause } })
  }
  return undefined
}

/** The worker's reply as values or the error callers see. Runs before the next request is sent. */
const interpret = (filter: string, mode: Mode, reply: JqReply): Outcome => {
  const what = mode.kind === "one" ? mode.what : "filter"
  const context = (cause: JqError) => new JqError({ reason: { _tag: "InFilter", what, filter, cause } })
  if (reply.kind === "unavailable") {
    return new JqError({ reason: { _tag: "EngineUnavailable", cause: new Error(reply.message) } })
  }
  if (reply.kind === "aborted") {
    return new JqError({ reason: { _tag: "Failed", what, filter, problem: abortReason(reply.detail) } })
  }
  if (reply.exitCode !== 0) {
    const problem = reply.exitCode === 3 ? compileReason(reply.stderr) : runtimeReason(reply.stderr, reply.exitCode)
    return new JqError({ reason: { _tag: "Failed", what, filter, problem } })
  }

  const lines = reply.stdout.length === 0 ? [] : reply.stdout.split("\n")
  const counted = countProblem(filter, mode, lines.length)
  if (counted !== undefined) return counted
  if (exceedsBytes(reply.stdout, MAX_OUTPUT_BYTES)) {
    return context(new JqError({ reason: { _tag: "OutputBytes", limit: MAX_OUTPUT_BYTES } }))
  }
  const values: Array<Json> = []
  for (const line of lines) {
    let value: Json
    try {
      value = JSON.parse(line) as Json
    } catch (e) {
      retireInstance()
      const detail = e instanceof Error ? e.message : String(e)
      return context(new JqError({ reason: { _tag: "OutputNotJson", detail } }))
    }
    const depth = nestingDepth(value, MAX_NESTING)
    if (depth > SAFE_DEPTH) retireInstance()
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
): Effect.Effect<ReadonlyArray<Json>, JqError> => {
  const attempt: Effect.Effect<ReadonlyArray<Json>, JqError> = Effect.suspend(() => {
    const native = nativeFilter(filter)
    // The checker is gone after a syntax check trapped, or was never loaded.
    if (native === undefined && checker === undefined) return Effect.andThen(loadJq, attempt)
    const prepared = prepare(filter, input, vars, mode)
    if (prepared instanceof JqError) return Effect.fail(prepared)
    const { limit, ...request } = prepared
    if (native !== undefined) {
      const values = runNative(native, input, vars, usedGlobals(filter), limit)
      if (values !== undefined) {
        const counted = countProblem(filter, mode, values.length)
        return counted === undefined ? Effect.succeed(values) : Effect.fail(counted)
      }
    }
    const inJq = inWorker(request, (reply) => interpret(filter, mode, reply))
    // jq-wasm decides; the worker gets the main thread's compiled module
    return checker === undefined ? Effect.andThen(loadJq, inJq) : inJq
  })
  return attempt
}

/**
 * Runs `filter` on `input` with `$steps`/`$inputs`/`$loop` bound and requires exactly one value.
 * `what` names the field kind in messages (`jq condition "…" produced no output; …`).
 */
export const evalJqOne = (filter: string, input: Json, vars: JqVars, what: JqWhat): Effect.Effect<Json, JqError> =>
  Effect.map(evaluate(filter, input, vars, { kind: "one", what }), (values) => values[0] ?? null)

/** Every value `filter` produces (at most MAX_OUTPUTS), in order. */
export const evalJqAll = (filter: string, input: Json, vars: JqVars): Effect.Effect<ReadonlyArray<Json>, JqError> =>
  evaluate(filter, input, vars, { kind: "all" })

/** jq truthiness: only `false` and `null` are falsy. */
export const isTruthy = (value: Json): boolean => value !== false && value !== null
