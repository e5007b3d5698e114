// An `exec:` target (docs/apps.md#exec-targets): an app run as a child process for one input, its
// model calls answered by a proxy started for the run in this process (src/proxy/server.ts), in the
// run's own context: the run's ModelClient (replay, record), usage and trace. The child finds the
// proxy through OPENAI_BASE_URL (and OPENAI_API_BASE for older clients) and gets a placeholder key:
// lait's config holds the real ones. Its stdout is the output; a non-zero exit fails the run with the
// end of its stderr.
import { Duration, Effect } from "effect"
import { LaitConfig } from "../config/LaitConfig.ts"
import { type Json, textForm } from "../core/json.ts"
import { Attr } from "../core/tracing.ts"
import type { ModelResult } from "../model/ModelClient.ts"
import { runCommand } from "../platform/process.ts"
import type { TraceEvent } from "../trace/RunTracer.ts"
import { AppError } from "./appErrors.ts"
import type { ExecTarget } from "./execTarget.ts"
import { listenProxy } from "./server.ts"

/** What a run of an exec target gave: its output and the tool calls its model answers asked for. */
export interface ExecRun {
  readonly output: string
  readonly toolCalls: ReadonlyArray<{ readonly name: string; readonly arguments: string }>
}

/** The text an app gets for an input: text as it is, any other value as JSON. */
const inputText = (input: Json): string => (typeof input === "string" ? input : textForm(input))

/** Runs the target once for `input` in `cwd`; the caller provides the run's context. */
export const runExec = (target: ExecTarget, input: Json, cwd: string | undefined) =>
  Effect.scoped(Effect.gen(function*() {
    const toolCalls: Array<{ readonly name: string; readonly arguments: string }> = []
    const onAnswer = (result: ModelResult) => {
      for (const { function: f } of result.toolCalls) toolCalls.push({ name: f.name, arguments: f.arguments })
    }
    const name = target.argv.join(" ")
    const { url } = yield* listenProxy(
      { address: { host: "127.0.0.1", port: 0 }, model: undefined, label: `exec target '${name}'`, onAnswer },
      (answer) => answer
    )
    const { env } = yield* LaitConfig
    const text = inputText(input)
    const childEnv: Record<string, string> = {}
    for (const [key, value] of Object.entries({ ...env, ...target.env })) if (value !== undefined) childEnv[key] = value
    Object.assign(childEnv, { OPENAI_BASE_URL: url, OPENAI_API_BASE: url, OPENAI_API_KEY: "lait-proxy" })
    const output = yield* runCommand({
      argv: target.inputMode === "arg" ? [...target.argv, text] : target.argv,
      stdin: target.inputMode === "arg" ? "" : text,
      env: childEnv,
      ...(cwd === undefined ? {} : { cwd })
    }).pipe(
      Effect.mapError((cause) => new AppError({ reason: { _tag: "ExecFailed", target: name, cause } })),
      Effect.timeout(Duration.seconds(target.timeoutSeconds)),
      Effect.catchTag("TimeoutError", () =>
        Effect.fail(new AppError({ reason: { _tag: "TimedOut", target: name, seconds: target.timeoutSeconds } })))
    )
    return { output, toolCalls } satisfies ExecRun
  }))

/**
 * The trajectory events of an exec target's tool calls: the app, not lait, ran them, so what the
 * trajectory holds is each call a model answer asked for, as `tool_called` counts them.
 */
export const toolCallEvents = (run: ExecRun): ReadonlyArray<TraceEvent> =>
  run.toolCalls.map((call, i) => ({
    seq: -1 - i,
    operation: "execute_tool",
    label: call.name,
    start: "",
    end: "",
    duration_ms: 0,
    attributes: { [Attr.toolName]: call.name, [Attr.toolArguments]: call.arguments },
    span_id: "",
    parent_span_id: null
  }))
