// The flags of `lait chat` (docs/repl.md): the chat flags that apply to a whole conversation. Apart
// from ./replCommand.ts, which declares the command, so that the handler (./replRun.ts, loaded when
// the command runs) can take their type without importing the command back.
import { Flag } from "effect/cli"
import { chatFlags, samplingFlags, systemFlags, toolFlags } from "./chatFlags.ts"

export const replFlags = {
  model: chatFlags.model,
  baseUrl: chatFlags.baseUrl,
  apiKey: chatFlags.apiKey,
  ...systemFlags,
  ...samplingFlags,
  ...toolFlags,
  // The one-shot wording does not fit a conversation: these describe what happens for each answer.
  session: chatFlags.session.pipe(
    Flag.withDescription("Start from .lait/sessions/NAME.jsonl and append each answered question to it")
  ),
  showReasoning: chatFlags.showReasoning.pipe(
    Flag.withDescription("Print the model's reasoning to stderr before each answer")
  ),
  showUsage: chatFlags.showUsage.pipe(
    Flag.withDescription("Print the conversation's token usage so far to stderr after each answer")
  ),
  noHistory: chatFlags.noHistory.pipe(
    Flag.withDescription("Do not record the answers in `lait history` (default.history: false: never)")
  ),
  record: chatFlags.record,
  replay: chatFlags.replay
}
