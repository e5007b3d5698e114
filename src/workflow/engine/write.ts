// `write:` steps: a plain (not atomic) write, like `fs.write` — the file is truncated and rewritten in
// place, keeping its inode, permissions and links, and parent directories are never created. The
// target may be a FIFO: it is opened non-blocking and waited on, so a missing reader cannot hang the
// run past a timeout or Ctrl-C.
import * as fs from "node:fs"
import { Effect } from "effect"
import { LaitError } from "../../core/errors.ts"
import { osErrorText } from "./process.ts"

const POLL = "10 millis"

const errno = (e: unknown): string | undefined =>
  typeof e === "object" && e !== null && "code" in e ? String(e.code) : undefined

const failure = (path: string, cause: unknown) =>
  new LaitError({ message: `failed to write output to '${path}'`, cause: osErrorText(cause) })

const openForWrite: (path: string) => Effect.Effect<number, LaitError> = Effect.fnUntraced(function*(path: string) {
    while (true) {
      const opened = yield* Effect.try({
        try: () => fs.openSync(path, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_NONBLOCK, 0o666),
        catch: (e) => e
      }).pipe(
        // ENXIO: a FIFO with no reader yet.
        Effect.catch((e) => (errno(e) === "ENXIO" ? Effect.succeed(-1) : Effect.fail(failure(path, e))))
      )
      if (opened >= 0) return opened
      yield* Effect.sleep(POLL)
    }
  })

const writeAll: (path: string, fd: number, bytes: Uint8Array) => Effect.Effect<void, LaitError> = Effect.fnUntraced(function*(path: string, fd: number, bytes: Uint8Array) {
    const stat = yield* Effect.try({ try: () => fs.fstatSync(fd), catch: (e) => failure(path, e) })
    if (stat.isFile()) {
      // Truncate only once the handle is known to be a regular file.
      yield* Effect.try({
        try: () => {
          fs.ftruncateSync(fd, 0)
          let written = 0
          while (written < bytes.length) written += fs.writeSync(fd, bytes, written, bytes.length - written)
        },
        catch: (e) => failure(path, e)
      })
      return
    }
    let offset = 0
    while (offset < bytes.length) {
      const written = yield* Effect.try({
        try: () => fs.writeSync(fd, bytes, offset, bytes.length - offset),
        catch: (e) => e
      }).pipe(Effect.catch((e) => (errno(e) === "EAGAIN" ? Effect.succeed(0) : Effect.fail(failure(path, e)))))
      if (written === 0) yield* Effect.sleep(POLL)
      offset += written
    }
  })

export const writeOutputFile = (path: string, text: string): Effect.Effect<void, LaitError> =>
  Effect.acquireUseRelease(
    openForWrite(path),
    (fd) => writeAll(path, fd, Buffer.from(text, "utf8")),
    (fd) => Effect.sync(() => fs.closeSync(fd))
  )
