// `lait proxy`: an OpenAI-compatible endpoint for apps not written as lait workflows (docs/apps.md).
// Its requests go through the ModelClient stack `lait run` builds from the same flags (src/cli/
// modelLayers.ts), so cassettes, the cache, keys, fallbacks and retries are lait's; each request is
// a run context of its own (usage, trace) and one `chat` event in --trace-file.
import { Console, Effect, Exit, Option } from "effect"
import { Command } from "effect/cli"
import { LaitConfig } from "../config/LaitConfig.ts"
import { traceWritten } from "../core/tracing.ts"
import { ArgumentError } from "../core/usageErrors.ts"
import { RecordHint } from "../model/recordHint.ts"
import { makeRunUsage, RunUsage } from "../model/RunUsage.ts"
import { configSecrets } from "../trace/content.ts"
import { liveExportLayer } from "../trace/live/layer.ts"
import { RunTracer } from "../trace/RunTracer.ts"
import { configLayer } from "./config.ts"
import { valueFlag } from "./flags/make.ts"
import { recordFlags, recordMissingFlag, strictReplayFlag } from "./flags/record.ts"
import { traceFileFlag } from "./flags/trace.ts"
import { modelClientLayer } from "./modelLayers.ts"
import { proxyRecordHint } from "./recordHints.ts"

const optional = <A>(option: Option.Option<A>) => Option.getOrUndefined(option)

export const proxyCommand = Command.make(
  "proxy",
  {
    listen: valueFlag("listen", "HOST:PORT", "Listen here (a loopback address; default 127.0.0.1:0, a free port)"),
    ...recordFlags({
      record: "Save every request's answer as a cassette <DIR>/<key>.json, as `lait run --record` would",
      replay: "Answer only from cassettes in DIR (HTTP 404 'lait_replay_miss' otherwise); never touch the network"
    }),
    recordMissing: recordMissingFlag,
    strictReplay: strictReplayFlag(),
    traceFile: traceFileFlag("Write each request as a `chat` event to PATH, as JSONL, as it is answered"),
    model: valueFlag("model", "ALIAS", "Answer a request whose `model` is no config alias with this one's endpoints")
  },
  Effect.fn("cli.proxy")(function*(flags) {
    const [{ parseHttpAddress, isLoopbackHost }, { listenProxy }, { makeServeTrace }] = yield* Effect.promise(() =>
      Promise.all([import("../platform/httpAccess.ts"), import("../proxy/server.ts"), import("../serve/trace.ts")])
    )
    const given = optional(flags.listen) ?? "127.0.0.1:0"
    const address = parseHttpAddress(given)
    // The proxy answers with lait's keys and no token of its own: it is for the apps of this machine.
    if (address === undefined || !isLoopbackHost(address.host)) {
      const expected = "a loopback HOST:PORT (127.0.0.1, [::1] or localhost) or PORT"
      return yield* new ArgumentError({ reason: { _tag: "InvalidValue", flag: "--listen", value: given, expected } })
    }
    const tracePath = optional(flags.traceFile)
    if (tracePath !== undefined) {
      const { checkTraceTarget } = yield* Effect.promise(() => import("../trace/file.ts"))
      yield* checkTraceTarget(tracePath)
    }
    const config = yield* LaitConfig
    const trace = yield* makeServeTrace(tracePath, configSecrets(config.config, config.env))
    yield* Effect.scoped(Effect.gen(function*() {
      const { url } = yield* listenProxy(
        { address, model: optional(flags.model), label: "lait proxy" },
        // Each request has usage of its own; a run tracer only where its events are written.
        (answer) =>
          tracePath === undefined
            ? Effect.provideService(answer, RunUsage, makeRunUsage())
            : Effect.gen(function*() {
              const tracer = yield* RunTracer
              return yield* answer.pipe(
                Effect.onExit((exit) =>
                  Effect.flatMap(tracer.all, (recorded) =>
                    trace.add(undefined, recorded, Exit.isSuccess(exit) ? "succeeded" : "interrupted"))
                )
              )
            }).pipe(Effect.provide([RunUsage.layer, RunTracer.layer], { local: true }))
      )
      yield* Console.error(`lait proxy: listening on ${url}`)
      return yield* Effect.never
    })).pipe(Effect.provideService(RecordHint, proxyRecordHint), traceWritten(tracePath !== undefined))
  })
).pipe(
  Command.withDescription("Serve an OpenAI-compatible endpoint that answers through lait (record, replay, cache)"),
  Command.provide((flags) =>
    modelClientLayer({
      record: optional(flags.record),
      replay: optional(flags.replay),
      recordMissing: optional(flags.recordMissing),
      strictReplay: flags.strictReplay
    })
  ),
  Command.provide(configLayer({ waitForWriter: true })),
  Command.provide(liveExportLayer)
)
