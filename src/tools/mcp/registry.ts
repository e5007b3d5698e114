// The MCP servers of one run (docs/config.md#mcp_servers, docs/workflows.md#mcp-servers). A server
// is started the first time a step that lists it needs its tools, so servers nobody references
// never start; its connection and its tool list are then shared by every step, branch and subagent
// of the run. Both live in ScopedCaches keyed by server name, owned by the run's scope: closing it
// stops every server (the whole process tree for stdio) when the run ends, fails or is interrupted
// by Ctrl-C. A failed start or listing is not cached, so the next user tries again. A call that
// fails, times out or is interrupted drops its connection, so a retry never shares a server with a
// call that may still be running. With a recording or replaying tape (src/tools/cassette), lists and
// calls go through it; a replaying one answers them all, so no server is ever started.
import { Duration, Effect, Exit, Fiber, type Scope, ScopedCache } from "effect"
import * as nodePath from "node:path"
import type { McpServer } from "../../config/schema.ts"
import { type Env, expandList, expandMap, expandVars } from "../../config/env.ts"
import { ConfigError } from "../../config/configErrors.ts"
import { type AnyLaitError, renderChain } from "../../core/errors.ts"
import { McpError, type McpErrorReason, ToolError } from "../toolErrors.ts"
import { osErrorText } from "../../core/osError.ts"
import { headerSecrets, redactSecrets } from "../../core/secrets.ts"
import { urlCredentials } from "../../core/urls.ts"
import type { ToolTape } from "../cassette/ToolCassettes.ts"
import { qualifyToolName } from "../names.ts"
import { toolDefinition, type ToolEntry } from "../types.ts"
import type { McpConnection } from "./protocol.ts"
import { errorText, isTimeout, listTools, MAX_TOTAL_TOOLS, type McpTool, renderToolResult } from "./protocol.ts"
import { parseJsonText } from "../../core/jsonDepth.ts"

export const MCP_IO_TIMEOUT_MS = 300_000

export interface McpRegistryOptions {
  readonly servers: Readonly<Record<string, McpServer>> | undefined
  /** `${VAR}` values and the base environment of stdio servers. */
  readonly env: Env
  /** Relative `cwd:` values are resolved against this. */
  readonly cwd: string
  /** Where a stdio server without `cwd:` starts; undefined: the process's directory. */
  readonly defaultCwd?: string
  /** The I/O timeout of every handshake, page and call (default 300 s); tests shorten it. */
  readonly timeoutMs?: number
  /** Records or replays tool lists and calls; when replaying, no server is ever started. */
  readonly tape?: ToolTape
}

export interface McpRegistry {
  /** The running connection to `name`, started on first use; concurrent first users share one start. */
  readonly connection: (name: string) => Effect.Effect<McpConnection, AnyLaitError>
  /** `name`'s tools (every page), listed once per run. */
  readonly tools: (name: string) => Effect.Effect<ReadonlyArray<McpTool>, AnyLaitError>
  /** Runs one `tools/call` after checking the server's `allowed_tools`. */
  readonly call: (server: string, tool: string, qualified: string, args: string) => Effect.Effect<string, AnyLaitError>
  /** The tool entries of the servers in `names` (in list order, each server's tools in its order). */
  readonly entries: (names: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<ToolEntry>, AnyLaitError>
}

type Spec =
  | {
    readonly kind: "stdio"
    readonly command: string
    readonly args: ReadonlyArray<string>
    readonly env: Readonly<Record<string, string>>
    readonly cwd: string | undefined
  }
  | { readonly kind: "http"; readonly url: string; readonly headers: Readonly<Record<string, string>> }

/** A started server as the cache holds it; `dropped` once a failed call has closed it. */
interface Live {
  readonly connection: McpConnection
  readonly close: Effect.Effect<void>
  dropped: boolean
}

const fail = (reason: McpErrorReason) => Effect.fail(new McpError({ reason }))

const isSpawnFailure = (error: unknown): boolean =>
  typeof error === "object" && error !== null && "syscall" in error &&
  String((error as { syscall: unknown }).syscall).startsWith("spawn")

/** Failures are not cached: the entry expires at once, and the next `get` starts over. */
const untilFailure = (exit: Exit.Exit<unknown, unknown>): Duration.Duration =>
  Exit.isSuccess(exit) ? Duration.infinity : Duration.zero

/** Blank and `null` mean no arguments; anything else must be a JSON object. */
const parseArguments = (
  qualified: string,
  raw: string
): Effect.Effect<Record<string, unknown> | undefined, McpError> => {
  if (raw.trim() === "") return Effect.succeed(undefined)
  let value: unknown
  try {
    value = parseJsonText(raw)
  } catch (e) {
    return fail({ _tag: "ArgumentsNotJson", qualified, detail: errorText(e) })
  }
  if (value === null) return Effect.succeed(undefined)
  if (typeof value !== "object" || Array.isArray(value)) {
    return fail({ _tag: "ArgumentsNotObject", qualified, got: JSON.stringify(value) })
  }
  return Effect.succeed(value as Record<string, unknown>)
}

const resolveSpec = (
  name: string,
  server: McpServer,
  options: McpRegistryOptions
): Effect.Effect<Spec, McpError> =>
  Effect.gen(function*() {
    const env = options.env
    if (server.command !== undefined && server.url !== undefined) {
      return yield* new ConfigError({ reason: { _tag: "McpTransport", server: name, problem: "both" } })
    }
    if (server.command !== undefined) {
      const base: Record<string, string> = {}
      for (const [k, v] of Object.entries(env)) if (v !== undefined) base[k] = v
      const cwd = server.cwd === undefined
        ? options.defaultCwd
        : nodePath.resolve(options.cwd, yield* expandVars(server.cwd, env))
      return {
        kind: "stdio" as const,
        command: yield* expandVars(server.command, env),
        args: yield* expandList(server.args ?? [], env),
        env: { ...base, ...(yield* expandMap(server.env ?? {}, env)) },
        cwd
      }
    }
    if (server.url !== undefined) {
      const headers = yield* expandMap(server.headers ?? {}, env)
      for (const key of Object.keys(headers)) {
        try {
          new Headers([[key, headers[key]!]])
        } catch {
          return yield* new ConfigError({ reason: { _tag: "McpHeader", server: name, key } })
        }
      }
      return { kind: "http" as const, url: yield* expandVars(server.url, env), headers }
    }
    return yield* new ConfigError({ reason: { _tag: "McpTransport", server: name, problem: "neither" } })
  }).pipe(
    Effect.mapError((e) => new McpError({ reason: { _tag: "InvalidConfig", server: name, detail: renderChain(e) } }))
  )

/** The registry of one run; its servers stop when the current scope closes. */
export const makeMcpRegistry = (options: McpRegistryOptions): Effect.Effect<McpRegistry, never, Scope.Scope> =>
  Effect.gen(function*() {
    const timeoutMs = options.timeoutMs ?? MCP_IO_TIMEOUT_MS
    const tape = options.tape?.mode === "live" ? undefined : options.tape
    const scope = yield* Effect.scope
    /** Per HTTP server: its header values and URL credentials, which its error answers may repeat. */
    const secrets = new Map<string, ReadonlyArray<string>>()

    /** `errorText` of a failure of server `name`, with its secrets masked. */
    const failureText = (name: string, error: unknown): string =>
      redactSecrets(errorText(error), secrets.get(name) ?? [])

    const connectError = (name: string, spec: Spec, error: unknown): McpError =>
      new McpError({
        reason: spec.kind === "stdio" && isSpawnFailure(error)
          ? { _tag: "SpawnFailed", server: name, command: spec.command, detail: osErrorText(error) }
          : isTimeout(error)
          ? { _tag: "Timeout", server: name, timeoutMs }
          : { _tag: "InitFailed", server: name, detail: failureText(name, error) }
      })

    // Runs in the cache entry's scope: closing it (the end of the run, or a failed start being replaced)
    // stops the server.
    const start = Effect.fnUntraced(function*(name: string) {
      const server = options.servers?.[name]
      if (server === undefined) return yield* fail({ _tag: "UnknownServer", server: name })
      const spec = yield* resolveSpec(name, server, options)
      if (spec.kind === "http") {
        secrets.set(name, [...headerSecrets(Object.values(spec.headers)), ...urlCredentials(spec.url)])
      }
      yield* Effect.logDebug(`starting MCP server '${name}'`)
      // The connection hands over its close before the handshake (the process exists from then on); a
      // scope that closed before that, while the SDK was still loading, stops it as soon as it does.
      let close: (() => Promise<void>) | undefined
      let stopping: Promise<void> | undefined
      let released = false
      const stop = (): Promise<void> => close === undefined ? Promise.resolve() : (stopping ??= close())
      yield* Effect.addFinalizer(() =>
        Effect.promise(() => {
          released = true
          return stop()
        })
      )
      const client = yield* Effect.promise(() => import("./client.ts"))
      const connectOptions = {
        timeoutMs,
        onOpen: (opened: () => Promise<void>) => {
          close = opened
          if (released) void stop()
        }
      }
      const connection = yield* Effect.tryPromise({
        try: () =>
          spec.kind === "stdio"
            ? client.connectStdio(
              { command: spec.command, args: spec.args, env: spec.env, cwd: spec.cwd },
              connectOptions
            )
            : client.connectHttp(spec.url, spec.headers, connectOptions),
        catch: (error) => connectError(name, spec, error)
      })
      return { connection, close: Effect.promise(stop), dropped: false } satisfies Live
    })

    const connections = yield* ScopedCache.makeWith({
      lookup: start,
      capacity: Number.POSITIVE_INFINITY,
      timeToLive: untilFailure
    })

    /**
     * Runs `effect` (a wait on a start or listing of server `name`) in the registry's scope. A user that
     * gives up (a step's timeout, a failed sibling branch) leaves the start running for the next one: a
     * retried step can then use a server that takes longer to start than one attempt may last.
     */
    const shared = <A, E>(name: string, effect: Effect.Effect<A, E>): Effect.Effect<A, E | McpError> =>
      connections.state._tag === "Closed" || toolLists.state._tag === "Closed"
        ? fail({ _tag: "Stopping", server: name })
        : Effect.flatMap(Effect.forkIn(effect, scope), Fiber.join)

    const live = (name: string): Effect.Effect<Live, McpError> =>
      shared(
        name,
        Effect.gen(function*() {
          for (;;) {
            const current = yield* ScopedCache.get(connections, name)
            if (!current.dropped) return current
            yield* ScopedCache.invalidateWhen(connections, name, (entry) => entry.dropped)
          }
        })
      )

    /** Closes `entry` (the next user of its server starts a new one) and waits until it is stopped. */
    const drop = (entry: Live): Effect.Effect<void> =>
      Effect.suspend(() => {
        entry.dropped = true
        return entry.close
      })

    const listLive = (name: string) =>
      Effect.gen(function*() {
        const entry = yield* live(name)
        return yield* listTools(entry.connection, timeoutMs).pipe(
          Effect.catch((error) =>
            Effect.andThen(drop(entry), fail({ _tag: "ListFailed", server: name, detail: failureText(name, error) }))
          )
        )
      })

    const toolLists = yield* ScopedCache.makeWith({
      lookup: (name: string): Effect.Effect<ReadonlyArray<McpTool>, AnyLaitError> =>
        tape === undefined
          ? listLive(name)
          // The tape checked the shape of a replayed list (objects with a string `name`).
          : tape.list(name, listLive(name), () => secrets.get(name) ?? []) as Effect.Effect<
            ReadonlyArray<McpTool>,
            AnyLaitError
          >,
      capacity: Number.POSITIVE_INFINITY,
      timeToLive: untilFailure
    })

    const tools = (name: string): Effect.Effect<ReadonlyArray<McpTool>, AnyLaitError> =>
      shared(name, ScopedCache.get(toolLists, name))

    const call = (server: string, tool: string, qualified: string, args: string) =>
      Effect.gen(function*() {
        const allowed = options.servers?.[server]?.allowed_tools
        if (allowed !== undefined && !allowed.includes(tool)) return yield* fail({ _tag: "NotAllowed", server, tool })
        const parsed = yield* parseArguments(qualified, args)
        const run = callLive(server, tool, parsed)
        return yield* (tape === undefined ? run : tape.call(qualified, args, run, () => secrets.get(server) ?? []))
      })

    const callLive = (server: string, tool: string, parsed: Record<string, unknown> | undefined) =>
      Effect.gen(function*() {
        const entry = yield* live(server)
        const connection = entry.connection
        const result = yield* Effect.tryPromise({
          try: (signal) =>
            connection.client.callTool(
              { name: tool, ...(parsed !== undefined ? { arguments: parsed } : {}) },
              undefined,
              { timeout: timeoutMs, signal }
            ),
          catch: (error) => {
            if (isTimeout(error)) return new McpError({ reason: { _tag: "Timeout", server, timeoutMs, tool } })
            const failure = connection.failure()
            const detail = failureText(server, failure === undefined ? error : `${errorText(error)}: ${failure}`)
            return new McpError({ reason: { _tag: "CallFailed", server, tool, detail } })
          }
        }).pipe(Effect.onExit((exit) => (Exit.isSuccess(exit) ? Effect.void : drop(entry))))
        return renderToolResult(result as Parameters<typeof renderToolResult>[0])
      })

    const entries = (names: ReadonlyArray<string>) =>
      Effect.gen(function*() {
        const lists = yield* Effect.forEach(names, tools, { concurrency: "unbounded" })
        const found: Array<ToolEntry> = []
        const origin = new Map<string, readonly [string, string]>()
        for (const [i, server] of names.entries()) {
          const list = lists[i]!
          if (found.length + list.length > MAX_TOTAL_TOOLS) {
            return yield* fail({ _tag: "TooManyTools", limit: MAX_TOTAL_TOOLS })
          }
          for (const tool of list) {
            const qualified = qualifyToolName("MCP tool", server, tool.name)
            if (qualified instanceof ToolError) return yield* qualified
            const earlier = origin.get(qualified)
            if (earlier !== undefined) {
              return yield* fail({
                _tag: "NameCollision",
                qualified,
                server,
                tool: tool.name,
                otherServer: earlier[0],
                otherTool: earlier[1]
              })
            }
            origin.set(qualified, [server, tool.name])
            found.push({
              name: qualified,
              source: "mcp",
              definition: toolDefinition(qualified, tool.description, tool.inputSchema),
              call: (args) => call(server, tool.name, qualified, args)
            })
          }
        }
        return found
      })

    return {
      connection: (name) => Effect.map(live(name), (entry) => entry.connection),
      tools,
      call,
      entries
    } satisfies McpRegistry
  })
