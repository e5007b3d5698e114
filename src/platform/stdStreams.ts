// stdout and stderr without Node's stream machinery until something needs a stream. Building
// `process.stdout`/`process.stderr` evaluates node:tty and the stream modules, ≈ 8 ms of CPU in a
// compiled binary: a fifth of a one-step `lait run` (bench/README.md). Lines lait writes itself go out
// with a synchronous write(2) while no stream exists; once one has been asked for (a readline prompt,
// streamed model output, colour detection), every write goes through the streams, so that a write
// never overtakes one still queued in a stream.
import { redact } from "../core/redaction.ts"
import { writeSync } from "./rawStdout.ts"

let built = false

const build = (): void => {
  if (built) return
  built = true
  // A failed write reaches the write's callback, and Bun emits it as an 'error' event as well, which
  // with no listener would end the process from the event loop with a stack trace.
  process.stdout.on("error", () => {})
  process.stderr.on("error", () => {})
}

/** `process.stdout`, with its error listener. Every use of the stream goes through here. */
export const stdoutStream = (): NodeJS.WriteStream => {
  build()
  return process.stdout
}

/** `process.stderr`, with its error listener. Every use of the stream goes through here. */
export const stderrStream = (): NodeJS.WriteStream => {
  build()
  return process.stderr
}

/** Whether a stream was built: writes must then go through the streams, in order. */
export const streamsBuilt = (): boolean => built

/**
 * A diagnostic on stderr, secrets masked (src/core/redaction.ts); a failure to write it is ignored,
 * as the stream's 'error' listener does.
 */
export const writeStderr = (raw: string): void => {
  const text = redact(raw)
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
