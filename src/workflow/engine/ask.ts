// `ask:` — a question for the person at the terminal. Without a terminal on stdin nothing is read at
// all (a closed pipe and a slow human look the same), so the step answers with its `default:` or
// fails. A wrong answer fails the step instead of re-prompting, which could loop forever on scripted input.
import { Effect } from "effect"
import { LaitError } from "../../core/errors.ts"
import type { ProgressWriter } from "../progress.ts"
import { osErrorText, stripOneLineEnding } from "./process.ts"

export interface AskRequest {
  /** The rendered question. */
  readonly question: string
  readonly choices?: ReadonlyArray<string>
  readonly default?: string
  readonly multiline: boolean
}

/** How an answer is obtained; the engine uses `terminalAnswerer`, tests substitute their own. */
export interface Answerer {
  readonly interactive: () => boolean
  /** One line, or everything up to EOF when `multiline`; a trailing line ending is removed later. */
  readonly read: (multiline: boolean) => Effect.Effect<string, LaitError>
}

const readStdin = (multiline: boolean): Effect.Effect<string, LaitError> =>
  Effect.callback<string, LaitError>((resume) => {
    const stdin = process.stdin
    let buffer = ""
    let done = false
    const cleanup = () => {
      stdin.off("data", onData)
      stdin.off("end", onEnd)
      stdin.off("error", onError)
      stdin.pause()
    }
    const finish = (answer: string) => {
      if (done) return
      done = true
      cleanup()
      resume(Effect.succeed(answer))
    }
    const onData = (chunk: string | Buffer) => {
      buffer += typeof chunk === "string" ? chunk : chunk.toString("utf8")
      if (multiline) return
      const newline = buffer.indexOf("\n")
      if (newline >= 0) {
        // Whatever was typed ahead belongs to the next `ask`.
        const rest = buffer.slice(newline + 1)
        if (rest.length > 0) stdin.unshift(Buffer.from(rest, "utf8"))
        finish(buffer.slice(0, newline + 1))
      }
    }
    const onEnd = () => finish(buffer)
    const onError = (error: unknown) => {
      if (done) return
      done = true
      cleanup()
      resume(Effect.fail(new LaitError({ message: "failed to read from stdin", cause: osErrorText(error) })))
    }
    stdin.on("data", onData)
    stdin.on("end", onEnd)
    stdin.on("error", onError)
    stdin.resume()
    return Effect.sync(() => {
      done = true
      cleanup()
    })
  })

export const terminalAnswerer: Answerer = {
  interactive: () => process.stdin.isTTY === true,
  read: readStdin
}

const checkChoice = (answer: string, choices: ReadonlyArray<string> | undefined) =>
  choices === undefined || choices.includes(answer)
    ? Effect.succeed(answer)
    : Effect.fail(
      new LaitError({
        message: `answer ${JSON.stringify(answer)} is not one of the configured 'choices': ${choices.join(", ")}`
      })
    )

export const ask: (
  request: AskRequest,
  progress: ProgressWriter,
  answerer: Answerer
) => Effect.Effect<string, LaitError> = Effect.fnUntraced(function*(
  request: AskRequest,
  progress: ProgressWriter,
  answerer: Answerer
) {
  if (!answerer.interactive()) {
    if (request.default === undefined) {
      return yield* new LaitError({
        message:
          "stdin is not an interactive terminal and no 'default:' is set; an 'ask' step has no way to get an answer"
      })
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
