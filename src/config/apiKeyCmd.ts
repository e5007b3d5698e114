// Runs `api_key_cmd` (a secrets-manager CLI) just before the first request that needs its key.
// Secret-manager tools often echo account names or even the secret on stderr, so stderr is read only to
// enforce its size cap and is never kept, logged or put in an error. The child runs in its own process
// group so a timeout, an output cap or an interruption kills the whole tree (`sh -c` plus whatever it
// started), not just the shell.
import { Effect, Redacted, Semaphore } from "effect"
import type { Env } from "./env.ts"
import { ConfigError } from "./configErrors.ts"
import { addSecrets } from "../core/redaction.ts"
import { type GroupChild, spawnGroup } from "../platform/process.ts"
import type { CommandSpec } from "./schema.ts"

export const API_KEY_CMD_TIMEOUT_MILLIS = 30_000
export const API_KEY_CMD_MAX_OUTPUT_BYTES = 64 * 1024

export interface ApiKeyCmdOptions {
  readonly timeoutMillis?: number
  /** Cap for stdout and (separately) stderr. */
  readonly maxOutputBytes?: number
  readonly cwd?: string
  /** The child's environment; defaults to `process.env`. */
  readonly env?: Env
  /** The commands of the user's global config file and the environment they run with instead of `env`. */
  readonly global?: GlobalKeyCmds
}

/**
 * The global config file's `api_key_cmd`s (by `JSON.stringify` of the command) and the environment
 * lait started with: a checkout's `.env` must not reach a command of the user's own file (it could
 * set what the command's secrets-manager CLI trusts). A command is told by its text, so one the
 * project file repeats runs the same way, and the per-process cache never mixes environments.
 */
export interface GlobalKeyCmds {
  readonly commands: ReadonlySet<string>
  readonly env: Env
}

/** The environment `spec` runs with under `options`. */
const envFor = (spec: CommandSpec, options: ApiKeyCmdOptions | undefined): Env =>
  options?.global !== undefined && options.global.commands.has(JSON.stringify(spec))
    ? options.global.env
    : options?.env ?? process.env

const fail = (detail: string) => Effect.fail(new ConfigError({ reason: { _tag: "ApiKeyCmd", detail } }))

const argvOf = (spec: CommandSpec): ReadonlyArray<string> =>
  typeof spec === "string"
    ? (process.platform === "win32" ? ["cmd", "/C", spec] : ["sh", "-c", spec])
    : spec

const describeSpawnError = (e: unknown): string => {
  const code = typeof e === "object" && e !== null && "code" in e ? String(e.code) : undefined
  if (code === "ENOENT") return "no such file or directory"
  if (code === "EACCES") return "permission denied"
  return code ?? "unknown error"
}

const formatMillis = (ms: number) => (ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`)

const utf8 = new TextDecoder("utf-8", { fatal: true })

/** Runs the command once (no cache) and returns its stdout minus one trailing line ending. */
export const runApiKeyCmd = (
  spec: CommandSpec,
  options?: ApiKeyCmdOptions
): Effect.Effect<Redacted.Redacted<string>, ConfigError> => {
  const argv = argvOf(spec)
  const program = argv[0]
  if (program === undefined) return fail("api_key_cmd's command list must not be empty")
  const timeoutMillis = options?.timeoutMillis ?? API_KEY_CMD_TIMEOUT_MILLIS
  const maxBytes = options?.maxOutputBytes ?? API_KEY_CMD_MAX_OUTPUT_BYTES
  const env = Object.fromEntries(
    Object.entries(envFor(spec, options)).filter((e): e is [string, string] => e[1] !== undefined)
  )
  return Effect.callback<Redacted.Redacted<string>, ConfigError>((resume) => {
    let settled = false
    let timer: ReturnType<typeof setTimeout> | undefined
    const settle = (effect: Effect.Effect<Redacted.Redacted<string>, ConfigError>) => {
      if (settled) return
      settled = true
      if (timer !== undefined) clearTimeout(timer)
      resume(effect)
    }
    let group: GroupChild | undefined
    const killTree = () => group?.kill()
    const started = (running: GroupChild) => {
      group = running
      // Interrupted or timed out while it was starting: nothing waits for it any more.
      if (settled) return killTree()
      const child = running.child
      const stdout: Array<Buffer> = []
      let stdoutBytes = 0
      let stderrBytes = 0
      child.stdout!.on("data", (chunk: Buffer) => {
        stdoutBytes += chunk.length
        if (stdoutBytes > maxBytes) {
          killTree()
          settle(fail(`api_key_cmd's stdout exceeded the limit of ${maxBytes} bytes`))
        } else {
          stdout.push(chunk)
        }
      })
      child.stderr!.on("data", (chunk: Buffer) => {
        stderrBytes += chunk.length
        if (stderrBytes > maxBytes) {
          killTree()
          settle(fail(`api_key_cmd's stderr exceeded the limit of ${maxBytes} bytes`))
        }
      })
      child.on("error", (e) => {
        killTree()
        settle(fail(`failed to run api_key_cmd '${program}': ${describeSpawnError(e)}`))
      })
      child.on("close", (code, signal) => {
        running.forget()
        if (code !== 0) {
          settle(
            fail(
              code === null
                ? `api_key_cmd was terminated by signal ${signal ?? "unknown"}`
                : `api_key_cmd exited with status ${code}`
            )
          )
          return
        }
        let text: string
        try {
          text = utf8.decode(Buffer.concat(stdout))
        } catch {
          settle(fail("api_key_cmd's output was not valid UTF-8"))
          return
        }
        const key = text.replace(/\r?\n$/, "")
        settle(key.length === 0 ? fail("api_key_cmd produced no output") : Effect.succeed(Redacted.make(key)))
      })
    }
    spawnGroup(program, argv.slice(1), { cwd: options?.cwd ?? process.cwd(), env, stdio: ["ignore", "pipe", "pipe"] })
      .then(started, (e: unknown) => settle(fail(`failed to run api_key_cmd '${program}': ${describeSpawnError(e)}`)))
    // Detached children keep running when we stop waiting; every way out kills the group.
    timer = setTimeout(() => {
      killTree()
      settle(fail(`api_key_cmd timed out after ${formatMillis(timeoutMillis)}`))
    }, timeoutMillis)
    return Effect.sync(() => {
      if (!settled) {
        settled = true
        if (timer !== undefined) clearTimeout(timer)
        killTree()
      }
    })
  })
}

// Per-process cache keyed by the command itself. Only successes are stored, so a failed attempt (a
// locked vault, a network hiccup) is retried by the next request. The per-command lock makes
// concurrent first requests run the command once.
const cache = new Map<string, Redacted.Redacted<string>>()
const locks = new Map<string, Semaphore.Semaphore>()

/** `runApiKeyCmd`, cached for the life of the process (successes only). */
export const resolveApiKeyCmd = (
  spec: CommandSpec,
  options?: ApiKeyCmdOptions
): Effect.Effect<Redacted.Redacted<string>, ConfigError> =>
  Effect.suspend(() => {
    const key = JSON.stringify(spec)
    let lock = locks.get(key)
    if (lock === undefined) {
      lock = Semaphore.makeUnsafe(1)
      locks.set(key, lock)
    }
    return lock.withPermits(1)(
      Effect.suspend(() => {
        const hit = cache.get(key)
        if (hit !== undefined) return Effect.succeed(hit)
        // The key is a secret of the run from now on (src/core/redaction.ts).
        return Effect.tap(runApiKeyCmd(spec, options), (secret) =>
          Effect.sync(() => {
            cache.set(key, secret)
            addSecrets([Redacted.value(secret)])
          }))
      })
    )
  })

/**
 * Forgets every key an `api_key_cmd` gave. For a run inside a test's process (src/cli/inProcess.ts),
 * which starts, as a new lait process does, with none: its commands may see another environment.
 */
export const forgetApiKeyCmdKeys = (): void => cache.clear()

/**
 * Every key an `api_key_cmd` gave this process: what a file written after the run (the history) must
 * mask besides the keys written in the config and the environment.
 */
export const resolvedApiKeyCmdKeys = (): ReadonlyArray<string> => [...cache.values()].map((k) => Redacted.value(k))
