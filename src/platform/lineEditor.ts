// The `lait chat` REPL's input: lines typed at a terminal (node:readline: editing keys, up/down
// history) or piped in. Everything the user does arrives as one event stream, read with `next` for
// the prompt and with `interrupted` while an answer is generated, so a line typed ahead waits for the
// next prompt and a Ctrl-C reaches whoever is waiting for one. On a terminal readline owns Ctrl-C
// (raw mode, no SIGINT reaches lait's own handler); piped, Ctrl-C is the usual signal.
import { Effect, type Scope } from "effect"
import * as readline from "node:readline"
import { Readable } from "node:stream"
import { stdinIsTerminal, stdioRedirect, takeRedirectedStdin } from "./rawStdout.ts"
import { stdoutStream } from "./stdStreams.ts"

export type InputEvent =
  | { readonly _tag: "Line"; readonly text: string }
  /** Ctrl-C at the terminal; `typed` says whether the line had text (it is cleared). */
  | { readonly _tag: "Interrupt"; readonly typed: boolean }
  /** Ctrl-D on an empty line, or the end of piped input. */
  | { readonly _tag: "Eof" }

export interface LineEditor {
  /** Whether this is a terminal (prompts shown, Ctrl-C handled here). */
  readonly interactive: boolean
  /** Shows `prompt` (on a terminal) and waits for the next line, Ctrl-C or end of input. */
  readonly next: (prompt: string) => Effect.Effect<InputEvent>
  /** Waits for a Ctrl-C; lines typed meanwhile wait for `next`. Never ends when not interactive. */
  readonly interrupted: Effect.Effect<void>
  /**
   * Forgets what was typed ahead (lines and further Ctrl-Cs, not the end of input), as a terminal's
   * interrupt flushes its input queue: called once an answer is cancelled.
   */
  readonly discardTypeAhead: Effect.Effect<void>
}

export const HISTORY_SIZE = 500

/** A line editor on stdin/stdout, closed with the scope. */
export const openLineEditor: Effect.Effect<LineEditor, never, Scope.Scope> = Effect.gen(function*() {
  const interactive = stdinIsTerminal()
  const redirected = stdioRedirect()
  const rl = yield* Effect.acquireRelease(
    Effect.sync(() =>
      readline.createInterface({
        input: redirected === undefined ? process.stdin : Readable.from([takeRedirectedStdin(redirected, true)]),
        output: interactive ? stdoutStream() : undefined,
        terminal: interactive,
        historySize: HISTORY_SIZE,
        removeHistoryDuplicates: true
      })
    ),
    (rl) => Effect.sync(() => rl.close())
  )
  const buffered: Array<InputEvent> = []
  let waiter: ((event: InputEvent) => boolean) | undefined
  let closed = false
  const push = (event: InputEvent) => {
    if (waiter !== undefined && waiter(event)) return
    buffered.push(event)
  }
  rl.on("line", (text) => push({ _tag: "Line", text }))
  rl.on("SIGINT", () => {
    const typed = rl.line.length > 0
    // readline keeps the line on Ctrl-C; a shell (and the user) expects it gone.
    if (typed) rl.write(null, { ctrl: true, name: "u" })
    push({ _tag: "Interrupt", typed })
  })
  rl.on("close", () => {
    closed = true
    push({ _tag: "Eof" })
  })

  const take = (accept: (event: InputEvent) => boolean): Effect.Effect<InputEvent> =>
    Effect.callback<InputEvent>((resume) => {
      const index = buffered.findIndex(accept)
      if (index >= 0) {
        resume(Effect.succeed(buffered.splice(index, 1)[0]!))
        return
      }
      waiter = (event) => {
        if (!accept(event)) return false
        waiter = undefined
        resume(Effect.succeed(event))
        return true
      }
      return Effect.sync(() => {
        waiter = undefined
      })
    })

  const next = (prompt: string) =>
    Effect.suspend(() => {
      if (interactive && !closed && buffered.length === 0) {
        rl.setPrompt(prompt)
        rl.prompt()
      }
      return take(() => true)
    })
  const interrupted = interactive ? Effect.asVoid(take((e) => e._tag === "Interrupt")) : Effect.never
  const discardTypeAhead = Effect.sync(() => {
    const kept = buffered.filter((e) => e._tag === "Eof")
    buffered.splice(0, buffered.length, ...kept)
  })
  return { interactive, next, interrupted, discardTypeAhead }
})
