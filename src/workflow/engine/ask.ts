// `ask:` — a question for the person at the terminal. Without a terminal on stdin nothing is read at
// all (a closed pipe and a slow human look the same), so the step answers with its `default:` or
// fails. A wrong answer fails the step instead of re-prompting, which could loop forever on scripted input.
import { Effect } from "effect"
import type { AnyLaitError } from "../../core/errors.ts"
import { StepError } from "../stepErrors.ts"
import { stripOneLineEnding } from "../../platform/process.ts"
import type { Answerer } from "../../platform/terminal.ts"
import type { ProgressWriter } from "../progress.ts"

export interface AskRequest {
  /** The rendered question. */
  readonly question: string
  readonly choices?: ReadonlyArray<string>
  readonly default?: string
  readonly multiline: boolean
}

const checkChoice = (answer: string, choices: ReadonlyArray<string> | undefined) =>
  choices === undefined || choices.includes(answer)
    ? Effect.succeed(answer)
    : Effect.fail(new StepError({ reason: { _tag: "AskInvalidChoice", answer, choices } }))

export const ask: (
  request: AskRequest,
  progress: ProgressWriter,
  answerer: Answerer
) => Effect.Effect<string, StepError | AnyLaitError> = Effect.fnUntraced(function*(
  request: AskRequest,
  progress: ProgressWriter,
  answerer: Answerer
) {
  if (!answerer.interactive()) {
    if (request.default === undefined) {
      return yield* new StepError({ reason: { _tag: "AskNoTerminal" } })
    }
    // The default stands in for an answer, so it is held to the same choices.
    return yield* checkChoice(request.default, request.choices)
  }
  // The question is not progress, but it shares stderr with it so stdout stays the result alone.
  yield* progress.raw(request.question)
  if (request.choices !== undefined) yield* progress.raw(`choices: ${request.choices.join(", ")}`)
  const answer = stripOneLineEnding(yield* answerer.read(request.multiline))
  return yield* checkChoice(answer, request.choices)
})
