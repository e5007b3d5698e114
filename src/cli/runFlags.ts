// The flags of a command that runs model requests and prints one result (`lait run`, `lait agent run`),
// and the services they choose, provided around its handler.
import { Command, Flag } from "effect/cli"
import { switchFlag } from "./flags/make.ts"
import { contentJsonFlag, outputFlag, showUsageFlag } from "./flags/output.ts"
import { recordFlags, recordMissingFlag, replayToolsFlag, runRecordHelp, strictReplayFlag } from "./flags/record.ts"
import { traceContentFlag, traceFileFlag } from "./flags/trace.ts"
import { noHistoryFlag } from "./history.ts"
import { type RunServiceFlags, runServiceLayers } from "./runServices.ts"
import { liveExportLayer } from "../trace/live/layer.ts"

export const runFlags = {
  output: outputFlag("result"),
  json: contentJsonFlag("result"),
  ...recordFlags(runRecordHelp),
  strictReplay: strictReplayFlag(),
  replayTools: replayToolsFlag(
    "With --replay: answer tool calls from its tool cassettes too; no tool or MCP server runs"
  ),
  recordMissing: recordMissingFlag,
  traceFile: traceFileFlag(
    "After the run (failed or interrupted too), write every model request and tool call to PATH as JSONL"
  ),
  traceContent: traceContentFlag(
    "Also write prompts, answers, tool arguments and results, secrets masked (overrides default.trace_content)"
  ),
  showUsage: showUsageFlag(),
  approveTools: switchFlag("approve-tools", "Ask on the terminal (y/n/a) before every tool call the model makes"),
  noHistory: noHistoryFlag,
  header: Flag.String("header").pipe(
    Flag.withMetavar("NAME: VALUE"),
    Flag.withDescription("Send this HTTP header to the primary endpoint of every model (repeatable)"),
    Flag.atLeast(0)
  )
}

/** The services a command taking `runFlags` runs with (src/cli/runServices.ts), around its handler. */
export const withRunServices = <const Name extends string, Input extends RunServiceFlags, ContextInput, E, R>(
  command: Command.Command<Name, Input, ContextInput, E, R>
) =>
  command.pipe(
    Command.provide((input: Input) => runServiceLayers(input).model),
    Command.provide((input: Input) => runServiceLayers(input).tools),
    Command.provide((input: Input) => runServiceLayers(input).config),
    Command.provide(liveExportLayer)
  )

