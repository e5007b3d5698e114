// The lean paths' reading of the command line: `lait run FILE [PROMPT] [FLAGS]` and `lait eval FILE
// [FLAGS]` written in the plainest forms only. Anything else — help, the version, completions, `--`,
// an unknown or negated flag, a flag given twice that is not repeatable, a value that starts with '-',
// a number not written as plain digits, `--approve-tools` (its terminal prompt is effect/cli's), a
// short-flag cluster other than -v..., live OTLP export — is undefined and goes through effect/cli as
// before (src/cli/app.ts), which also reports every mistake. What this accepts, effect/cli parses to
// the same values (test/e2e/lean-run.test.ts and lean-eval.test.ts run tables of command lines through
// both). No imports: src/main.ts reads it before loading anything.

/** The flags of one command a lean reader takes; every global flag is added to them. */
interface LeanSpec<S extends string, B extends string, N extends string, R extends string> {
  readonly command: string
  readonly strings: ReadonlyArray<S>
  readonly booleans: ReadonlyArray<B>
  /** Written as plain digits (integers) or plain decimals, read by effect/cli as numbers. */
  readonly integers?: ReadonlyArray<N>
  readonly decimals?: ReadonlyArray<N>
  /** Repeatable string flags, every value kept in order. */
  readonly repeated?: ReadonlyArray<R>
  /** Short forms, e.g. `-o` for `output`. */
  readonly short: Readonly<Record<string, S | N>>
}

const GLOBAL_STRINGS = ["config"] as const
const GLOBAL_BOOLEANS = ["no-config", "no-env", "cache", "no-cache"] as const

/** What a lean reader took from a command line. */
export interface LeanArgs<S extends string, B extends string, N extends string = never, R extends string = never> {
  readonly positionals: ReadonlyArray<string>
  readonly strings: Readonly<Partial<Record<S | (typeof GLOBAL_STRINGS)[number], string>>>
  readonly booleans: ReadonlySet<B | (typeof GLOBAL_BOOLEANS)[number]>
  readonly numbers: Readonly<Partial<Record<N, number>>>
  readonly repeated: Readonly<Partial<Record<R, ReadonlyArray<string>>>>
  readonly verbosity: number
}

const among = <A extends string>(list: ReadonlyArray<A> | undefined, name: string): name is A =>
  list !== undefined && (list as ReadonlyArray<string>).includes(name)

const INTEGER = /^(0|[1-9]\d{0,8})$/
const DECIMAL = /^(0|[1-9]\d{0,8})(\.\d{1,9})?$/

/** The command line read by `spec`, or undefined when effect/cli must read it. */
const readLean = <S extends string, B extends string, N extends string, R extends string>(
  spec: LeanSpec<S, B, N, R>,
  argv: ReadonlyArray<string>,
  env: Record<string, string | undefined>
): LeanArgs<S, B, N, R> | undefined => {
  if (argv[0] !== spec.command) return undefined
  // Live export wraps the command in its own spans; keep it on the path it was built and tested on.
  if (["OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"].some((n) => (env[n] ?? "").trim() !== "")) {
    return undefined
  }
  type Str = S | (typeof GLOBAL_STRINGS)[number]
  type Bool = B | (typeof GLOBAL_BOOLEANS)[number]
  const stringFlags: ReadonlyArray<Str> = [...spec.strings, ...GLOBAL_STRINGS]
  const booleanFlags: ReadonlyArray<Bool> = [...spec.booleans, ...GLOBAL_BOOLEANS]
  const positionals: Array<string> = []
  const strings: Partial<Record<Str, string>> = {}
  const booleans = new Set<Bool>()
  const numbers: Partial<Record<N, number>> = {}
  const repeated: Partial<Record<R, Array<string>>> = {}
  let verbosity = 0
  for (let i = 1; i < argv.length; i++) {
    const arg = argv[i]!
    if (arg === "--verbose") {
      verbosity++
      continue
    }
    if (/^-v+$/.test(arg)) {
      verbosity += arg.length - 1
      continue
    }
    if (!arg.startsWith("-") && arg !== "") {
      positionals.push(arg)
      continue
    }
    const eq = arg.startsWith("--") ? arg.indexOf("=") : -1
    const name = spec.short[arg] ?? (arg.startsWith("--") ? arg.slice(2, eq === -1 ? undefined : eq) : undefined)
    if (name === undefined) return undefined
    if (among(booleanFlags, name)) {
      if (eq !== -1 || booleans.has(name)) return undefined
      booleans.add(name)
      continue
    }
    if (!among(stringFlags, name) && !among(spec.repeated, name) && !among(spec.integers, name) &&
      !among(spec.decimals, name)) return undefined
    const value = eq === -1 ? argv[++i] : arg.slice(eq + 1)
    if (value === undefined || value === "" || value.startsWith("-")) return undefined
    if (among(spec.repeated, name)) {
      ;(repeated[name] ??= []).push(value)
    } else if (among(stringFlags, name)) {
      if (strings[name] !== undefined) return undefined
      strings[name] = value
    } else {
      const numeric = name as N
      if (numbers[numeric] !== undefined || !(among(spec.integers, name) ? INTEGER : DECIMAL).test(value)) {
        return undefined
      }
      numbers[numeric] = Number(value)
    }
  }
  if (booleans.has("cache") && booleans.has("no-cache")) return undefined
  if (booleans.has("no-config") && strings.config !== undefined) return undefined
  return { positionals, strings, booleans, numbers, repeated, verbosity }
}

const RUN = {
  command: "run",
  strings: ["output", "record", "replay", "record-missing", "trace-file", "resume"],
  booleans: [
    "json", "strict-replay", "replay-tools", "show-usage", "no-history", "dry-run", "checkpoint",
    "trace-content", "trace-spans"
  ],
  repeated: ["input"],
  short: { "-o": "output" }
} as const

type RunFlags = typeof RUN

type RunArgs = LeanArgs<RunFlags["strings"][number], RunFlags["booleans"][number], never, RunFlags["repeated"][number]>

/** `lait run`'s flags, as src/cli/run.ts declares them. */
export interface LeanRunArgs extends Pick<RunArgs, "strings" | "booleans" | "verbosity"> {
  readonly file: string
  readonly prompt: string | undefined
  readonly input: ReadonlyArray<string>
}

/** The command line read as a plain `lait run`, or undefined when effect/cli must read it. */
export const leanRunArgs = (
  argv: ReadonlyArray<string>,
  env: Record<string, string | undefined>
): LeanRunArgs | undefined => {
  const args = readLean<RunFlags["strings"][number], RunFlags["booleans"][number], never, RunFlags["repeated"][number]>(
    RUN,
    argv,
    env
  )
  if (args === undefined || args.positionals.length === 0 || args.positionals.length > 2) return undefined
  const { strings, booleans, verbosity } = args
  const [file, prompt] = args.positionals
  return { file: file!, prompt, input: args.repeated.input ?? [], strings, booleans, verbosity }
}

const EVAL = {
  command: "eval",
  strings: ["output", "record", "replay", "trace-dir", "shard", "baseline", "save-baseline", "format"],
  booleans: ["show-usage", "dry-run", "strict-replay", "trace-spans", "trace-content", "fail-on-regression"],
  integers: ["repeat", "jobs"],
  decimals: ["min-pass-rate", "max-cost", "significance"],
  short: { "-o": "output", "-j": "jobs" }
} as const

const FORMATS = ["text", "json", "junit", "html"] as const

type EvalFlags = typeof EVAL
type EvalNumber = EvalFlags["integers"][number] | EvalFlags["decimals"][number]

type EvalArgs = LeanArgs<Exclude<EvalFlags["strings"][number], "format">, EvalFlags["booleans"][number], EvalNumber>

/** `lait eval`'s flags, as src/cli/eval.ts declares them, and the global ones. */
export interface LeanEvalArgs extends Pick<EvalArgs, "strings" | "numbers" | "booleans" | "verbosity"> {
  readonly file: string
  readonly format: (typeof FORMATS)[number] | undefined
}

/** The command line read as a plain `lait eval FILE`, or undefined when effect/cli must read it. */
export const leanEvalArgs = (
  argv: ReadonlyArray<string>,
  env: Record<string, string | undefined>
): LeanEvalArgs | undefined => {
  const args = readLean<EvalFlags["strings"][number], EvalFlags["booleans"][number], EvalNumber, never>(EVAL, argv, env)
  // `merge` is the subcommand's name wherever it stands; effect/cli decides what it means.
  if (args === undefined || args.positionals.length !== 1 || args.positionals[0] === "merge") return undefined
  const { format, ...strings } = args.strings
  if (format !== undefined && !among(FORMATS, format)) return undefined
  const { numbers, booleans, verbosity } = args
  return { file: args.positionals[0]!, format, strings, numbers, booleans, verbosity }
}
