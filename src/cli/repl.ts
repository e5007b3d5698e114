// The `lait chat` loop (docs/repl.md): read a line, answer it streamed, remember the exchange.
// Lines ending in `\` continue on the next line, and lines between two `"""` lines are one message;
// a line starting with `/` is a command (`/retry` and `/undo` edit the conversation). Ctrl-C while
// an answer is generated cancels it (the text shown stays, the exchange is dropped, what was typed
// ahead meanwhile is discarded); Ctrl-C on an empty prompt asks for a second one, which exits;
// Ctrl-D (or the end of piped input) exits. A failed answer is reported and the conversation goes
// on, piped or not (exit status 0, as upstream).
import { Console, Effect } from "effect"
import type { AnyLaitError } from "../core/errors.ts"
import { renderChain } from "../core/errors.ts"
import { escapeControls } from "../core/terminalText.ts"
import type { ChatMessage } from "../model/types.ts"
import type { LineEditor } from "../platform/lineEditor.ts"
import { streamToStdout } from "./streamOutput.ts"
import { stdoutStream } from "../platform/stdStreams.ts"

export interface ReplState {
  /** The model asked (`/model`); undefined: the configured default. */
  readonly model: string | undefined
  readonly system: string | undefined
  /** The conversation so far: user and assistant messages, oldest first. */
  readonly messages: ReadonlyArray<ChatMessage>
}

/** A completed answer. */
export interface ReplAnswer {
  readonly content: string
  /**
   * Run once the answer is printed and kept (never for a cancelled one): the usage summary, the
   * `--session` append, the history entry.
   */
  readonly finish: Effect.Effect<void, AnyLaitError>
}

export interface ReplBackend {
  /** The model name a state's requests use, as shown by `/model`; undefined when none is set anywhere. */
  readonly modelName: (state: ReplState) => string | undefined
  /** Answers the last (user) message of `state.messages`; the text streams to the provided StreamSink. */
  readonly turn: (state: ReplState) => Effect.Effect<ReplAnswer, AnyLaitError>
  /** The conversation's token usage (and cost) so far, as `/usage` prints it. */
  readonly usage: Effect.Effect<string>
  /** Stores the conversation and its system prompt as the session NAME; returns the file written. */
  readonly save: (
    name: string,
    system: string | undefined,
    messages: ReadonlyArray<ChatMessage>
  ) => Effect.Effect<string, AnyLaitError>
}

export const PROMPT = "> "
export const CONTINUATION = "... "
/** A line of just this opens a multi-line message; the next such line sends it. */
export const BLOCK = '"""'

export interface ReplOptions {
  /** Stream the model's reasoning to stderr before each answer (`--show-reasoning`). */
  readonly showReasoning: boolean
}

/** Shown on stderr when a terminal conversation starts. */
export const BANNER =
  "lait chat — /exit to quit, /clear to reset history, /model <name>, /system <text>, /help for more"

export const HELP = `Commands:
  /help           this list
  /exit           leave (also Ctrl-D, or Ctrl-C twice on an empty line)
  /clear, /reset  forget the conversation (the model, system prompt and --session file stay)
  /retry          ask the last question again (its answer, if kept, is replaced)
  /undo           drop the last question and its answer from the conversation
  /usage          the conversation's token usage and cost so far
  /model [NAME]   show or change the model for the next answers
  /system [TEXT]  set the system prompt (without TEXT: remove it)
  /save NAME      save the conversation as .lait/sessions/NAME.jsonl (lait --session NAME continues it)
A line ending in \\ continues on the next line; lines between two """ lines are sent as one message.
Ctrl-C cancels an answer being written.`

const stdout = (text: string) => Effect.sync(() => void stdoutStream().write(text))

type Command = { readonly name: string; readonly arg: string }

const parseCommand = (line: string): Command => {
  const trimmed = line.trim()
  const space = trimmed.search(/\s/)
  return space === -1
    ? { name: trimmed.slice(1), arg: "" }
    : { name: trimmed.slice(1, space), arg: trimmed.slice(space + 1).trim() }
}

/** Runs the loop until /exit, Ctrl-D or a second Ctrl-C. */
export const runRepl = (
  editor: LineEditor,
  backend: ReplBackend,
  initial: ReplState,
  options: ReplOptions = { showReasoning: false }
): Effect.Effect<void> =>
  Effect.gen(function*() {
    let state = initial
    let pending = ""
    /** The lines of an open `"""` block, or undefined outside one. */
    let block: Array<string> | undefined
    let armed = false
    /** The last question asked (answered or not), for `/retry`. */
    let lastAsked: string | undefined
    /** Whether its exchange ends the conversation (a failed or cancelled question's was never kept). */
    let lastKept = false
    const note = (text: string) => Console.error(text)
    const failed = (error: AnyLaitError) => note(`lait: ${escapeControls(renderChain(error), { keepLines: true })}`)

    /** One answer, printed as it streams; the exchange is kept only when it completes. */
    const answer = (text: string) =>
      Effect.gen(function*() {
        // Ends what was printed with a newline however the turn ends, before any note follows.
        const streamed = streamToStdout({ showReasoning: options.showReasoning, quiet: false })
        const asked: ReplState = { ...state, messages: [...state.messages, { role: "user", content: text }] }
        lastAsked = text
        lastKept = false
        const outcome = yield* backend.turn(asked).pipe(
          streamed.provide,
          Effect.map((answer) => ({ _tag: "Answered" as const, answer })),
          Effect.catch((error: AnyLaitError) => Effect.succeed({ _tag: "Failed" as const, error })),
          Effect.raceFirst(Effect.as(editor.interrupted, { _tag: "Cancelled" as const }))
        )
        switch (outcome._tag) {
          case "Answered":
            state = { ...asked, messages: [...asked.messages, { role: "assistant", content: outcome.answer.content }] }
            lastKept = true
            return yield* outcome.answer.finish.pipe(Effect.catch(failed))
          case "Cancelled":
            // A second Ctrl-C pressed while the answer stopped, or a line typed ahead, would otherwise
            // cancel the next question at once, unseen, and print "(cancelled)" again: both go.
            yield* editor.discardTypeAhead
            return yield* note("(cancelled)")
          case "Failed":
            return yield* failed(outcome.error)
        }
      })

    /** Whether the conversation ends with a question and its answer. */
    const endsWithExchange = () =>
      state.messages.at(-1)?.role === "assistant" && state.messages.at(-2)?.role === "user"

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
          case "retry": {
            if (lastAsked === undefined) {
              yield* note("(nothing to retry)")
              return true
            }
            if (lastKept && endsWithExchange()) state = { ...state, messages: state.messages.slice(0, -2) }
            yield* note("(asking the last question again)")
            yield* answer(lastAsked)
            return true
          }
          case "undo":
            if (!endsWithExchange()) {
              yield* note("(nothing to undo)")
              return true
            }
            state = { ...state, messages: state.messages.slice(0, -2) }
            lastKept = false
            yield* note("(last question and answer removed — a --session log, if any, is unaffected)")
            return true
          case "usage":
            yield* note(yield* backend.usage)
            return true
          case "clear":
          case "reset":
            lastKept = false
            state = { ...state, messages: [] }
            yield* note("(conversation cleared — a --session log, if any, is unaffected)")
            return true
          case "model": {
            if (c.arg !== "") {
              state = { ...state, model: c.arg }
              yield* note(`(model set to '${c.arg}')`)
              return true
            }
            const name = backend.modelName(state)
            yield* note(name === undefined ? "usage: /model <name>" : `model: ${name}`)
            return true
          }
          case "system":
            state = { ...state, system: c.arg === "" ? undefined : c.arg }
            yield* note(c.arg === "" ? "(system prompt removed)" : "(system prompt updated)")
            return true
          case "save": {
            if (c.arg === "") {
              yield* note("usage: /save <name>")
              return true
            }
            yield* backend.save(c.arg, state.system, state.messages).pipe(
              Effect.flatMap((path) => note(`saved to ${path}`)),
              Effect.catch(failed)
            )
            return true
          }
          default:
            yield* note(`unknown command: /${c.name}`)
            return true
        }
      })

    if (editor.interactive) yield* note(BANNER)
    for (;;) {
      const event = yield* editor.next(pending === "" && block === undefined ? PROMPT : CONTINUATION)
      if (event._tag === "Eof") {
        if (block !== undefined) yield* note(`(unfinished ${BLOCK} block discarded)`)
        if (editor.interactive) yield* stdout("\n")
        return
      }
      if (event._tag === "Interrupt") {
        if (pending !== "" || block !== undefined || event.typed) {
          pending = ""
          block = undefined
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
      // Inside a block every line is text, `/` and `\` included, until the closing line.
      if (block !== undefined) {
        if (event.text.trim() !== BLOCK) {
          block.push(event.text)
          continue
        }
        const text = block.join("\n")
        block = undefined
        if (text.trim() !== "") yield* answer(text)
        continue
      }
      if (pending === "" && event.text.trim() === BLOCK) {
        block = []
        continue
      }
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
