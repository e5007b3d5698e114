// stdout for the answers lait gives before it loads anything (`--version`, `--help`: src/cli/fastPath.ts).
// Touching `process.stdout` builds Node's stream machinery, which costs more than the whole rest of
// such a process; a synchronous write(2) on fd 1 costs nothing and reports failures the same way.
import * as fs from "node:fs"
import type * as Tty from "node:tty"
import { stdoutWasClosed } from "./files.ts"

export { stdoutWasClosed }

/**
 * Where the standard streams are when lait runs inside another program's process (the tests'
 * in-process runner, test/e2e/inProcess.ts) instead of as a process of its own: what lait writes to
 * fd 1 or 2 goes to `write`, stdin holds `stdin` (already at its end, like a file), and none of the
 * three is a terminal. Undefined in a lait process, where they are fds 0, 1 and 2.
 */
export interface StdioRedirect {
  readonly write: (fd: 1 | 2, text: string) => void
  /** What is left to read of stdin; a reader takes from the front. */
  stdin: string
}

let redirect: StdioRedirect | undefined

/** Sends the standard streams to `to` until it is called again with undefined. */
export const redirectStdio = (to: StdioRedirect | undefined): void => {
  redirect = to
}

export const stdioRedirect = (): StdioRedirect | undefined => redirect

/** All that is left of a redirected stdin, as Files.readPlainStdin gives a file's; undefined when not redirected. */
export const redirectedStdin = (): { readonly bytes: Uint8Array } | undefined =>
  redirect === undefined ? undefined : { bytes: Buffer.from(takeRedirectedStdin(redirect, true)) }

/** Takes from a redirected stdin one line (with its line ending) or, when `whole`, all that is left. */
export const takeRedirectedStdin = (from: StdioRedirect, whole: boolean): string => {
  const newline = whole ? -1 : from.stdin.indexOf("\n")
  const taken = newline < 0 ? from.stdin : from.stdin.slice(0, newline + 1)
  from.stdin = from.stdin.slice(taken.length)
  return taken
}

/** Linux's memory devices (/dev/null, /dev/zero, /dev/full, /dev/random ...): never terminals. */
const LINUX_MEMORY_MAJOR = 1

/**
 * `tty.isatty(fd)`. node:tty evaluates Node's stream modules (≈ 4 ms in a compiled binary), so it is
 * loaded only for a character device that may be a terminal: a pipe, file or socket is none, and
 * neither is /dev/null (a spawned process's usual stdin).
 */
export const isTerminal = (fd: number): boolean => {
  if (redirect !== undefined) return false
  let stat: fs.Stats
  try {
    stat = fs.fstatSync(fd)
  } catch {
    return false
  }
  if (!stat.isCharacterDevice()) return false
  // glibc's encoding of the device number: the major's low 12 bits sit above the minor's low 8.
  if (process.platform === "linux" && ((stat.rdev >> 8) & 0xfff) === LINUX_MEMORY_MAJOR) return false
  return (process.getBuiltinModule("node:tty") as typeof Tty).isatty(fd)
}

/** Whether fd 1 is a terminal, as `process.stdout.isTTY` would say. */
export const stdoutIsTerminal = (): boolean => isTerminal(1)

/** Whether fd 0 is a terminal, as `process.stdin.isTTY` would say, without building the stdin stream. */
export const stdinIsTerminal = (): boolean => isTerminal(0)

const pause = new Int32Array(new SharedArrayBuffer(4))

/** Writes all of `text` to fd 1 or 2; throws the OS error (EBADF for a closed stdout, as src/cli/output.ts). */
export const writeSync = (fd: 1 | 2, text: string): void => {
  if (redirect !== undefined) return redirect.write(fd, text)
  if (fd === 1 && stdoutWasClosed()) throw Object.assign(new Error("EBADF"), { code: "EBADF" })
  let bytes = Buffer.from(text)
  while (bytes.length > 0) {
    let written: number
    try {
      written = fs.writeSync(fd, bytes)
    } catch (error) {
      // A non-blocking pipe that is full for now: wait for the reader, as the stream would, a
      // millisecond at a time, asleep rather than spinning on the CPU.
      if ((error as { code?: unknown }).code === "EAGAIN") {
        Atomics.wait(pause, 0, 0, 1)
        continue
      }
      throw error
    }
    bytes = bytes.subarray(written)
  }
}
