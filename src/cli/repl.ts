// The `lait chat` loop (docs/repl.md): read a line, answer it streamed, remember the exchange.
// Lines ending in `\` continue on the next line; a line starting with `/` is a command. Ctrl-C while
// an answer is generated cancels it (the text shown stays, the exchange is dropped); Ctrl-C on an
// empty prompt asks for a second one, which exits; Ctrl-D (or the end of piped input) exits.
import { Console, Effect } from "effect"
import type { AnyLaitError } from "../core/errors.ts"
import { renderChain } from "../core/errors.ts"
import type { ChatMessage } from "../model/types.ts"
import { StreamSink } from "../model/streamSink.ts"
import type { LineEditor } from "../platform/lineEditor.ts"

export interface ReplState {
  /** The model asked (`/model`); undefined: the configured default. */
  readonly model: string | undefined
  readonly system: string | undefined
  /** The conversation so far: user and assistant messages, oldest first. */
  readonly messages: ReadonlyArray<ChatMessage>
}

export interface ReplBackend {
  /** The model name a state's requests use, as shown by `/model`. */
  readonly modelName: (state: ReplState) => string
  /** Answers the last (user) message of `state.messages`; the text streams to the provided StreamSink. */
  readonly turn: (state: ReplState) => Effect.Effect<string, AnyLaitError>
  /** Stores the conversation as the session NAME; returns the file written. */
  readonly save: (name: string, messages: ReadonlyArray<ChatMessage>) => Effect.Effect<string, AnyLaitError>
}

export const PROMPT = "> "
export const CONTINUATION = "... "

export const HELP = `Commands:
  /help           this list
  /exit           leave (also Ctrl-D, or Ctrl-C twice on an empty line)
  /reset          forget the conversation (the model and system prompt stay)
  /model [NAME]   show or change the model for the next answers
  /system [TEXT]  set the system prompt (without TEXT: remove it)
  /save NAME      save the conversation as .lait/sessions/NAME.jsonl (lait --session NAME continues it)
A line ending in \\ continues on the next line. Ctrl-C cancels an answer being written.`

const stdout = (text: string) => Effect.sync(() => void process.stdout.write(text))

type Command = { readonly name: string; readonly arg: string }

const parseCommand = (line: string): Command => {
  const trimmed = line.trim()
  const space = trimmed.search(/\s/)
  return space === -1
    ? { name: trimmed.slice(1), arg: "" }
    : { name: trimmed.slice(1, space), arg: trimmed.slice(space + 1).trim() }
}

/** Runs the loop until /exit, Ctrl-D or a second Ctrl-C. */
export const runRepl = (editor: LineEditor, backend: ReplBackend, initial: ReplState): Effect.Effect<void> =>
  Effect.gen(function*() {
    let state = initial
    let pending = ""
    let armed = false
    const note = (text: string) => Console.error(text)

    /** One answer, printed as it streams; the exchange is kept only when it completes. */
    const answer = (text: string) =>
      Effect.gen(function*() {
        let last = "\n"
        const sink = StreamSink.of((delta) => {
          if (delta._tag !== "Content") return Effect.void
          last = delta.text
          return stdout(delta.text)
        })
        const asked: ReplState = { ...state, messages: [...state.messages, { role: "user", content: text }] }
        const outcome = yield* backend.turn(asked).pipe(
          Effect.provideService(StreamSink, sink),
          Effect.map((content) => ({ _tag: "Answered" as const, content })),
          Effect.catch((error: AnyLaitError) => Effect.succeed({ _tag: "Failed" as const, error })),
          Effect.raceFirst(Effect.as(editor.interrupted, { _tag: "Cancelled" as const }))
        )
        if (!last.endsWith("\n")) yield* stdout("\n")
        switch (outcome._tag) {
          case "Answered":
            state = { ...asked, messages: [...asked.messages, { role: "assistant", content: outcome.content }] }
            return
          case "Cancelled":
            return yield* note("(cancelled)")
          case "Failed":
            return yield* note(`lait: ${renderChain(outcome.error)}`)
        }
      })

    /** false: leave the loop. */
    const command = (c: Command): Effect.Effect<boolean> =>
      Effect.gen(function*() {
        switch (c.name) {
          case "exit":
          case "quit":
            return false
          case "help":
            yield* stdout(`${HELP}\n`)
            return true
          case "reset":
            state = { ...state, messages: [] }
            yield* note("conversation cleared")
            return true
          case "model":
            if (c.arg !== "") state = { ...state, model: c.arg }
            yield* note(`model: ${backend.modelName(state)}`)
            return true
          case "system":
            state = { ...state, system: c.arg === "" ? undefined : c.arg }
            yield* note(c.arg === "" ? "system prompt removed" : "system prompt set")
            return true
          case "save": {
            if (c.arg === "") {
              yield* note("usage: /save NAME")
              return true
            }
            yield* backend.save(c.arg, state.messages).pipe(
              Effect.flatMap((path) => note(`saved to ${path}`)),
              Effect.catch((error: AnyLaitError) => note(`lait: ${renderChain(error)}`))
            )
            return true
          }
          default:
            yield* note(`unknown command '/${c.name}'; /help lists the commands`)
            return true
        }
      })

    for (;;) {
      const event = yield* editor.next(pending === "" ? PROMPT : CONTINUATION)
      if (event._tag === "Eof") {
        if (editor.interactive) yield* stdout("\n")
        return
      }
      if (event._tag === "Interrupt") {
        if (pending !== "" || event.typed) {
          pending = ""
          armed = false
          continue
        }
        if (armed) return
        armed = true
        // readline leaves the cursor after the prompt: the hint starts a line of its own.
        yield* note("\n(press Ctrl-C again to exit, or Ctrl-D)")
        continue
      }
      armed = false
      if (event.text.endsWith("\\")) {
        pending += `${event.text.slice(0, -1)}\n`
        continue
      }
      const text = pending + event.text
      pending = ""
      if (text.trim() === "") continue
      if (text.trimStart().startsWith("/")) {
        if (!(yield* command(parseCommand(text)))) return
        continue
      }
      yield* answer(text)
    }
  })
