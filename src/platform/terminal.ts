// Answers typed at the terminal: one line, or everything up to EOF. The `ask:` step
// (src/workflow/engine/ask.ts) and --approve-tools (src/tools/approval.ts) both read through this.
import { Effect } from "effect"
import type { AnyLaitError } from "../core/errors.ts"
import type { FileError } from "../core/fileErrors.ts"
import { osErrorText } from "./process.ts"
import { stdinIsTerminal, stdioRedirect, takeRedirectedStdin } from "./rawStdout.ts"
import { readStdinEvents } from "./stdinEvents.ts"

/** How an answer is obtained; the engine uses `terminalAnswerer`, tests substitute their own. */
export interface Answerer {
  readonly interactive: () => boolean
  /** One line, or everything up to EOF when `multiline`; a trailing line ending is removed later. */
  readonly read: (multiline: boolean) => Effect.Effect<string, AnyLaitError>
}

const readStdin = (multiline: boolean): Effect.Effect<string, FileError> =>
  Effect.suspend(() => {
    const redirected = stdioRedirect()
    return redirected === undefined
      ? readStdinStream(multiline)
      : Effect.succeed(takeRedirectedStdin(redirected, multiline))
  })

const readStdinStream = (multiline: boolean): Effect.Effect<string, FileError> =>
  readStdinEvents<string>((settle, stdin) => {
    let buffer = ""
    const finish = (answer: string) => settle(Effect.succeed(answer))
    return {
      onData: (chunk) => {
        buffer += typeof chunk === "string" ? chunk : chunk.toString("utf8")
        if (multiline) return
        const newline = buffer.indexOf("\n")
        if (newline >= 0) {
          // Whatever was typed ahead belongs to the next `ask`.
          const rest = buffer.slice(newline + 1)
          if (rest.length > 0) stdin.unshift(Buffer.from(rest, "utf8"))
          finish(buffer.slice(0, newline + 1))
        }
      },
      onEnd: () => finish(buffer)
    }
  }, osErrorText)

export const terminalAnswerer: Answerer = {
  interactive: () => stdinIsTerminal(),
  read: readStdin
}
