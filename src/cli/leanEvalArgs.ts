// The lean `lait eval` path's reading of the command line: `lait eval FILE [FLAGS]` written in the
// plainest forms only, as src/cli/leanArgs.ts does for `lait run`. Anything else — help, `merge`,
// `--`, an unknown flag, a flag given twice, a value that starts with '-' or a number not written as
// plain digits, a short-flag cluster other than -v..., live OTLP export — is undefined and goes
// through effect/cli as before (src/cli/app.ts), which also reports every mistake. What this accepts,
// effect/cli parses to the same values (test/e2e/lean-eval.test.ts runs a table of command lines
// through both). No imports: src/main.ts reads it before loading anything.

const STRING_FLAGS = [
  "output", "record", "replay", "trace-dir", "shard", "baseline", "save-baseline", "config"
] as const
/** Written as plain digits, read by effect/cli as an integer. */
const INT_FLAGS = ["repeat", "jobs"] as const
/** Written as plain decimals, read by effect/cli as a finite number. */
const NUMBER_FLAGS = ["min-pass-rate", "max-cost", "significance"] as const
const BOOLEAN_FLAGS = [
  "show-usage", "dry-run", "strict-replay", "trace-spans", "trace-content", "fail-on-regression",
  "no-config", "no-env", "cache", "no-cache"
] as const
const FORMATS = ["text", "json", "junit", "html"] as const

type LeanEvalStringFlag = (typeof STRING_FLAGS)[number]
type LeanEvalNumberFlag = (typeof INT_FLAGS)[number] | (typeof NUMBER_FLAGS)[number]
type LeanEvalBooleanFlag = (typeof BOOLEAN_FLAGS)[number]

/** `lait eval`'s flags, as src/cli/eval.ts declares them, and the global ones. */
export interface LeanEvalArgs {
  readonly file: string
  readonly format: (typeof FORMATS)[number] | undefined
  readonly strings: Readonly<Partial<Record<LeanEvalStringFlag, string>>>
  readonly numbers: Readonly<Partial<Record<LeanEvalNumberFlag, number>>>
  readonly booleans: ReadonlySet<LeanEvalBooleanFlag>
  readonly verbosity: number
}

const among = <A extends string>(list: ReadonlyArray<A>, name: string): name is A =>
  (list as ReadonlyArray<string>).includes(name)
const SHORT: Record<string, string> = { "-o": "output", "-j": "jobs" }

/** The command line read as a plain `lait eval FILE`, or undefined when effect/cli must read it. */
export const leanEvalArgs = (
  argv: ReadonlyArray<string>,
  env: Record<string, string | undefined>
): LeanEvalArgs | undefined => {
  if (argv[0] !== "eval") return undefined
  // Live export wraps the command in its own spans; keep it on the path it was built and tested on.
  if (["OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"].some((n) => (env[n] ?? "").trim() !== "")) {
    return undefined
  }
  const positionals: Array<string> = []
  const strings: Partial<Record<LeanEvalStringFlag, string>> = {}
  const numbers: Partial<Record<LeanEvalNumberFlag, number>> = {}
  const booleans = new Set<LeanEvalBooleanFlag>()
  let format: LeanEvalArgs["format"]
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
    const name = SHORT[arg] ?? (arg.startsWith("--") ? arg.slice(2, eq === -1 ? undefined : eq) : undefined)
    if (name === undefined) return undefined
    if (among(BOOLEAN_FLAGS, name)) {
      if (eq !== -1 || booleans.has(name)) return undefined
      booleans.add(name)
      continue
    }
    const value = eq === -1 ? argv[++i] : arg.slice(eq + 1)
    if (value === undefined || value === "" || value.startsWith("-")) return undefined
    if (name === "format") {
      if (format !== undefined || !among(FORMATS, value)) return undefined
      format = value
    } else if (among(STRING_FLAGS, name)) {
      if (strings[name] !== undefined) return undefined
      strings[name] = value
    } else if (among(INT_FLAGS, name) || among(NUMBER_FLAGS, name)) {
      const plain = among(INT_FLAGS, name) ? /^(0|[1-9]\d{0,8})$/ : /^(0|[1-9]\d{0,8})(\.\d{1,9})?$/
      if (numbers[name] !== undefined || !plain.test(value)) return undefined
      numbers[name] = Number(value)
    } else {
      return undefined
    }
  }
  // `merge` is the subcommand's name wherever it stands; effect/cli decides what it means.
  if (positionals.length !== 1 || positionals[0] === "merge") return undefined
  if (booleans.has("cache") && booleans.has("no-cache")) return undefined
  if (booleans.has("no-config") && strings.config !== undefined) return undefined
  return { file: positionals[0]!, format, strings, numbers, booleans, verbosity }
}
