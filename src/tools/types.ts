// What the tool loop needs from every tool source: the definition sent to the model, how to run a
// call, and (for shell tools) the command a call would run, for the approval prompt.
import type { Effect } from "effect"
import type { AnyLaitError } from "../core/errors.ts"
import type { ToolDefinition } from "../model/types.ts"
import type { ToolSource } from "./names.ts"

export interface ToolEntry {
  /** The qualified name the model calls. */
  readonly name: string
  readonly source: ToolSource
  readonly definition: ToolDefinition
  /** Runs one call with the model's raw JSON arguments; the text becomes the tool message. */
  readonly call: (args: string) => Effect.Effect<string, AnyLaitError>
  /** The argv a call would run (shell tools), for `--approve-tools`. */
  readonly preview?: (args: string) => Effect.Effect<string | undefined>
}

export const toolDefinition = (name: string, description: string | undefined, parameters: unknown): ToolDefinition => ({
  type: "function",
  function: { name, ...(description !== undefined ? { description } : {}), parameters }
})
