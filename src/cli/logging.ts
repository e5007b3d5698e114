// Diagnostics go to stderr only. `-v` = Debug, `-vv` = Trace (full request/response JSON);
// LAIT_LOG (EnvFilter-like: `debug`, `lait=trace`, `warn,lait=debug`, `off`) overrides both.
import { Effect, Layer, Logger, LogLevel, References } from "effect"
import { writeStderr } from "../platform/stdStreams.ts"

const levels: Record<string, LogLevel.LogLevel> = {
  off: "None",
  none: "None",
  error: "Error",
  warn: "Warn",
  warning: "Warn",
  info: "Info",
  debug: "Debug",
  trace: "Trace"
}

/** The level named by LAIT_LOG for lait (a `lait=` directive wins over a bare level), if any. */
export const levelFromEnvFilter = (filter: string | undefined): LogLevel.LogLevel | undefined => {
  if (filter === undefined || filter.trim() === "") return undefined
  let bare: LogLevel.LogLevel | undefined
  let own: LogLevel.LogLevel | undefined
  for (const raw of filter.split(",")) {
    const directive = raw.trim().toLowerCase()
    const eq = directive.indexOf("=")
    if (eq === -1) {
      bare = levels[directive] ?? bare
    } else if (directive.slice(0, eq).split("::")[0] === "lait") {
      own = levels[directive.slice(eq + 1)] ?? own
    }
  }
  return own ?? bare
}

export const levelFor = (verbosity: number, envFilter: string | undefined): LogLevel.LogLevel =>
  levelFromEnvFilter(envFilter) ?? (verbosity >= 2 ? "Trace" : verbosity === 1 ? "Debug" : "Warn")

const render = (message: unknown): string => {
  const parts = Array.isArray(message) ? message : [message]
  return parts.map((p) => (typeof p === "string" ? p : JSON.stringify(p))).join(" ")
}

const stderrLogger = Logger.make(({ logLevel, message }) => {
  writeStderr(`lait: [${logLevel.toLowerCase()}] ${render(message)}\n`)
})

export const loggingLayer = (level: LogLevel.LogLevel) =>
  Layer.mergeAll(Logger.layer([stderrLogger]), Layer.succeed(References.MinimumLogLevel, level))

/** What `loggingLayer` provides, as plain services (no layer to build: the lean run path). */
export const withLogging = (level: LogLevel.LogLevel) => <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  effect.pipe(
    Effect.provideService(References.CurrentLoggers, new Set([stderrLogger])),
    Effect.provideService(References.MinimumLogLevel, level)
  )

/**
 * Counts -v the way the CLI lexer does (`-vv` = 2, `--verbose` = 1), up to a literal `--`. Needed
 * before parsing so logging is configured for everything that happens during the run.
 */
export const countVerbosity = (argv: ReadonlyArray<string>): number => {
  let count = 0
  for (const arg of argv) {
    if (arg === "--") break
    if (arg === "--verbose") count++
    else if (/^-[A-Za-z]+$/.test(arg)) count += [...arg.slice(1)].filter((c) => c === "v").length
  }
  return count
}
