// The lean `lait run` path's reading of the command line: `lait run FILE [PROMPT] [FLAGS]` written
// in the plainest forms only. Anything else — help, the version, completions, `--`, an unknown or
// negated flag, a flag given twice that is not repeatable, a value that starts with '-', `--approve-tools`
// (its terminal prompt is effect/cli's), a short-flag cluster other than -v..., live OTLP export —
// is undefined and goes through effect/cli as before (src/cli/app.ts), which also reports every
// mistake. What this accepts, effect/cli parses to the same values (test/cli/lean-run.test.ts runs a
// table of command lines through both). No imports: src/main.ts reads it before loading anything.

/** `lait run`'s flags, as src/cli/run.ts declares them. */
export interface LeanRunArgs {
  readonly file: string
  readonly prompt: string | undefined
  readonly input: ReadonlyArray<string>
  readonly strings: Readonly<Partial<Record<LeanStringFlag, string>>>
  readonly booleans: ReadonlySet<LeanBooleanFlag>
  readonly verbosity: number
}

const STRING_FLAGS = ["output", "record", "replay", "record-missing", "trace-file", "resume", "config"] as const
type LeanStringFlag = (typeof STRING_FLAGS)[number]
const BOOLEAN_FLAGS = [
  "json", "strict-replay", "replay-tools", "show-usage", "no-history", "dry-run", "checkpoint",
  "trace-content", "trace-spans", "no-config", "no-env", "cache", "no-cache"
] as const
type LeanBooleanFlag = (typeof BOOLEAN_FLAGS)[number]

const isString = (name: string): name is LeanStringFlag => (STRING_FLAGS as ReadonlyArray<string>).includes(name)
const isBoolean = (name: string): name is LeanBooleanFlag => (BOOLEAN_FLAGS as ReadonlyArray<string>).includes(name)
const plainValue = (value: string | undefined): value is string =>
  value !== undefined && value !== "" && !value.startsWith("-")

/** The command line read as a plain `lait run`, or undefined when effect/cli must read it. */
export const leanRunArgs = (
  argv: ReadonlyArray<string>,
  env: Record<string, string | undefined>
): LeanRunArgs | undefined => {
  if (argv[0] !== "run") return undefined
  // Live export wraps the run in its own spans; keep it on the path it was built and tested on.
  if (["OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"].some((n) => (env[n] ?? "").trim() !== "")) {
    return undefined
  }
  const positionals: Array<string> = []
  const input: Array<string> = []
  const strings: Partial<Record<LeanStringFlag, string>> = {}
  const booleans = new Set<LeanBooleanFlag>()
  let verbosity = 0
  for (let i = 1; i < argv.length; i++) {
    const arg = argv[i]!
    if (arg === "--verbose") {
      verbosity++
    } else if (/^-v+$/.test(arg)) {
      verbosity += arg.length - 1
    } else if (arg.startsWith("--")) {
      const eq = arg.indexOf("=")
      const name = arg.slice(2, eq === -1 ? undefined : eq)
      if (name === "input" || isString(name)) {
        const value = eq === -1 ? argv[++i] : arg.slice(eq + 1)
        if (!plainValue(value)) return undefined
        if (name === "input") input.push(value)
        else if (strings[name] !== undefined) return undefined
        else strings[name] = value
      } else if (isBoolean(name) && eq === -1 && !booleans.has(name)) {
        booleans.add(name)
      } else {
        return undefined
      }
    } else if (arg === "-o") {
      const value = argv[++i]
      if (!plainValue(value) || strings.output !== undefined) return undefined
      strings.output = value
    } else if (arg.startsWith("-") || arg === "") {
      return undefined
    } else {
      positionals.push(arg)
    }
  }
  if (positionals.length === 0 || positionals.length > 2) return undefined
  if (booleans.has("cache") && booleans.has("no-cache")) return undefined
  if (booleans.has("no-config") && strings.config !== undefined) return undefined
  return { file: positionals[0]!, prompt: positionals[1], input, strings, booleans, verbosity }
}
