// `lait serve --mcp`: flags, the model and tool-cassette layers every served call uses, then the
// server itself (src/serve/), loaded on demand so the MCP SDK stays out of every other command.
import { Effect, Option } from "effect"
import { Command, Flag } from "effect/cli"
import { ArgumentError } from "../core/usageErrors.ts"
import { RecordHint } from "../model/recordHint.ts"
import { liveExportLayer } from "../trace/live/layer.ts"
import { VERSION } from "../version.ts"
import { configLayer } from "./config.ts"
import { modelClientLayer } from "./modelLayers.ts"
import { serveRecordHint } from "./recordHints.ts"
import { toolCassettesLayer } from "./toolLayers.ts"

export const serveCommand = Command.make(
  "serve",
  {
    mcp: Flag.Boolean("mcp").pipe(
      Flag.withoutNegation,
      Flag.withDescription("Serve the config's 'workflows:' and 'agents:' as MCP tools (over stdio by default)"),
      Flag.withDefault(false)
    ),
    http: Flag.String("http").pipe(
      Flag.withMetavar("ADDR"),
      Flag.withDescription(
        "Serve streamable HTTP at http://ADDR/mcp instead of stdio (HOST:PORT, or PORT on 127.0.0.1; port 0 picks one)"
      ),
      Flag.optional
    ),
    allowedHost: Flag.String("allowed-host").pipe(
      Flag.withMetavar("HOST"),
      Flag.withDescription(
        "With --http: also accept this Host header (HOST or HOST:PORT; repeatable); " +
          "localhost, 127.0.0.1 and [::1] always are"
      ),
      Flag.atLeast(0)
    ),
    record: Flag.String("record").pipe(
      Flag.withMetavar("DIR"),
      Flag.withDescription("Save every model request/response of the served calls as a cassette in DIR"),
      Flag.optional
    ),
    replay: Flag.String("replay").pipe(
      Flag.withMetavar("DIR"),
      Flag.withDescription(
        "Answer the served calls' model requests only from cassettes in DIR; never touch the network"
      ),
      Flag.optional
    ),
    traceFile: Flag.String("trace-file").pipe(
      Flag.withMetavar("PATH"),
      Flag.withDescription("Rewrite PATH after each tool call with every model request and tool call so far, as JSONL"),
      Flag.optional
    )
  },
  Effect.fn("cli.serve")(function*({ mcp, http, allowedHost, traceFile }) {
    if (!mcp) {
      const { ServeError } = yield* Effect.promise(() => import("../serve/serveErrors.ts"))
      return yield* new ServeError({ reason: { _tag: "McpRequired" } })
    }
    const { serveMcp, parseHttpAddress } = yield* Effect.promise(() => import("../serve/server.ts"))
    const given = Option.getOrUndefined(http)
    const address = given === undefined ? undefined : parseHttpAddress(given)
    if (given !== undefined && address === undefined) {
      const expected = "HOST:PORT, [IPv6]:PORT or PORT"
      const reason = { _tag: "InvalidValue", flag: "--http <ADDR>", value: given, expected } as const
      return yield* new ArgumentError({ reason })
    }
    if (allowedHost.length > 0 && given === undefined) {
      const reason = { _tag: "Requires", flag: "--allowed-host <HOST>", needs: "--http <ADDR>" } as const
      return yield* new ArgumentError({ reason })
    }
    const tracePath = Option.getOrUndefined(traceFile)
    if (tracePath !== undefined) {
      const { checkTraceTarget } = yield* Effect.promise(() => import("../trace/file.ts"))
      yield* checkTraceTarget(tracePath)
    }
    yield* serveMcp({ version: VERSION, http: address, allowedHosts: allowedHost, tracePath }).pipe(
      Effect.provideService(RecordHint, serveRecordHint)
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
