// stdout and stderr without Node's stream machinery until something needs a stream. Building
// `process.stdout`/`process.stderr` evaluates node:tty and the stream modules, ≈ 8 ms of CPU in a
// compiled binary: a fifth of a one-step `lait run` (bench/README.md). Lines lait writes itself go out
// with a synchronous write(2) while no stream exists; once one has been asked for (a readline prompt,
// streamed model output, colour detection), every write goes through the streams, so that a write
// never overtakes one still queued in a stream. When the standard streams are redirected
// (src/platform/rawStdout.ts's StdioRedirect: lait inside a test's process), the streams handed out
// write there instead, and no stream of the process is built.
import type { Console } from "effect"
import { redact } from "../core/redaction.ts"
import { type StdioRedirect, stdioRedirect, writeSync } from "./rawStdout.ts"

let built = false

const build = (): void => {
  if (built) return
  built = true
  // A failed write reaches the write's callback, and Bun emits it as an 'error' event as well, which
  // with no listener would end the process from the event loop with a stack trace.
  process.stdout.on("error", () => {})
  process.stderr.on("error", () => {})
}

interface Redirected {
  readonly stdout: NodeJS.WriteStream
  readonly stderr: NodeJS.WriteStream
  readonly console: Console.Console
}

const redirected = new WeakMap<StdioRedirect, Redirected>()

// node:stream and node:console only when redirected: a lait process never evaluates them for this.
const redirectedStreams = (to: StdioRedirect): Redirected => {
  const known = redirected.get(to)
  if (known !== undefined) return known
  const { Writable } = process.getBuiltinModule("node:stream") as typeof import("node:stream")
  // Not a tty.WriteStream: no `isTTY`, as for a process whose output is piped.
  const onto = (fd: 1 | 2) =>
    new Writable({
      decodeStrings: false,
      write(chunk: string | Uint8Array, _encoding, done) {
        to.write(fd, typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8"))
        done()
      }
    }) as NodeJS.WriteStream
  const stdout = onto(1)
  const stderr = onto(2)
  const NodeConsole = (process.getBuiltinModule("node:console") as typeof import("node:console")).Console
  const console = new NodeConsole({ stdout, stderr })
  const made = { stdout, stderr, console }
  redirected.set(to, made)
  return made
}

/** `process.stdout`, with its error listener. Every use of the stream goes through here. */
export const stdoutStream = (): NodeJS.WriteStream => {
  const to = stdioRedirect()
  if (to !== undefined) return redirectedStreams(to).stdout
  build()
  return process.stdout
}

/** `process.stderr`, with its error listener. Every use of the stream goes through here. */
export const stderrStream = (): NodeJS.WriteStream => {
  const to = stdioRedirect()
  if (to !== undefined) return redirectedStreams(to).stderr
  build()
  return process.stderr
}

/** The console behind Effect's Console service (src/cli/outcome.ts): the global one, or one on the redirect. */
export const stdConsole = (): Console.Console => {
  const to = stdioRedirect()
  return to === undefined ? globalThis.console : redirectedStreams(to).console
}

/** Whether a stream was built: writes must then go through the streams, in order. */
export const streamsBuilt = (): boolean => built

/**
 * A diagnostic on stderr, secrets masked (src/core/redaction.ts); a failure to write it is ignored,
 * as the stream's 'error' listener does.
 */
export const writeStderr = (raw: string): void => {
  const text = redact(raw)
  const to = stdioRedirect()
  if (to !== undefined) return to.write(2, text)
  if (built) {
    process.stderr.write(text)
    return
  }
  try {
    writeSync(2, text)
  } catch {
    // Nowhere left to report it.
  }
}
