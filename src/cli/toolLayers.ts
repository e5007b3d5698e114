// The one place that turns flags into the run's ToolCassettes mode (src/tools/cassette):
//   --record DIR                  → tool results and MCP tool lists are recorded into DIR too
//   --replay DIR --replay-tools   → they are answered from DIR; no tool runs, no MCP server starts
//   otherwise                     → tools run live
import { Effect, Layer } from "effect"
import { ArgumentError } from "../core/usageErrors.ts"
import { type ToolCassetteMode, ToolCassettes } from "../tools/cassette/mode.ts"

export interface ToolModeOptions {
  readonly record?: string | undefined
  readonly replay?: string | undefined
  readonly replayTools?: boolean | undefined
}

export const toolCassettesLayer = (options: ToolModeOptions) =>
  Layer.unwrap(
    Effect.gen(function*() {
      if (options.replayTools === true && options.replay === undefined) {
        const reason = { _tag: "Requires", flag: "--replay-tools", needs: "--replay <DIR>" } as const
        return yield* new ArgumentError({ reason })
      }
      const mode: ToolCassetteMode = options.record !== undefined
        ? { mode: "record", dir: options.record }
        : options.replay !== undefined && options.replayTools === true
        ? { mode: "replay", dir: options.replay }
        : { mode: "live" }
      if (mode.mode !== "live") {
        yield* Effect.logDebug(`tools: ${mode.mode === "record" ? "recording to" : "replaying from"} '${mode.dir}'`)
      }
      return Layer.succeed(ToolCassettes, mode)
    })
  )
