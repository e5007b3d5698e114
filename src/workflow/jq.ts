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
// The same 1 MiB stack limits how deeply nested a value jq can print or compare: printing a value
// nested about 640 levels deep (or `del(..)` at about 400) overflows it, either trapping or quietly
// corrupting the instance. The evaluating instance is therefore thrown away (and lazily reloaded)
// after any call that trapped or that saw a value nested more than SAFE_DEPTH levels (a filter that
// builds such a value only internally goes unnoticed unless it traps), and syntax checks run on a
// second instance that never evaluates anything, so `checkJqSyntax` always has a healthy one.
import { Buffer } from "node:buffer"
import { Effect } from "effect"
import type { Jq } from "jq-wasm/inline"
import { LaitError } from "../core/errors.ts"
import type { Json } from "../core/json.ts"

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
const RUNNER_CALL_BUDGET = 2048
let runnerCalls = 0

const GLOBALS = ["steps", "inputs", "loop"] as const
type GlobalName = (typeof GLOBALS)[number]

// ---------------------------------------------------------------------------------------------------
// Loading

let checker: Jq | undefined
let runner: Jq | undefined
let loading: Promise<void> | undefined

const ensureLoaded = (): Promise<void> => {
  loading ??= (async () => {
    // Imported lazily: the inline build embeds the 1 MB wasm, which commands without jq never need.
    const { loadJq: load } = await import("jq-wasm/inline")
    const [c, r] = await Promise.all([checker ?? load(), runner ?? load()])
    checker ??= c
    runner ??= r
  })().finally(() => {
    loading = undefined
  })
  return loading
}

/**
 * Loads jq once per process (about 20–30 ms the first time; free afterwards). Run it before
 * `checkJqSyntax`, which is synchronous and cannot load anything itself. The evaluation functions call
 * it on their own.
 */
export const loadJq: Effect.Effect<void, LaitError> = Effect.suspend(() =>
  checker !== undefined && runner !== undefined
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

interface Captured<A> {
  readonly value?: A
  readonly thrown?: unknown
  readonly printed: ReadonlyArray<string>
}

// jq-wasm reports an abort (`Aborted(...)`, failed assertions) through console.error; the call is
// synchronous, so swapping console.error for its duration captures exactly that call's output.
const captureAborts = <A>(f: () => A): Captured<A> => {
  const printed: Array<string> = []
  const original = console.error
  console.error = (...args: Array<unknown>) => {
    printed.push(args.map(String).join(" "))
  }
  try {
    return { value: f(), printed }
  } catch (thrown) {
    return { thrown, printed }
  } finally {
    console.error = original
  }
}

const abortReason = (captured: Captured<unknown>): string => {
  const detail = [...captured.printed, captured.thrown instanceof Error ? captured.thrown.message : String(captured.thrown)]
    .map(oneLine)
    .filter((s) => s.length > 0)
  return `the jq engine aborted (${detail.join("; ")}); values nested a few hundred levels deep can exhaust its stack`
}

/** `jq: error: <msg> at <top-level>, line 1, column 2:` lines → `<msg> at …, column 2`. */
const compileReason = (stderr: string): string => {
  const reasons = stderr
    .split("\n")
    .filter((line) => line.startsWith("jq: error: "))
    .map((line) => line.slice("jq: error: ".length).replace(/:\s*$/, ""))
  return reasons.length > 0 ? reasons.join("; ") : oneLine(stderr)
}

/** `jq: error (at /dev/stdin:0): boom` → `boom`; `error({})` → `{} (not a string)`. */
const runtimeReason = (stderr: string, exitCode: number): string => {
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
    return `failed to parse jq filter ${quote(filter)}: ${abortReason(captured)}`
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

type Outcome = ReadonlyArray<Json> | LaitError | "reload"

const evaluateSync = (filter: string, input: Json, vars: JqVars, mode: Mode): Outcome => {
  const what = mode.kind === "one" ? mode.what : "filter"
  const context = (cause: LaitError) => new LaitError({ message: `jq ${what} ${quote(filter)}`, cause })

  if (checker === undefined || runner === undefined) return "reload"
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

  const jq = runner
  const limit = mode.kind === "one" ? 2 : MAX_OUTPUTS + 1
  const captured = captureAborts(() => jq.raw(stream.join("\n"), program(filter, globals, limit), ["-n", "-c"]))
  const retire = () => {
    if (runner === jq) runner = undefined
  }
  if (inputDepth > SAFE_DEPTH) retire()
  if (++runnerCalls >= RUNNER_CALL_BUDGET) {
    runnerCalls = 0
    retire()
  }
  const result = captured.value
  if (result === undefined) {
    retire()
    return new LaitError({ message: `jq ${what} ${quote(filter)} failed: ${abortReason(captured)}` })
  }
  if (result.exitCode !== 0) {
    const reason = result.exitCode === 3 ? compileReason(result.stderr) : runtimeReason(result.stderr, result.exitCode)
    return new LaitError({ message: `jq ${what} ${quote(filter)} failed: ${reason}` })
  }

  const lines = result.stdout.length === 0 ? [] : result.stdout.split("\n")
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
  if (exceedsBytes(result.stdout, MAX_OUTPUT_BYTES)) {
    return context(new LaitError({ message: `jq rendered output exceeds the configured limit of ${MAX_OUTPUT_BYTES} bytes` }))
  }
  const values: Array<Json> = []
  for (const line of lines) {
    let value: Json
    try {
      value = JSON.parse(line) as Json
    } catch (e) {
      retire()
      return context(new LaitError({ message: `jq produced output that is not JSON: ${e instanceof Error ? e.message : String(e)}` }))
    }
    const depth = nestingDepth(value, MAX_NESTING)
    if (depth > SAFE_DEPTH) retire()
    if (depth > MAX_NESTING) return context(tooDeep("jq output"))
    values.push(value)
  }
  return values
}

const evaluate = (filter: string, input: Json, vars: JqVars, mode: Mode): Effect.Effect<ReadonlyArray<Json>, LaitError> => {
  const attempt: Effect.Effect<ReadonlyArray<Json>, LaitError> = Effect.suspend(() => {
    const outcome = evaluateSync(filter, input, vars, mode)
    if (outcome === "reload") return Effect.andThen(loadJq, attempt)
    return outcome instanceof LaitError ? Effect.fail(outcome) : Effect.succeed(outcome)
  })
  // Each evaluation is one synchronous call; yielding first lets an interrupted fiber stop here.
  return Effect.andThen(Effect.yieldNow, attempt)
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
