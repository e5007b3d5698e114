// Interactive approval of tool calls (`--approve-tools`, docs/workflows.md#approving-tool-calls).
// Decisions are made one call at a time before any call of the round runs, and a process-wide gate
// serialises the prompts: tool loops of parallel branches share one stdin, and interleaved
// questions could not be answered. Without a terminal there is nobody to ask (and a closed pipe
// looks like a slow human), so that is an error rather than a silent denial.
import { Context, Effect, Semaphore } from "effect"
import type { AnyLaitError } from "../core/errors.ts"
import { redact } from "../core/redaction.ts"
import { ToolError } from "./toolErrors.ts"
import { stripOneLineEnding } from "../platform/process.ts"
import { terminalAnswerer } from "../platform/terminal.ts"
import { ApproveTools } from "./ApproveTools.ts"
import { stderrStream } from "../platform/stdStreams.ts"

export const INTERACTIVE_DENIAL = "denied interactively (--approve-tools)"

/** Where the question goes and the answer comes from; tests substitute a scripted one. */
export interface ApprovalTerminal {
  readonly interactive: () => boolean
  /** Text as is (the question ends without a newline). */
  readonly write: (text: string) => Effect.Effect<void>
  /** One line, its line ending included when there was one; "" at end of input. */
  readonly readLine: Effect.Effect<string, AnyLaitError>
}

export const ApprovalTerminal = Context.Reference<ApprovalTerminal>("lait/tools/ApprovalTerminal", {
  defaultValue: () => ({
    interactive: terminalAnswerer.interactive,
    write: (text) => Effect.sync(() => void stderrStream().write(redact(text))),
    readLine: terminalAnswerer.read(false)
  })
})

// One stdin per process, hence one gate per process (not per run).
const gate = Semaphore.makeUnsafe(1)

export type Decision = { readonly allowed: true } | { readonly allowed: false; readonly reason: string }

export interface ApprovalRequest {
  readonly name: string
  readonly arguments: string
  /** The argv a shell tool would run, shown so the user approves what will really execute. */
  readonly command: Effect.Effect<string | undefined>
  /** Tool names answered `a` earlier in this run. */
  readonly always: Set<string>
}

const allow: Decision = { allowed: true }

/**
 * Asks about one call when `--approve-tools` is on (after the policy allowed it). `a` adds the name
 * to `always`, which is checked again once the gate is held: another loop may have answered `a` for
 * the same tool while this one waited.
 */
export const approve = (request: ApprovalRequest): Effect.Effect<Decision, ToolError | AnyLaitError> =>
  Effect.gen(function*() {
    if (!(yield* ApproveTools) || request.always.has(request.name)) return allow
    const terminal = yield* ApprovalTerminal
    return yield* gate.withPermits(1)(Effect.gen(function*() {
      if (request.always.has(request.name)) return allow
      if (!terminal.interactive()) {
        return yield* new ToolError({ reason: { _tag: "NoTerminal", tool: request.name } })
      }
      const command = yield* request.command
      yield* terminal.write(
        `tool call: ${request.name}\narguments: ${request.arguments}\n` +
          (command === undefined ? "" : `command: ${command}\n`) +
          "allow this call? [y(es)/n(o)/a(lways for this tool)] "
      )
      const answer = stripOneLineEnding(yield* terminal.readLine)
      switch (answer) {
        case "y":
        case "Y":
          return allow
        case "a":
        case "A":
          request.always.add(request.name)
          return allow
        case "n":
        case "N":
          return { allowed: false, reason: INTERACTIVE_DENIAL } satisfies Decision
        default:
          return yield* new ToolError({ reason: { _tag: "UnrecognizedAnswer", tool: request.name, answer } })
      }
    }))
  })
