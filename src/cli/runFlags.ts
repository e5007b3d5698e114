// The flags of a command that runs model requests and prints one result (`lait run`, `lait agent run`),
// and the services they choose, provided around its handler.
import { Command, Flag } from "effect/cli"
import { configLayer } from "./configLayer.ts"
import { noHistoryFlag } from "./history.ts"
import { type RunServiceFlags, runServiceLayers } from "./runServices.ts"
import { liveExportLayer } from "../trace/live/layer.ts"

export const runFlags = {
  output: Flag.String("output").pipe(
    Flag.withAlias("o"),
    Flag.withMetavar("PATH"),
    Flag.withDescription("Write the result to PATH instead of stdout ('-' is stdout)"),
    Flag.optional
  ),
  json: Flag.Boolean("json").pipe(
    Flag.withDescription("Print {\"content\",\"reasoning\",\"usage\"} instead of the bare result"),
    Flag.withDefault(false)
  ),
  record: Flag.String("record").pipe(
    Flag.withMetavar("DIR"),
    Flag.withDescription("Save every model request/response as a cassette <DIR>/<key>.json"),
    Flag.optional
  ),
  replay: Flag.String("replay").pipe(
    Flag.withMetavar("DIR"),
    Flag.withDescription("Answer model requests only from cassettes in DIR; never touch the network"),
    Flag.optional
  ),
  strictReplay: Flag.Boolean("strict-replay").pipe(
    Flag.withDescription("With --replay, answer only from a cassette with the exact key (no other base URL's)"),
    Flag.withDefault(false)
  ),
  replayTools: Flag.Boolean("replay-tools").pipe(
    Flag.withDescription("With --replay: answer tool calls from its tool cassettes too; no tool or MCP server runs"),
    Flag.withDefault(false)
  ),
  recordMissing: Flag.String("record-missing").pipe(
    Flag.withMetavar("DIR"),
    Flag.withDescription("Replay the requests that have a cassette in DIR; send and record the others"),
    Flag.optional
  ),
  traceFile: Flag.String("trace-file").pipe(
    Flag.withMetavar("PATH"),
    Flag.withDescription(
      "After the run (failed or interrupted too), write every model request and tool call to PATH as JSONL"
    ),
    Flag.optional
  ),
  traceContent: Flag.Boolean("trace-content").pipe(
    Flag.withDescription(
      "Also write prompts, answers, tool arguments and results, secrets masked (overrides default.trace_content)"
    ),
    Flag.optional
  ),
  showUsage: Flag.Boolean("show-usage").pipe(
    Flag.withDescription("Print token usage (and cost, with pricing:) to stderr"),
    Flag.withDefault(false)
  ),
  approveTools: Flag.Boolean("approve-tools").pipe(
    Flag.withDescription("Ask on the terminal (y/n/a) before every tool call the model makes"),
    Flag.withDefault(false)
  ),
  noHistory: noHistoryFlag
}

/** The services a command taking `runFlags` runs with (src/cli/runServices.ts), around its handler. */
export const withRunServices = <const Name extends string, Input extends RunServiceFlags, ContextInput, E, R>(
  command: Command.Command<Name, Input, ContextInput, E, R>
) =>
  command.pipe(
    Command.provide((input: Input) => runServiceLayers(input).model),
    Command.provide((input: Input) => runServiceLayers(input).tools),
    Command.provide(configLayer({ waitForWriter: true })),
    Command.provide(liveExportLayer)
  )

