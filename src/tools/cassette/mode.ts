// How the current run treats tool calls (docs/record-replay.md#tool-cassettes). A module of its own so
// that the command line can set the mode without loading the tape (./ToolCassettes.ts).
import { Context } from "effect"

export type ToolCassetteMode =
  | { readonly mode: "live" }
  | { readonly mode: "record"; readonly dir: string }
  | { readonly mode: "replay"; readonly dir: string }
  // `lait test --record-missing`: a call (or tool list) with a cassette replays it, any other runs live
  // and is recorded — the same rule as for model requests.
  | { readonly mode: "record-missing"; readonly dir: string }

/** How the current run treats tool calls; live unless a command says otherwise. */
export const ToolCassettes = Context.Reference<ToolCassetteMode>("lait/tools/ToolCassettes", {
  defaultValue: () => ({ mode: "live" })
})
