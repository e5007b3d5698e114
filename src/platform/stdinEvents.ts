// Reading process.stdin as a stream, for whole-input reads (FileLoader.readStdin) and for the answers
// typed at the terminal (terminal.ts). Both listen the same way: the read settles once, and its
// listeners come off and stdin pauses when it settles or is interrupted, so the next read starts clean
// and stdin does not keep the process alive.
import { Effect } from "effect"
import { FileError } from "../core/fileErrors.ts"

/** What a read does with stdin's events; `settle` ends it (once: later calls do nothing). */
export type StdinReader<A> = (
  settle: (result: Effect.Effect<A, FileError>) => void,
  stdin: NodeJS.ReadStream
) => { readonly onData: (chunk: Buffer | string) => void; readonly onEnd: () => void }

/** Reads stdin through `reader`; a stream error fails the read as StdinFailed with `errorDetail(error)`. */
export const readStdinEvents = <A>(
  reader: StdinReader<A>,
  errorDetail: (error: unknown) => string
): Effect.Effect<A, FileError> =>
  Effect.callback<A, FileError>((resume) => {
    const stdin = process.stdin
    let settled = false
    const cleanup = () => {
      stdin.off("data", onData)
      stdin.off("end", onEnd)
      stdin.off("error", onError)
      stdin.pause()
    }
    const settle = (result: Effect.Effect<A, FileError>) => {
      if (settled) return
      settled = true
      cleanup()
      resume(result)
    }
    const { onData, onEnd } = reader(settle, stdin)
    const onError = (error: unknown) =>
      settle(Effect.fail(new FileError({ reason: { _tag: "StdinFailed", detail: errorDetail(error) } })))
    stdin.on("data", onData)
    stdin.on("end", onEnd)
    stdin.on("error", onError)
    stdin.resume()
    return Effect.sync(() => {
      settled = true
      cleanup()
    })
  })
