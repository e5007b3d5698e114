// The MCP servers of one run (inventory §3.8, §9). A server is started the first time a step that
// lists it needs its tools, so servers nobody references never start; its connection and its tool
// list are then shared by every step, branch and subagent of the run. The registry is a scoped
// resource of the run: its finalizer stops every server (the whole process tree for stdio) when the
// run ends, fails or is interrupted by Ctrl-C. A call that fails, times out or is interrupted drops
// its connection, so a retry never shares a server with a call that may still be running.
import { Effect } from "effect"
import * as nodePath from "node:path"
import type { McpServer } from "../../config/schema.ts"
import { type Env, expandVars } from "../../core/env.ts"
import { type AnyLaitError, InterruptedError, LaitError, withContext } from "../../core/errors.ts"
import { headerSecrets, redactSecrets } from "../../core/secrets.ts"
import { urlCredentials } from "../../core/urls.ts"
import { osErrorText } from "../../platform/process.ts"
import { qualifyToolName } from "../names.ts"
import { toolDefinition, type ToolEntry } from "../types.ts"
import type { McpConnection } from "./client.ts"

export const MCP_IO_TIMEOUT_MS = 300_000
export const MAX_TOOLS_PER_PAGE = 1024
export const MAX_TOTAL_TOOLS = 8192
export const MAX_TOOL_LIST_PAGES = 128
export const MAX_TOOL_METADATA_BYTES = 16 * 1024 * 1024

/** What lait keeps of a listed tool. */
export interface McpTool {
  readonly name: string
  readonly description?: string | undefined
  readonly inputSchema: unknown
}

export interface McpRegistryOptions {
  readonly servers: Readonly<Record<string, McpServer>> | undefined
  /** `${VAR}` values and the base environment of stdio servers. */
  readonly env: Env
  /** Relative `cwd:` values are resolved against this. */
  readonly cwd: string
  /** The I/O timeout of every handshake, page and call (default 300 s); tests shorten it. */
  readonly timeoutMs?: number
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

/**
 * The SDK's schema check of a message or result failed: a zod error (`$ZodError` when it comes from
 * zod/mini), whose own message is the whole issue list as indented JSON.
 */
export const isSchemaError = (error: unknown): error is Error & { readonly issues: ReadonlyArray<unknown> } =>
  error instanceof Error && /^\$?ZodError$/.test(error.name) && Array.isArray((error as { issues?: unknown }).issues)

/** The first problem of a schema error, on one line (its own message is dozens of lines of JSON). */
const schemaErrorText = (issues: ReadonlyArray<unknown>): string => {
  const first = (issues[0] ?? {}) as { path?: ReadonlyArray<unknown>; message?: unknown }
  const at = Array.isArray(first.path) && first.path.length > 0 ? ` at '${first.path.join(".")}'` : ""
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more problem${issues.length > 2 ? "s" : ""})` : ""
  return `the server's answer does not have the shape MCP requires${at}: ${String(first.message ?? "invalid")}${more}`
}

const errorText = (error: unknown): string =>
  isSchemaError(error) ? schemaErrorText(error.issues) : error instanceof Error ? error.message : String(error)

/** The SDK's request-timeout error (JSON-RPC code -32001). */
const isTimeout = (error: unknown): boolean =>
  typeof error === "object" && error !== null && "code" in error && (error as { code: unknown }).code === -32001

const isSpawnFailure = (error: unknown): boolean =>
  typeof error === "object" && error !== null && "syscall" in error &&
  String((error as { syscall: unknown }).syscall).startsWith("spawn")

const utf8Length = (text: string): number => Buffer.byteLength(text, "utf8")

/** A `tools/call` result as the tool message's text (upstream's rendering). */
export const renderToolResult = (result: {
  readonly content?: ReadonlyArray<unknown> | undefined
  readonly structuredContent?: unknown
  readonly isError?: boolean | undefined
}): string => {
  const parts = (result.content ?? []).map((block) =>
    typeof block === "object" && block !== null && (block as { type?: unknown }).type === "text" &&
      typeof (block as { text?: unknown }).text === "string"
      ? (block as { text: string }).text
      : JSON.stringify(block)
  )
  if (result.structuredContent !== undefined) {
    parts.push(`structuredContent:\n${JSON.stringify(result.structuredContent)}`)
  }
  if (result.isError === true) parts.unshift("isError: true")
  return parts.join("\n\n")
}

/** Blank and `null` mean no arguments; anything else must be a JSON object. */
const parseArguments = (qualified: string, raw: string): Record<string, unknown> | undefined | LaitError => {
  if (raw.trim() === "") return undefined
  let value: unknown
  try {
    value = JSON.parse(raw)
  } catch (e) {
    return new LaitError({
      message: `failed to parse arguments for tool call '${qualified}' as JSON`,
      cause: errorText(e)
    })
  }
  if (value === null) return undefined
  if (typeof value !== "object" || Array.isArray(value)) {
    return new LaitError({
      message: `arguments for tool call '${qualified}' must be a JSON object, got ${JSON.stringify(value)}`
    })
  }
  return value as Record<string, unknown>
}

export class McpRegistry {
  private readonly timeoutMs: number
  private readonly connections = new Map<string, Promise<McpConnection>>()
  private readonly resolved = new Map<string, McpConnection>()
  private readonly toolLists = new Map<string, Promise<ReadonlyArray<McpTool>>>()
  /** Per HTTP server: its header values and URL credentials, which its error answers may repeat. */
  private readonly secrets = new Map<string, ReadonlyArray<string>>()
  /** Everything shutdown must close, registered before each handshake starts. */
  private readonly open = new Set<() => Promise<void>>()
  private closed = false

  constructor(private readonly options: McpRegistryOptions) {
    this.timeoutMs = options.timeoutMs ?? MCP_IO_TIMEOUT_MS
  }

  private get timeoutText(): string {
    return `${this.timeoutMs / 1000}s`
  }

  private server(name: string): McpServer | LaitError {
    const server = this.options.servers?.[name]
    return server ??
      new LaitError({ message: `unknown MCP server '${name}'; define it under 'mcp_servers:' in lait.config.yml` })
  }

  private resolveSpec(name: string, server: McpServer): Effect.Effect<Spec, AnyLaitError> {
    const env = this.options.env
    const expand = (value: string) => expandVars(value, env)
    const expandMap = (values: Readonly<Record<string, string>> | undefined) =>
      Effect.map(
        Effect.forEach(Object.entries(values ?? {}), ([k, v]) => Effect.map(expand(v), (x) => [k, x] as const)),
        (entries) => Object.fromEntries(entries) as Record<string, string>
      )
    return Effect.gen({ self: this }, function*() {
      if (server.command !== undefined && server.url !== undefined) {
        return yield* new LaitError({
          message: `mcp_servers.${name} has both 'command' and 'url'; set exactly one (stdio vs. streamable HTTP)`
        })
      }
      if (server.command !== undefined) {
        const base: Record<string, string> = {}
        for (const [k, v] of Object.entries(env)) if (v !== undefined) base[k] = v
        const cwd = server.cwd === undefined ? undefined : nodePath.resolve(this.options.cwd, yield* expand(server.cwd))
        return {
          kind: "stdio" as const,
          command: yield* expand(server.command),
          args: yield* Effect.forEach(server.args ?? [], expand),
          env: { ...base, ...(yield* expandMap(server.env)) },
          cwd
        }
      }
      if (server.url !== undefined) {
        const headers = yield* expandMap(server.headers)
        for (const key of Object.keys(headers)) {
          try {
            new Headers([[key, headers[key]!]])
          } catch {
            return yield* new LaitError({
              message: `mcp_servers.${name} has an invalid header name or value for '${key}'`
            })
          }
        }
        return { kind: "http" as const, url: yield* expand(server.url), headers }
      }
      return yield* new LaitError({
        message: `mcp_servers.${name} has neither 'command' nor 'url'; set exactly one (stdio vs. streamable HTTP)`
      })
    }).pipe(Effect.mapError(withContext(`MCP server '${name}'`)))
  }

  /** `errorText` of a failure of server `name`, with its secrets masked. */
  private failureText(name: string, error: unknown): string {
    return redactSecrets(errorText(error), this.secrets.get(name) ?? [])
  }

  private async connect(name: string, spec: Spec): Promise<McpConnection> {
    if (this.closed) throw new InterruptedError({ message: `MCP server '${name}' was not started: the run is ending` })
    const client = await import("./client.ts")
    const options = {
      timeoutMs: this.timeoutMs,
      onOpen: (close: () => Promise<void>) => {
        this.open.add(close)
        // A shutdown that ran while the SDK was loading: stop what was just opened.
        if (this.closed) void close()
      }
    }
    try {
      return spec.kind === "stdio"
        ? await client.connectStdio({ command: spec.command, args: spec.args, env: spec.env, cwd: spec.cwd }, options)
        : await client.connectHttp(spec.url, spec.headers, options)
    } catch (error) {
      if (spec.kind === "stdio" && isSpawnFailure(error)) {
        throw new LaitError({
          message: `failed to spawn MCP server '${name}' (command '${spec.command}')`,
          cause: osErrorText(error)
        })
      }
      if (isTimeout(error)) {
        throw new InterruptedError({
          message: `timed out after ${this.timeoutText} while initializing MCP server '${name}'`
        })
      }
      throw new LaitError({
        message: `failed to initialize MCP server '${name}'`,
        cause: this.failureText(name, error)
      })
    }
  }

  /** The running connection to `name`, started on first use; concurrent first users share one start. */
  connection(name: string): Effect.Effect<McpConnection, AnyLaitError> {
    return Effect.gen({ self: this }, function*() {
      let pending = this.connections.get(name)
      if (pending === undefined) {
        const server = this.server(name)
        if (server instanceof LaitError) return yield* server
        const spec = yield* this.resolveSpec(name, server)
        if (spec.kind === "http") {
          this.secrets.set(name, [...headerSecrets(Object.values(spec.headers)), ...urlCredentials(spec.url)])
        }
        pending = this.connections.get(name)
        if (pending === undefined) {
          yield* Effect.logDebug(`starting MCP server '${name}'`)
          const started = this.connect(name, spec)
          pending = started
          this.connections.set(name, started)
          started.then(
            (connection) => {
              if (this.connections.get(name) === started) this.resolved.set(name, connection)
            },
            () => {
              if (this.connections.get(name) === started) this.connections.delete(name)
            }
          )
        }
      }
      const waiting = pending
      return yield* Effect.tryPromise({ try: () => waiting, catch: (e) => e as AnyLaitError })
    })
  }

  /** Forgets `connection` (if it is still the current one for `name`) and closes it. */
  private invalidate(name: string, connection: McpConnection): Effect.Effect<void> {
    return Effect.promise(async () => {
      if (this.resolved.get(name) === connection) {
        this.resolved.delete(name)
        this.connections.delete(name)
      }
      this.open.delete(connection.close)
      await connection.close()
    })
  }

  private async listAll(name: string, connection: McpConnection): Promise<ReadonlyArray<McpTool>> {
    const tools: Array<McpTool> = []
    const seenCursors = new Set<string>()
    let cursor: string | undefined
    let metadata = 0
    for (let pages = 1;; pages++) {
      if (pages > MAX_TOOL_LIST_PAGES) {
        throw new Error(`MCP server returned more than ${MAX_TOOL_LIST_PAGES} pages from 'tools/list'`)
      }
      let result: Awaited<ReturnType<McpConnection["client"]["listTools"]>>
      try {
        result = await connection.client.listTools(cursor === undefined ? undefined : { cursor }, {
          timeout: this.timeoutMs
        })
      } catch (error) {
        if (isTimeout(error)) {
          throw new Error(`MCP server timed out after ${this.timeoutText} while listing tools (page ${pages})`)
        }
        const failure = connection.failure()
        throw new Error(failure === undefined ? errorText(error) : `${errorText(error)}: ${failure}`)
      }
      if (result.tools.length > MAX_TOOLS_PER_PAGE) {
        throw new Error(
          `MCP server returned ${result.tools.length} tools in one 'tools/list' page; ` +
            `the maximum is ${MAX_TOOLS_PER_PAGE}`
        )
      }
      if (tools.length + result.tools.length > MAX_TOTAL_TOOLS) {
        throw new Error(`MCP server returned more than ${MAX_TOTAL_TOOLS} tools across 'tools/list' pages`)
      }
      for (const tool of result.tools) {
        metadata += utf8Length(tool.description ?? "") + utf8Length(JSON.stringify(tool.inputSchema)) +
          (tool.outputSchema === undefined ? 0 : utf8Length(JSON.stringify(tool.outputSchema)))
        if (metadata > MAX_TOOL_METADATA_BYTES) {
          throw new Error(
            `MCP tool descriptions and schemas exceed the cumulative limit of ${MAX_TOOL_METADATA_BYTES} bytes`
          )
        }
        tools.push({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema })
      }
      const next = result.nextCursor
      if (next === undefined) return tools
      if (seenCursors.has(next)) throw new Error(`MCP server repeated a 'tools/list' pagination cursor '${next}'`)
      seenCursors.add(next)
      cursor = next
    }
  }

  /** `name`'s tools (every page), listed once per run. */
  tools(name: string): Effect.Effect<ReadonlyArray<McpTool>, AnyLaitError> {
    return Effect.gen({ self: this }, function*() {
      let pending = this.toolLists.get(name)
      if (pending === undefined) {
        const connection = yield* this.connection(name)
        pending = this.toolLists.get(name)
        if (pending === undefined) {
          const listing = this.listAll(name, connection).catch(async (error: unknown) => {
            if (this.toolLists.get(name) === listing) this.toolLists.delete(name)
            await Effect.runPromise(this.invalidate(name, connection))
            throw new LaitError({
              message: `failed to list tools for MCP server '${name}'`,
              cause: this.failureText(name, error)
            })
          })
          pending = listing
          this.toolLists.set(name, listing)
        }
      }
      const waiting = pending
      return yield* Effect.tryPromise({ try: () => waiting, catch: (e) => e as AnyLaitError })
    })
  }

  /** Runs one `tools/call` after checking the server's `allowed_tools`. */
  call(server: string, tool: string, qualified: string, args: string): Effect.Effect<string, AnyLaitError> {
    return Effect.gen({ self: this }, function*() {
      const allowed = this.options.servers?.[server]?.allowed_tools
      if (allowed !== undefined && !allowed.includes(tool)) {
        return yield* new LaitError({
          message: `MCP server '${server}' does not allow calling tool '${tool}' (not listed in its 'allowed_tools' ` +
            "in lait.config.yml); add it there if this call should be permitted"
        })
      }
      const parsed = parseArguments(qualified, args)
      if (parsed instanceof LaitError) return yield* parsed
      const connection = yield* this.connection(server)
      const result = yield* Effect.tryPromise({
        try: (signal) =>
          connection.client.callTool(
            { name: tool, ...(parsed !== undefined ? { arguments: parsed } : {}) },
            undefined,
            { timeout: this.timeoutMs, signal }
          ),
        catch: (error): AnyLaitError => {
          if (isTimeout(error)) {
            return new InterruptedError({
              message: `MCP server '${server}' timed out after ${this.timeoutText} while running tool '${tool}'`
            })
          }
          const failure = connection.failure()
          return new LaitError({
            message: `MCP server '${server}' failed while running tool '${tool}'`,
            cause: this.failureText(server, failure === undefined ? error : `${errorText(error)}: ${failure}`)
          })
        }
      }).pipe(
        Effect.onExit((exit) => (exit._tag === "Success" ? Effect.void : this.invalidate(server, connection)))
      )
      return renderToolResult(result as Parameters<typeof renderToolResult>[0])
    })
  }

  /** The tool entries of the servers in `names` (in list order, each server's tools in its order). */
  entries(names: ReadonlyArray<string>): Effect.Effect<ReadonlyArray<ToolEntry>, AnyLaitError> {
    return Effect.gen({ self: this }, function*() {
      const lists = yield* Effect.forEach(names, (name) => this.tools(name), { concurrency: "unbounded" })
      const entries: Array<ToolEntry> = []
      const origin = new Map<string, readonly [string, string]>()
      for (const [i, server] of names.entries()) {
        const tools = lists[i]!
        if (entries.length + tools.length > MAX_TOTAL_TOOLS) {
          return yield* new LaitError({
            message: `MCP server tool list exceeds the cumulative limit of ${MAX_TOTAL_TOOLS} tools`
          })
        }
        for (const tool of tools) {
          const qualified = qualifyToolName("MCP tool", server, tool.name)
          if (qualified instanceof LaitError) return yield* qualified
          const earlier = origin.get(qualified)
          if (earlier !== undefined) {
            return yield* new LaitError({
              message: `MCP tool name collision: '${server}'.'${tool.name}' and '${earlier[0]}'.'${earlier[1]}' ` +
                `both qualify to '${qualified}'`
            })
          }
          origin.set(qualified, [server, tool.name])
          entries.push({
            name: qualified,
            source: "mcp",
            definition: toolDefinition(qualified, tool.description, tool.inputSchema),
            call: (args) => this.call(server, tool.name, qualified, args)
          })
        }
      }
      return entries
    })
  }

  /** Stops every server this run started (and any still starting). */
  readonly shutdown: Effect.Effect<void> = Effect.promise(async () => {
    this.closed = true
    const closing = [...this.open]
    this.open.clear()
    this.connections.clear()
    this.resolved.clear()
    this.toolLists.clear()
    await Promise.all(closing.map((close) => close()))
  })
}
