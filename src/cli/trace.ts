// `lait trace show FILE` and `lait trace export FILE --otlp URL`: read a `--trace-file` JSONL log back.
// Neither loads lait.config.yml. `show` is local and synchronous (a FIFO without a writer fails at
// once); `export` waits for one, loads `.env` for `${VAR}` in `--header` values, and can be Ctrl-C'd.
import { Console, Duration, Effect, Option } from "effect"
import { Argument, CliError, Command, Flag } from "effect/cli"
import { repeatedFlag, switchFlag, valueFlag } from "./flags/make.ts"
import { ArgumentError } from "../core/usageErrors.ts"
import { globalOptions } from "./global.ts"
import { processEnv } from "../config/environment.ts"
import { printLine } from "./output.ts"

const fileArgument = Argument.String("file").pipe(
  Argument.withDescription("A JSONL trace file written by `lait run --trace-file`")
)

const filesArgument = Argument.String("file").pipe(
  Argument.withDescription("Trace files written by `lait run --trace-file`, or directories of them (every *.jsonl)"),
  Argument.atLeast(1)
)

const OPERATIONS = ["chat", "execute_tool", "compact", "step", "invoke_workflow"] as const

const show = Command.make(
  "show",
  {
    files: filesArgument,
    json: switchFlag("json", "Print the events (or, with --summary, the totals) as a JSON array"),
    // A misspelt operation would otherwise match nothing and look like an empty trace.
    operation: Flag.Literals("operation", OPERATIONS).pipe(
      Flag.withDescription(
        "Only events of this operation (step and invoke_workflow are in files written with --trace-spans)"
      ),
      Flag.optional
    ),
    label: valueFlag("label", "TEXT", "Only events whose label contains TEXT (a step id, a tool name, ...)"),
    summary: switchFlag("summary", "Per-label counts, total duration and tokens, after --operation/--label"),
    tree: switchFlag(
      "tree",
      "Indent each event under its parent span, in start order (files written with --trace-spans)"
    ),
    content: switchFlag("content", "Print prompts, answers and tool results (--trace-content) whole, not as excerpts")
  },
  Effect.fn("cli.trace.show")(function*({ files, json, operation, label, summary, tree, content }) {
    for (const [given, other] of [[json, "--json"], [summary, "--summary"]] as const) {
      if (tree && given) {
        return yield* new ArgumentError({ reason: { _tag: "Conflict", flag: "--tree", other } })
      }
    }
    const [{ hasSpanTree, readTraceFile, traceFilesIn }, { renderShow, renderShowFiles }] = yield* Effect.promise(() =>
      Promise.all([import("../trace/file.ts"), import("../trace/show.ts")])
    )
    const options = {
      json,
      summary,
      tree,
      content,
      operation: Option.getOrUndefined(operation),
      label: Option.getOrUndefined(label)
    }
    const paths = yield* traceFilesIn(files)
    const traces = yield* Effect.forEach(paths, (path) =>
      Effect.map(readTraceFile(path, { waitForWriter: false }), ({ events }) => ({ path, events })))
    // One file named on its own prints exactly what it always did.
    const single = paths.length === 1 && paths[0] === files[0]
    yield* printLine(single ? renderShow(traces[0]!.events, options) : renderShowFiles(traces, options))
    if (tree) {
      // Not an error: the events are all there, only without parents, so they print flat.
      for (const { path, events } of traces) {
        if (events.length > 0 && !hasSpanTree(events)) {
          yield* Console.error(
            `note: '${path}' has no spans, so --tree prints its events flat; record the run with --trace-spans ` +
              "(or default.trace_spans: true) to see the tree"
          )
        }
      }
    }
  })
).pipe(
  Command.withDescription("Print a trace file's events in recording order (or per-label totals)")
)

const exportCommand = Command.make(
  "export",
  {
    file: fileArgument,
    otlp: valueFlag(
      "otlp",
      "URL",
      "The OTLP/HTTP traces endpoint to POST to, used as given (e.g. http://localhost:4318/v1/traces); " +
        "without it, OTEL_EXPORTER_OTLP_ENDPOINT and the other OTEL_* variables"
    ),
    header: repeatedFlag(
      "header",
      "NAME=VALUE",
      "An extra request header (repeatable); VALUE may use ${VAR} so secrets stay off the command line"
    ),
    serviceName: valueFlag(
      "service-name",
      "NAME",
      "The service.name resource attribute (default: OTEL_SERVICE_NAME without --otlp, else lait)"
    )
  },
  Effect.fn("cli.trace.export")(function*({ file, otlp, header, serviceName }) {
    const [{ exportTrace }, { loadDotenv }, { liveExportSettings }] = yield* Effect.promise(() =>
      Promise.all([import("../trace/export.ts"), import("../config/dotenv.ts"), import("../trace/live/env.ts")])
    )
    // As live export: the process environment, not .env, names the collector.
    const fromEnv = Option.isNone(otlp) ? liveExportSettings(processEnv()) : undefined
    if (Option.isNone(otlp) && fromEnv === undefined) {
      const missing = new CliError.MissingOption({ option: "otlp" })
      yield* Console.error(`lait: ${missing.message} (see 'lait trace export --help')`)
      return yield* missing
    }
    for (const problem of fromEnv?.problems ?? []) yield* Console.error(`warning: ${problem}`)
    const flags = yield* globalOptions
    const env = { ...processEnv() }
    if (!flags.noEnv) yield* loadDotenv({ cwd: process.cwd(), env, waitForWriter: true })
    yield* exportTrace({
      file,
      url: Option.getOrUndefined(otlp) ?? fromEnv!.url,
      headers: header,
      serviceName: Option.getOrUndefined(serviceName) ?? fromEnv?.serviceName ?? "lait",
      env,
      ...(fromEnv !== undefined
        ? {
          envHeaders: fromEnv.headers,
          resourceAttributes: fromEnv.resourceAttributes,
          timeout: Duration.millis(fromEnv.requestTimeoutMs)
        }
        : {})
    })
  })
).pipe(
  Command.withDescription("Send a trace file to an OpenTelemetry collector as OTLP/HTTP JSON spans")
)

export const traceCommand = Command.make("trace").pipe(
  Command.withDescription("Inspect or export a `lait run --trace-file` trace"),
  Command.withSubcommands([show, exportCommand])
)
