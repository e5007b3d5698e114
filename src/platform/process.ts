// Every child process lait starts: `run:` steps and shell tools (`runCommand`), `api_key_cmd` and
// stdio MCP servers (`spawnGroup`). Each child leads its own process group so that a failure, a
// timeout, a cancelled run or Ctrl-C can kill the whole tree it started (a `sh -c` that forked
// workers included), not just the direct child. No shell: argv goes to posix_spawn as is.
// Not Effect's ChildProcessSpawner: it kills groups with a grace period, but only from a scope's
// finalizer, and `process.exit` on a second shutdown signal runs none; the exit hook below does.
import { Effect, Exit } from "effect"
import type * as ChildProcesses from "node:child_process"
import type { ChildProcess } from "node:child_process"
import * as os from "node:os"
import { osErrorText } from "../core/osError.ts"
import { CommandFailure } from "./commandFailure.ts"

/** Per stream; the same budget as file reads (upstream MAX_COMMAND_OUTPUT_BYTES). */
export const COMMAND_OUTPUT_LIMIT = 16 * 1024 * 1024

export interface CommandRequest {
  readonly argv: ReadonlyArray<string>
  readonly stdin: string
  /** When set, the child's whole environment. */
  readonly env?: Readonly<Record<string, string>>
  readonly cwd?: string
}

// Re-exported: the step modules and `run -o` word OS errors the same way.
export { osErrorText }

// Process groups of children still running, killed when lait exits for any reason. The finalizers
// handle every orderly path; this covers `process.exit` on a second shutdown signal, which runs no
// finalizers. It is process-wide on purpose (it mirrors the OS process table), not run state.
const liveGroups = new Set<number>()
let exitHookInstalled = false

const signalGroup = (pid: number, signal: "SIGTERM" | "SIGKILL"): void => {
  try {
    process.kill(-pid, signal)
  } catch {
    // ESRCH: the group is already gone.
  }
}

const killGroup = (pid: number): void => signalGroup(pid, "SIGKILL")

const trackGroup = (pid: number): void => {
  if (!exitHookInstalled) {
    exitHookInstalled = true
    process.on("exit", () => {
      for (const group of liveGroups) killGroup(group)
    })
  }
  liveGroups.add(pid)
}

export interface SpawnOptions {
  /** When set, the child's whole environment. */
  readonly env?: Readonly<Record<string, string>> | undefined
  readonly cwd?: string | undefined
  readonly stdio: readonly ["pipe" | "ignore", "pipe", "pipe" | "inherit"]
}

// Fetched at the first spawn: most runs start no process, and evaluating node:child_process costs
// about a millisecond of every start-up.
const childProcesses = () => process.getBuiltinModule("node:child_process") as typeof ChildProcesses

/** A started child leading its own process group, tracked by the exit hook until stopped. */
export interface GroupChild {
  readonly child: ChildProcess
  readonly pid: number
  /** Resolves when the direct child has exited (its pipes may still be open). */
  readonly exited: Promise<void>
  /** SIGKILL to the whole group at once. */
  readonly kill: () => void
  /** SIGTERM to the group, up to `graceMs` for the child to exit, then SIGKILL to what is left. */
  readonly terminate: (graceMs: number) => Promise<void>
  /** Stops tracking a group left running on purpose (a finished command's background work). */
  readonly forget: () => void
}

/**
 * Starts `program` in its own process group. Rejects with the OS error when it cannot be started.
 * node:child_process rather than Bun.spawn: the same sources also run under Deno.
 */
export const spawnGroup = (program: string, args: ReadonlyArray<string>, options: SpawnOptions): Promise<GroupChild> =>
  new Promise((resolve, reject) => {
    const child = childProcesses().spawn(program, [...args], {
      ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
      ...(options.env !== undefined ? { env: { ...options.env } } : {}),
      stdio: [...options.stdio],
      detached: true
    })
    child.once("error", reject)
    child.once("spawn", () => {
      child.off("error", reject)
      const pid = child.pid!
      trackGroup(pid)
      const exited = new Promise<void>((done) => {
        if (child.exitCode !== null || child.signalCode !== null) done()
        else child.once("exit", () => done())
      })
      const kill = () => {
        killGroup(pid)
        liveGroups.delete(pid)
      }
      const terminate = async (graceMs: number) => {
        signalGroup(pid, "SIGTERM")
        let timer: ReturnType<typeof setTimeout> | undefined
        await Promise.race([exited, new Promise((done) => (timer = setTimeout(done, graceMs)))])
        clearTimeout(timer)
        // Descendants that ignored SIGTERM, or outlived the direct child, go now.
        kill()
      }
      resolve({ child, pid, exited, kill, terminate, forget: () => liveGroups.delete(pid) })
    })
  })

/**
 * How long an interrupted command (Ctrl-C, a step timeout, a cancelled run, a failed sibling) gets
 * between SIGTERM and SIGKILL to clean up. A second signal does not wait: lait exits and the exit
 * hook above kills whatever is left.
 */
export const TERMINATION_GRACE_MS = 2000

/**
 * How long lait still waits for the end of a command's output once the command itself has exited.
 * Output pipes held open by something it left running (`sh -c 'server & echo started'`) would
 * otherwise keep the step waiting as long as that runs; when the time is up, lait keeps what it read
 * and kills the command's process group, which stops those leftovers.
 */
export const OUTPUT_EOF_GRACE_MS = 1000

/** A failed command's error message carries at most this much of the end of its stderr (-v logs all of it). */
export const STDERR_TAIL_BYTES = 2048

class StreamOverflow extends Error {
  constructor(readonly stream: "stdout" | "stderr") {
    super(`command ${stream} output exceeds the configured limit of ${COMMAND_OUTPUT_LIMIT} bytes`)
  }
}

interface Captured {
  readonly status: string
  readonly success: boolean
  readonly stdout: Uint8Array
  readonly stderr: Uint8Array
}

const exitStatusText = (code: number | null, signal: string | null): string => {
  if (code !== null) return `exit status: ${code}`
  const number = signal === null ? undefined : (os.constants.signals as Record<string, number>)[signal]
  return number === undefined ? `signal: ${signal ?? "unknown"}` : `signal: ${number} (${signal})`
}

const utf8 = new TextDecoder("utf-8", { fatal: true })
const lossy = new TextDecoder("utf-8")

/** Removes one line ending: `\r\n` counts as one; further trailing newlines are output. */
export const stripOneLineEnding = (text: string): string => {
  if (text.endsWith("\r\n")) return text.slice(0, -2)
  if (text.endsWith("\n") || text.endsWith("\r")) return text.slice(0, -1)
  return text
}

/**
 * The end of a failed command's stderr for its error message: all of it up to STDERR_TAIL_BYTES, else
 * the last STDERR_TAIL_BYTES (from a character boundary) after a note of what was left out.
 */
const stderrTail = (stderr: string): string => {
  const bytes = Buffer.from(stderr, "utf8")
  if (bytes.length <= STDERR_TAIL_BYTES) return stderr
  let start = bytes.length - STDERR_TAIL_BYTES
  while (start < bytes.length && (bytes[start]! & 0xc0) === 0x80) start++
  const tail = bytes.subarray(start).toString("utf8").trimStart()
  return `[last ${Buffer.byteLength(tail, "utf8")} of ${bytes.length} bytes of stderr; -v shows all] ${tail}`
}

/** A started command: its process group and what it produced. */
interface Running extends GroupChild {
  /** Resolves when it has exited and both pipes are closed; rejects on an overflowing stream. */
  readonly finished: Promise<Captured>
}

const start = async (request: CommandRequest): Promise<Running> => {
  const [program = "", ...args] = request.argv
  const group = await spawnGroup(program, args, {
    cwd: request.cwd,
    env: request.env,
    stdio: ["pipe", "pipe", "pipe"]
  })
  const { child, pid, exited } = group
  const finished = new Promise<Captured>((done, fail) => {
    const chunks = { stdout: [] as Array<Buffer>, stderr: [] as Array<Buffer> }
    const sizes = { stdout: 0, stderr: 0 }
    let overflowed = false
    const collect = (name: "stdout" | "stderr") => (chunk: Buffer) => {
      if (overflowed) return
      sizes[name] += chunk.length
      if (sizes[name] > COMMAND_OUTPUT_LIMIT) {
        overflowed = true
        killGroup(pid)
        fail(new StreamOverflow(name))
        return
      }
      chunks[name].push(chunk)
    }
    child.stdout!.on("data", collect("stdout"))
    child.stderr!.on("data", collect("stderr"))
    let lingering: ReturnType<typeof setTimeout> | undefined
    let closed = false
    void exited.then(() => {
      if (closed) return
      lingering = setTimeout(() => {
        killGroup(pid)
        // A process that left the group may still hold a pipe: stop reading rather than wait for it.
        child.stdout!.destroy()
        child.stderr!.destroy()
      }, OUTPUT_EOF_GRACE_MS)
    })
    child.once("close", (code, signal) => {
      closed = true
      clearTimeout(lingering)
      if (overflowed) return
      done({
        status: exitStatusText(code, signal),
        success: code === 0,
        stdout: Buffer.concat(chunks.stdout),
        stderr: Buffer.concat(chunks.stderr)
      })
    })
  })
  // A command that exits without reading its stdin closes the pipe under us (EPIPE): not an error.
  child.stdin!.on("error", () => undefined)
  child.stdin!.end(Buffer.from(request.stdin, "utf8"))
  return { ...group, finished }
}

/**
 * A finished command keeps whatever it left running in the background, as upstream does (except what
 * still held its output pipes OUTPUT_EOF_GRACE_MS after it exited: that was killed already). A failed
 * one (output over the cap) is killed outright; an interrupted one is asked to stop first.
 */
const release = (running: Running, exit: Exit.Exit<unknown, unknown>): Effect.Effect<void> => {
  const { child } = running
  if (Exit.isSuccess(exit)) return Effect.sync(running.forget)
  if (Exit.hasFails(exit) || child.exitCode !== null || child.signalCode !== null) return Effect.sync(running.kill)
  return Effect.promise(() => running.terminate(TERMINATION_GRACE_MS))
}

/**
 * Runs the command to completion and returns its stdout (UTF-8, one trailing line ending removed).
 * Interruption stops the process group before the effect completes.
 */
export const runCommand = (request: CommandRequest): Effect.Effect<string, CommandFailure> => {
  const program = request.argv[0] ?? "<empty>"
  return Effect.acquireUseRelease(
    Effect.tryPromise({
      try: () => start(request),
      catch: (e) =>
        new CommandFailure({ reason: { _tag: "CommandFailed", program, stage: "spawn", detail: osErrorText(e) } })
    }),
    (running) =>
      Effect.tryPromise({
        try: () => running.finished,
        catch: (e) =>
          e instanceof StreamOverflow
            ? new CommandFailure({ reason: { _tag: "CommandOutputTooLarge", stream: e.stream, detail: e.message } })
            : new CommandFailure({ reason: { _tag: "CommandFailed", program, stage: "wait", detail: osErrorText(e) } })
      }),
    release
  ).pipe(
    Effect.flatMap((captured) => {
      if (!captured.success) {
        const stderr = lossy.decode(captured.stderr).trim()
        const shown = stderrTail(stderr)
        const failure = new CommandFailure({
          reason: { _tag: "CommandExited", program, status: captured.status, stderr: shown }
        })
        return shown === stderr
          ? Effect.fail(failure)
          : Effect.logDebug(`stderr of command '${program}':\n${stderr}`).pipe(Effect.andThen(Effect.fail(failure)))
      }
      return Effect.try({
        try: () => stripOneLineEnding(utf8.decode(captured.stdout)),
        catch: () =>
          new CommandFailure({ reason: { _tag: "CommandNotUtf8", program } })
      })
    })
  )
}
