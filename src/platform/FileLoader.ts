// The one way lait reads user files and writes files for the user.
// Reads are capped (16 MiB) without loading more than cap+1 bytes, must be UTF-8, and never hang:
// a FIFO is opened non-blocking and polled, so Ctrl-C (fiber interruption) stops a wait for a writer.
// Writes go to a create-new temp file in the target's directory and are renamed into place.
import { Context, Effect, Layer } from "effect"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import * as Files from "./files.ts"
import { statOrUndefined } from "./files.ts"
import { redirectedStdin } from "./rawStdout.ts"
import { readStdinEvents } from "./stdinEvents.ts"
import { FileError } from "../core/fileErrors.ts"
import { describeOsError, type FileOps, fileOps } from "./fileOps.ts"

export const READ_LIMIT = 16 * 1024 * 1024

const CHUNK = 1024 * 1024
const FIFO_POLL = "10 millis"
const O_NOFOLLOW = fs.constants.O_NOFOLLOW

export interface ReadOptions {
  /**
   * Wait (cancellably) for a writer when the path is a FIFO with none yet. Commands that call models
   * wait; synchronous commands (lint, listings) fail at once instead.
   */
  readonly waitForWriter?: boolean
  /** Refuse a symlink as the last component (O_NOFOLLOW): for lait's own files (privateState.ts). */
  readonly noFollow?: boolean
}

export interface FileLoaderService extends FileOps {
  readonly readText: (path: string, options?: ReadOptions) => Effect.Effect<string, FileError>
  readonly readBytes: (path: string, options?: ReadOptions) => Effect.Effect<Uint8Array, FileError>
  readonly writeAtomic: (path: string, data: string | Uint8Array) => Effect.Effect<void, FileError>
  /** Into a FIFO, a device or an open descriptor's file, interruptibly (`writeStream`). */
  readonly writeInPlace: (path: string, data: string | Uint8Array) => Effect.Effect<void, FileError>
  /** All of stdin, capped and UTF-8-checked, trailing newlines dropped. */
  readonly readStdin: Effect.Effect<string, FileError>
}

/** The `code` of a Node/Bun system error (`ENOENT`, …). */
import { errnoOf } from "../core/osError.ts"

export { errnoOf }
export { describeOsError }

/** An error shaped like the one the OS would give, for failures found before making the call. */
const osError = (code: string, text: string) => Object.assign(new Error(`${code}: ${text}`), { code })

const isPermission = (e: unknown): boolean => errnoOf(e) === "EACCES" || errnoOf(e) === "EPERM"

const readFailure = (path: string, cause: unknown) =>
  new FileError({
    reason: isPermission(cause)
      ? { _tag: "PermissionDenied", path, access: "read" }
      : { _tag: "ReadFailed", path, detail: describeOsError(cause) }
  })

const utf8 = new TextDecoder("utf-8", { fatal: true })

const decodeUtf8 = (path: string, bytes: Uint8Array) =>
  Effect.try({
    try: () => utf8.decode(bytes),
    catch: () => new FileError({ reason: { _tag: "NotUtf8", path } })
  })

const tooLarge = (path: string) => new FileError({ reason: { _tag: "TooLarge", path, limit: READ_LIMIT } })

/**
 * Reads at most READ_LIMIT bytes from an open descriptor; the FIFO protocol is documented inline.
 * `size` is a regular file's size: a small file then costs a small buffer, not a CHUNK (a test suite
 * reads thousands of small files, and the garbage buffers add up to hundreds of MiB).
 */
const readDescriptor = (path: string, fd: number, isFifo: boolean, waitForWriter: boolean, size?: number) =>
  Effect.gen(function*() {
    const chunks: Array<Uint8Array> = []
    let total = 0
    // On a non-blocking FIFO, read() returns 0 both before any writer connects and after the last
    // writer closes; EAGAIN means a writer is connected. So 0 only means end-of-file once a writer has
    // been seen (EAGAIN or data).
    let writerSeen = !isFifo
    while (true) {
      // One byte more than the size, so a file that grew since fstat is still read to its end.
      const wanted = size === undefined ? CHUNK : Math.max(4096, size + 1)
      const buffer = new Uint8Array(Math.min(CHUNK, wanted, READ_LIMIT + 1 - total))
      const outcome = yield* Effect.try({
        try: () => fs.readSync(fd, buffer, 0, buffer.length, null),
        catch: (e) => e
      }).pipe(
        Effect.catch((e) => errnoOf(e) === "EAGAIN" ? Effect.succeed(-1) : Effect.fail(readFailure(path, e)))
      )
      if (outcome > 0) {
        writerSeen = true
        total += outcome
        if (total > READ_LIMIT) return yield* Effect.fail(tooLarge(path))
        chunks.push(buffer.subarray(0, outcome))
        yield* Effect.yieldNow
        continue
      }
      if (outcome === -1) {
        writerSeen = true
        yield* Effect.sleep(FIFO_POLL)
        continue
      }
      if (writerSeen) break
      if (!waitForWriter) return yield* Effect.fail(new FileError({ reason: { _tag: "FifoNoWriter", path } }))
      yield* Effect.sleep(FIFO_POLL)
    }
    const out = new Uint8Array(total)
    let offset = 0
    for (const chunk of chunks) {
      out.set(chunk, offset)
      offset += chunk.length
    }
    return out
  })

const readBytes = Effect.fn("FileLoader.readBytes")(function*(path: string, options?: ReadOptions) {
  const waitForWriter = options?.waitForWriter ?? true
  const noFollow = options?.noFollow === true
  return yield* Effect.acquireUseRelease(
    Effect.try({
      // O_NONBLOCK matters only for FIFOs (an open for reading would otherwise block until a writer
      // appears, out of reach of interruption); regular files ignore it.
      try: () => fs.openSync(path, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK | (noFollow ? O_NOFOLLOW : 0)),
      catch: (e) => readFailure(path, noFollow && errnoOf(e) === "ELOOP" ? new Files.SymlinkRefused(path) : e)
    }),
    (fd) =>
      Effect.gen(function*() {
        const stat = yield* Effect.try({ try: () => fs.fstatSync(fd), catch: (e) => readFailure(path, e) })
        if (stat.isDirectory()) return yield* Effect.fail(new FileError({ reason: { _tag: "IsDirectory", path } }))
        if (stat.isSocket()) return yield* Effect.fail(new FileError({ reason: { _tag: "IsSocket", path } }))
        if (stat.isFile() && stat.size > READ_LIMIT) return yield* Effect.fail(tooLarge(path))
        return yield* readDescriptor(path, fd, stat.isFIFO(), waitForWriter, stat.isFile() ? stat.size : undefined)
      }),
    (fd) => Effect.sync(() => fs.closeSync(fd))
  )
})

const readText = Effect.fn("FileLoader.readText")(function*(path: string, options?: ReadOptions) {
  const bytes = yield* readBytes(path, options)
  return yield* decodeUtf8(path, bytes)
})

const isStream = (stat: Files.Stats | undefined): boolean =>
  stat !== undefined && (stat.isFIFO() || stat.isCharacterDevice())

/** A FIFO or a character device: written in place (renaming over it would replace it), not atomically. */
export const isStreamTarget = (path: string): boolean => isStream(statOrUndefined(path))

/**
 * Writes `data` into a FIFO, a device or an open descriptor's file (appended, as the descriptor's own
 * writes are). The open and each write are non-blocking and retried while a
 * FIFO has no reader (ENXIO) or is full (EAGAIN): a blocking open would freeze the whole process, out
 * of reach of the Ctrl-C handler, whereas this wait is an ordinary interruptible fiber.
 */
export const writeStream = (path: string, data: string | Uint8Array): Effect.Effect<void, unknown> => {
  const bytes = typeof data === "string" ? Buffer.from(data, "utf8") : data
  const retrying = (code: string) => (e: unknown) => (errnoOf(e) === code ? Effect.succeed(-1) : Effect.fail(e))
  // One open attempt per acquire (acquisition is uninterruptible); the waiting happens between attempts.
  const attempt = Effect.acquireUseRelease(
    Effect.try({
      try: () => fs.openSync(path, fs.constants.O_WRONLY | fs.constants.O_APPEND | fs.constants.O_NONBLOCK),
      catch: (e) => e
    }).pipe(
      Effect.catch(retrying("ENXIO"))
    ),
    (fd) =>
      Effect.gen(function*() {
        if (fd < 0) return false
        let written = 0
        while (written < bytes.length) {
          const n = yield* Effect.try({
            try: () => fs.writeSync(fd, bytes, written, bytes.length - written),
            catch: (e) => e
          }).pipe(Effect.catch(retrying("EAGAIN")))
          if (n < 0) yield* Effect.sleep(FIFO_POLL)
          else written += n
        }
        return true
      }),
    (fd) => Effect.sync(() => fd >= 0 && fs.closeSync(fd))
  )
  return Effect.gen(function*() {
    while (!(yield* attempt)) yield* Effect.sleep(FIFO_POLL)
  })
}

let tempCounter = 0

/**
 * Writes `data` to `path` through `<name>.<pid>.<n>.tmp` in the same directory. The whole sequence is
 * synchronous, so neither an interruption nor a second Ctrl-C (handled between event-loop turns) can
 * leave a torn target; a failure removes the temp file.
 */
export const writeAtomicSync = (path: string, data: string | Uint8Array, options: WriteOptions = {}): void =>
  replaceAtomically(path, data, statOrUndefined(path), options)

export interface WriteOptions {
  /** Make missing parent directories (default true); `lait run -o` leaves a typo'd directory an error. */
  readonly createDirs?: boolean
  /** The new file's mode; by default a replaced file keeps its own, a new one gets 0644. */
  readonly mode?: number
}

/** `existing`: the target's stat, taken once by the caller. */
const replaceAtomically = (
  path: string,
  data: string | Uint8Array,
  existing: Files.Stats | undefined,
  options: WriteOptions
): void => {
  const dir = nodePath.dirname(path)
  if (options.createDirs !== false) fs.mkdirSync(dir, { recursive: true })
  // Renaming onto a directory fails with a less telling error (and leaves the temp file to clean up);
  // report what a plain write would.
  if (existing?.isDirectory() === true) {
    throw osError("EISDIR", "illegal operation on a directory")
  }
  const base = nodePath.basename(path)
  let tmp = ""
  let fd = -1
  for (let attempt = 0; fd < 0; attempt++) {
    tmp = nodePath.join(dir, `${base}.${process.pid}.${tempCounter++}.tmp`)
    try {
      // A file being replaced keeps its permissions (an executable script stays executable).
      fd = fs.openSync(tmp, "wx", options.mode ?? (existing === undefined ? 0o644 : existing.mode & 0o7777))
    } catch (e) {
      if (errnoOf(e) !== "EEXIST" || attempt > 1000) throw e
    }
  }
  try {
    const bytes = typeof data === "string" ? Buffer.from(data, "utf8") : data
    let written = 0
    while (written < bytes.length) written += fs.writeSync(fd, bytes, written, bytes.length - written)
    fs.closeSync(fd)
    fd = -1
    fs.renameSync(tmp, path)
  } catch (e) {
    if (fd >= 0) fs.closeSync(fd)
    fs.rmSync(tmp, { force: true })
    throw e
  }
}

const MAX_SYMLINK_HOPS = 40

/**
 * The file a write to `path` lands in: symlinks followed (a dangling one to the path it names), as an
 * open(2) for writing would; renaming onto the link itself would replace the link with a file.
 * Undefined when the path names an open descriptor (/dev/stdout, /dev/fd/N, /proc/self/fd/N): that
 * is written in place, since replacing the file behind it would cut it off from the descriptor.
 */
const writeTarget = (path: string): string | undefined => {
  let current = path
  for (let hops = 0; hops < MAX_SYMLINK_HOPS; hops++) {
    let dir: string
    let target: string
    try {
      dir = fs.realpathSync(nodePath.dirname(current))
      if (dir === "/proc" || dir.startsWith("/proc/")) return undefined
      target = fs.readlinkSync(current)
    } catch {
      // EINVAL (not a link), ENOENT (a new file): write here; anything else is for the write to report.
      return current
    }
    current = nodePath.resolve(dir, target)
  }
  throw Object.assign(new Error("ELOOP: too many symbolic links encountered"), { code: "ELOOP" })
}

/**
 * Writes a file for the user: a FIFO or device in place and interruptibly (`writeStream`), anything
 * else through a temp file and a rename, so a failed write (full disk, `ulimit -f`) leaves the old
 * file whole. A symlink is written through: its target is replaced, the link stays. Fails with the
 * OS error; callers word it.
 */
export const writeUserFile = (
  path: string,
  data: string | Uint8Array,
  options: WriteOptions = {}
): Effect.Effect<void, unknown> =>
  Effect.suspend(() => {
    const existing = statOrUndefined(path)
    if (isStream(existing)) return writeStream(path, data)
    return Effect.try({ try: () => writeTarget(path), catch: (e) => e }).pipe(
      Effect.flatMap((target) =>
        target === undefined
          ? writeStream(path, data)
          : Effect.try({ try: () => replaceAtomically(target, data, existing, options), catch: (e) => e })
      )
    )
  })

/**
 * Why `writeUserFile(path, …, options)` is bound to fail, as the OS error it would meet, or undefined.
 * For commands that check where their result goes before doing costly work; the file system may still
 * change in between, so the write itself reports its own failure too.
 */
export const writeTargetProblem = (path: string, options: WriteOptions = {}): unknown => {
  let existing: Files.Stats | undefined
  try {
    existing = fs.statSync(path)
  } catch (e) {
    if (errnoOf(e) !== "ENOENT") return e
  }
  if (existing?.isDirectory() === true) return osError("EISDIR", "illegal operation on a directory")
  if (isStream(existing)) return undefined
  // A temp file is created next to the target: the nearest existing directory must take it.
  let dir = nodePath.dirname(path)
  for (;;) {
    try {
      if (!fs.statSync(dir).isDirectory()) return osError("ENOTDIR", "not a directory")
      fs.accessSync(dir, fs.constants.W_OK | fs.constants.X_OK)
      return undefined
    } catch (e) {
      const parent = nodePath.dirname(dir)
      if (errnoOf(e) !== "ENOENT" || options.createDirs === false || parent === dir) return e
      dir = parent
    }
  }
}

const writeAtomic = Effect.fn("FileLoader.writeAtomic")(function*(path: string, data: string | Uint8Array) {
  yield* writeUserFile(path, data).pipe(
    Effect.mapError((e) =>
      new FileError({
        reason: isPermission(e)
          ? { _tag: "PermissionDenied", path, access: "write" }
          : { _tag: "WriteFailed", path, detail: describeOsError(e) }
      })
    )
  )
})

const stdinFailed = (detail: string) => new FileError({ reason: { _tag: "StdinFailed", detail } })

const stdinLimit = `stdin exceeds the configured read limit of ${READ_LIMIT} bytes`

const decodeStdin = (bytes: Uint8Array): string | undefined => {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes).replace(/[\r\n]+$/, "")
  } catch {
    return undefined
  }
}

const stdinInvalid = "stream did not contain valid UTF-8"

const readStdinStream: Effect.Effect<string, FileError> = readStdinEvents<string>((settle) => {
  const chunks: Array<Buffer> = []
  let total = 0
  const failWith = (detail: string) => settle(Effect.fail(stdinFailed(detail)))
  return {
    onData: (chunk) => {
      const bytes = typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk
      total += bytes.length
      if (total > READ_LIMIT) return failWith(stdinLimit)
      chunks.push(bytes)
    },
    onEnd: () => {
      const text = decodeStdin(Buffer.concat(chunks))
      if (text === undefined) failWith(stdinInvalid)
      else settle(Effect.succeed(text))
    }
  }
}, (error) => error instanceof Error ? error.message : String(error))

/**
 * All of stdin as UTF-8 (capped like any file read), without its trailing newlines. Not through the
 * descriptor reads above: an anonymous pipe whose writer already closed reads like a FIFO still
 * waiting for one.
 * A regular file or /dev/null is read at once (Files.readPlainStdin); anything else through the stream.
 */
const readStdin: Effect.Effect<string, FileError> = Effect.suspend(() => {
  const plain = redirectedStdin() ?? Files.readPlainStdin(READ_LIMIT)
  if (plain === undefined) return readStdinStream
  if ("error" in plain) {
    return Effect.fail(stdinFailed(plain.error instanceof Error ? plain.error.message : String(plain.error)))
  }
  if (plain.bytes.length > READ_LIMIT) return Effect.fail(stdinFailed(stdinLimit))
  const text = decodeStdin(plain.bytes)
  return text === undefined ? Effect.fail(stdinFailed(stdinInvalid)) : Effect.succeed(text)
})

export class FileLoader extends Context.Service<FileLoader, FileLoaderService>()("lait/platform/FileLoader") {
  /** The service itself, for a caller that provides it without building a layer (the lean run path). */
  static readonly live: FileLoaderService = {
    readText,
    readBytes,
    writeAtomic,
    writeInPlace: (path, data) =>
      writeStream(path, data).pipe(
        Effect.mapError((e) => new FileError({ reason: { _tag: "WriteFailed", path, detail: describeOsError(e) } }))
      ),
    readStdin,
    ...fileOps
  }

  static readonly layer = Layer.succeed(FileLoader, FileLoader.live)
}
