// `lait serve --mcp`: flags, the model and tool-cassette layers every served call uses, then the
// server itself (src/serve/), loaded on demand so the MCP SDK stays out of every other command.
import { Effect, Option } from "effect"
import { Command, Flag } from "effect/cli"
import { LaitConfig } from "../config/LaitConfig.ts"
import { traceWritten } from "../core/tracing.ts"
import { ArgumentError } from "../core/usageErrors.ts"
import { RecordHint } from "../model/recordHint.ts"
import { liveExportLayer } from "../trace/live/layer.ts"
import { VERSION } from "../version.ts"
import { configLayer } from "./config.ts"
import { bareSwitchFlag, repeatedFlag, valueFlag } from "./flags/make.ts"
import { recordFlags } from "./flags/record.ts"
import { traceFileFlag } from "./flags/trace.ts"
import { modelClientLayer } from "./modelLayers.ts"
import { serveRecordHint } from "./recordHints.ts"
import { toolCassettesLayer } from "./toolLayers.ts"

const DEFAULTS = { maxSessions: 100, sessionIdleTimeout: 3600, bodyTimeout: 30, maxCalls: 16 }
/** Upper bounds: beyond them a limit protects nothing (and a timer of over 2^31 ms would fire at once). */
const MAXIMA = { maxSessions: 100_000, sessionIdleTimeout: 7 * 24 * 3600, bodyTimeout: 3600, maxCalls: 10_000 }

const limitFlag = (name: string, metavar: string, description: string) =>
  Flag.Int(name).pipe(Flag.withMetavar(metavar), Flag.withDescription(description), Flag.optional)

/** A limit's value: the flag's (from 1 to its maximum) or the default. */
const limit = (flag: string, given: Option.Option<number>, key: keyof typeof DEFAULTS) =>
  Option.match(given, {
    onNone: () => Effect.succeed(DEFAULTS[key]),
    onSome: (value) =>
      value >= 1 && value <= MAXIMA[key]
        ? Effect.succeed(value)
        : Effect.fail(
          new ArgumentError({
            reason: { _tag: "InvalidValue", flag, value: String(value), expected: `1 to ${MAXIMA[key]}` }
          })
        )
  })

interface HttpFlags {
  readonly http: Option.Option<string>
  readonly allowedHost: ReadonlyArray<string>
  readonly allowOrigin: ReadonlyArray<string>
  readonly token: Option.Option<string>
  readonly maxSessions: Option.Option<number>
  readonly sessionIdleTimeout: Option.Option<number>
  readonly bodyTimeout: Option.Option<number>
}

/**
 * `--http` and the flags only it reads, checked: a non-loopback address needs a token (the flag's, else
 * LAIT_SERVE_TOKEN from the environment or `.env`), so the tools are never open to whoever reaches it.
 */
const httpOptions = Effect.fn("cli.serve.http")(function*(flags: HttpFlags) {
  const { isLoopbackHost, normalizeOrigin, parseHttpAddress } = yield* Effect.promise(() =>
    import("../platform/httpAccess.ts")
  )
  const given = Option.getOrUndefined(flags.http)
  if (given === undefined) {
    const httpOnly: ReadonlyArray<readonly [string, boolean]> = [
      ["--allowed-host <HOST>", flags.allowedHost.length > 0],
      ["--allow-origin <ORIGIN>", flags.allowOrigin.length > 0],
      ["--token <TOKEN>", Option.isSome(flags.token)],
      ["--max-sessions <N>", Option.isSome(flags.maxSessions)],
      ["--session-idle-timeout <SECONDS>", Option.isSome(flags.sessionIdleTimeout)],
      ["--body-timeout <SECONDS>", Option.isSome(flags.bodyTimeout)]
    ]
    const used = httpOnly.find(([, set]) => set)
    if (used !== undefined) {
      return yield* new ArgumentError({ reason: { _tag: "Requires", flag: used[0], needs: "--http <ADDR>" } })
    }
    return undefined
  }
  const address = parseHttpAddress(given)
  if (address === undefined) {
    const expected = "HOST:PORT, [IPv6]:PORT or PORT"
    return yield* new ArgumentError({ reason: { _tag: "InvalidValue", flag: "--http <ADDR>", value: given, expected } })
  }
  const allowedOrigins: Array<string> = []
  for (const origin of flags.allowOrigin) {
    const normal = normalizeOrigin(origin)
    if (normal === undefined) {
      const expected = "scheme://host[:port]"
      return yield* new ArgumentError({
        reason: { _tag: "InvalidValue", flag: "--allow-origin <ORIGIN>", value: origin, expected }
      })
    }
    allowedOrigins.push(normal)
  }
  // The token's value never appears in a message: it is a credential.
  const { ServeError } = yield* Effect.promise(() => import("../serve/serveErrors.ts"))
  const flagToken = Option.getOrUndefined(flags.token)
  const envToken = (yield* LaitConfig).env["LAIT_SERVE_TOKEN"]
  const token = flagToken ?? (envToken === "" ? undefined : envToken)
  if (token !== undefined && !/^[\x21-\x7e]+$/.test(token)) {
    const source = flagToken === undefined ? "LAIT_SERVE_TOKEN" : "--token <TOKEN>"
    return yield* new ServeError({ reason: { _tag: "TokenInvalid", source } })
  }
  if (token === undefined && !isLoopbackHost(address.host)) {
    return yield* new ServeError({ reason: { _tag: "TokenRequired", address: given } })
  }
  return {
    address,
    allowedHosts: flags.allowedHost,
    allowedOrigins,
    token,
    limits: {
      maxSessions: yield* limit("--max-sessions <N>", flags.maxSessions, "maxSessions"),
      sessionIdleMs: 1000 *
        (yield* limit("--session-idle-timeout <SECONDS>", flags.sessionIdleTimeout, "sessionIdleTimeout")),
      bodyTimeoutMs: 1000 * (yield* limit("--body-timeout <SECONDS>", flags.bodyTimeout, "bodyTimeout"))
    }
  }
})

export const serveCommand = Command.make(
  "serve",
  {
    mcp: bareSwitchFlag("mcp", "Serve the config's 'workflows:' and 'agents:' as MCP tools (over stdio by default)"),
    http: valueFlag(
      "http",
      "ADDR",
      "Serve streamable HTTP at http://ADDR/mcp instead of stdio (HOST:PORT, or PORT on 127.0.0.1; port 0 picks one)"
    ),
    allowedHost: repeatedFlag(
      "allowed-host",
      "HOST",
      "With --http: also accept this Host header (HOST or HOST:PORT; repeatable); " +
        "localhost, 127.0.0.1 and [::1] always are"
    ),
    allowOrigin: repeatedFlag(
      "allow-origin",
      "ORIGIN",
      "With --http: also accept requests whose Origin header is ORIGIN (scheme://host[:port]; repeatable)"
    ),
    token: valueFlag(
      "token",
      "TOKEN",
      "With --http: require 'Authorization: Bearer TOKEN' on every request (default: $LAIT_SERVE_TOKEN); " +
        "needed on a non-loopback address"
    ),
    maxSessions: limitFlag("max-sessions", "N", `With --http: open sessions at most (default ${DEFAULTS.maxSessions})`),
    sessionIdleTimeout: limitFlag(
      "session-idle-timeout",
      "SECONDS",
      `With --http: close a session idle this long (default ${DEFAULTS.sessionIdleTimeout})`
    ),
    bodyTimeout: limitFlag(
      "body-timeout",
      "SECONDS",
      `With --http: how long a request body may take to arrive (default ${DEFAULTS.bodyTimeout})`
    ),
    maxCalls: limitFlag("max-calls", "N", `Tool calls running at once at most (default ${DEFAULTS.maxCalls})`),
    ...recordFlags({
      record: "Save every model request/response of the served calls as a cassette in DIR",
      replay: "Answer the served calls' model requests only from cassettes in DIR; never touch the network"
    }),
    traceFile: traceFileFlag("Append each tool call's model requests and tool calls to PATH, as JSONL")
  },
  Effect.fn("cli.serve")(function*(flags) {
    if (!flags.mcp) {
      const { ServeError } = yield* Effect.promise(() => import("../serve/serveErrors.ts"))
      return yield* new ServeError({ reason: { _tag: "McpRequired" } })
    }
    const { serveMcp } = yield* Effect.promise(() => import("../serve/server.ts"))
    const tracePath = Option.getOrUndefined(flags.traceFile)
    if (tracePath !== undefined) {
      const { checkTraceTarget } = yield* Effect.promise(() => import("../trace/file.ts"))
      yield* checkTraceTarget(tracePath)
    }
    const maxCalls = yield* limit("--max-calls <N>", flags.maxCalls, "maxCalls")
    yield* serveMcp({ version: VERSION, http: yield* httpOptions(flags), maxCalls, tracePath }).pipe(
      Effect.provideService(RecordHint, serveRecordHint),
      traceWritten(tracePath !== undefined)
    )
  })
).pipe(
  Command.withDescription("Serve the configured workflows and agents as MCP tools (stdio, or HTTP with --http)"),
  Command.provide(({ record, replay }) =>
    modelClientLayer({ record: Option.getOrUndefined(record), replay: Option.getOrUndefined(replay) })
  ),
  Command.provide(({ record, replay }) =>
    toolCassettesLayer({ record: Option.getOrUndefined(record), replay: Option.getOrUndefined(replay) })
  ),
  Command.provide(configLayer({ waitForWriter: true })),
  // Outermost, as for `lait run`: OTEL_* is read before .env is loaded, and flushed last.
  Command.provide(liveExportLayer)
)
