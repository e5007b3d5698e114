// stdout for the answers lait gives before it loads anything (`--version`, `--help`: src/cli/fastPath.ts).
// Touching `process.stdout` builds Node's stream machinery, which costs more than the whole rest of
// such a process; a synchronous write(2) on fd 1 costs nothing and reports failures the same way.
import * as fs from "node:fs"
import * as tty from "node:tty"
import { stdoutWasClosed } from "./files.ts"

/** Whether fd 1 is a terminal, as `process.stdout.isTTY` would say. */
export const stdoutIsTerminal = (): boolean => tty.isatty(1)

/** Whether fd 0 is a terminal, as `process.stdin.isTTY` would say, without building the stdin stream. */
export const stdinIsTerminal = (): boolean => tty.isatty(0)

/** Writes all of `text` to fd 1 or 2; throws the OS error (EBADF for a closed stdout, as src/cli/output.ts). */
export const writeSync = (fd: 1 | 2, text: string): void => {
  if (fd === 1 && stdoutWasClosed()) throw Object.assign(new Error("EBADF"), { code: "EBADF" })
  let bytes = Buffer.from(text)
  while (bytes.length > 0) {
    let written: number
    try {
      written = fs.writeSync(fd, bytes)
    } catch (error) {
      // A non-blocking pipe that is full for now: wait for the reader, as the stream would.
      if ((error as { code?: unknown }).code === "EAGAIN") continue
      throw error
    }
    bytes = bytes.subarray(written)
  }
}
