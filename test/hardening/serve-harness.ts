// Drives `lait serve --mcp --http` (the compiled binary) the way a hostile client would: raw MCP
// requests over fetch (initialize, tools/list, tools/call, with any headers), raw sockets that trickle
// a body, and the server's stderr as it goes. Used by serve.test.ts.
import * as net from "node:net"
import { cleanEnv } from "../e2e/model-harness.ts"

export interface Served {
  readonly child: Bun.Subprocess<"ignore", "pipe", "pipe">
  readonly url: string
  readonly port: number
  readonly stderr: () => string
  readonly stop: () => Promise<void>
}

/** The environment of a served process: clean, with HOME in the workspace. */
export const serveEnv = (dir: string, extra: Readonly<Record<string, string>> = {}): Record<string, string> =>
  Object.fromEntries(
    Object.entries({ ...cleanEnv(dir), LAIT_HTTP_ATTEMPTS: "1", ...extra }).filter((e): e is [string, string] =>
      e[1] !== undefined
    )
  )

/**
 * Starts `argv` (a `lait serve --mcp --http ...` command line, possibly behind `sh -c`) and waits for
 * its ready note; rejects with its stderr when it exits first.
 */
export const startServe = async (
  argv: ReadonlyArray<string>,
  options: { readonly cwd: string; readonly env: Record<string, string> }
): Promise<Served> => {
  const child = Bun.spawn([...argv], { cwd: options.cwd, env: options.env, stdin: "ignore", stdout: "pipe", stderr: "pipe" })
  const decoder = new TextDecoder()
  let stderr = ""
  const reader = child.stderr.getReader()
  let ready: ((url: string) => void) | undefined
  let failed: ((e: Error) => void) | undefined
  const url = new Promise<string>((resolve, reject) => {
    ready = resolve
    failed = reject
  })
  // Drains stderr for the whole life of the child, so it never blocks on a full pipe.
  void (async () => {
    for (;;) {
      const { value, done } = await reader.read()
      if (done) return failed?.(new Error(`lait serve exited before it was ready:\n${stderr}`))
      stderr += decoder.decode(value)
      const m = /ready at (http:\/\/\S+)/.exec(stderr)
      if (m !== null) ready?.(m[1]!)
    }
  })()
  const found = await url
  return {
    child,
    url: found,
    port: Number(new URL(found).port),
    stderr: () => stderr,
    stop: async () => {
      child.kill("SIGKILL")
      await child.exited
    }
  }
}

export interface Answer {
  readonly status: number
  readonly headers: Headers
  /** The JSON-RPC messages of the answer (from its SSE events or its JSON body). */
  readonly messages: ReadonlyArray<Record<string, unknown>>
}

const parseMessages = (contentType: string, text: string): ReadonlyArray<Record<string, unknown>> => {
  if (text === "") return []
  if (contentType.includes("text/event-stream")) {
    return text.split("\n").filter((l) => l.startsWith("data:")).map((l) => l.slice(5).trim()).filter((d) => d !== "")
      .map((d) => JSON.parse(d) as Record<string, unknown>)
  }
  return [JSON.parse(text) as Record<string, unknown>]
}

export interface PostOptions {
  readonly session?: string
  readonly headers?: Readonly<Record<string, string>>
  readonly signal?: AbortSignal
  readonly method?: string
}

/** One raw request to the endpoint; the answer's body read whole. */
export const mcp = async (url: string, body: unknown, options: PostOptions = {}): Promise<Answer> => {
  const response = await fetch(url, {
    method: options.method ?? "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...(options.session === undefined ? {} : { "mcp-session-id": options.session, "mcp-protocol-version": "2025-06-18" }),
      ...options.headers
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    ...(options.signal === undefined ? {} : { signal: options.signal })
  })
  const text = await response.text()
  return {
    status: response.status,
    headers: response.headers,
    messages: parseMessages(response.headers.get("content-type") ?? "", text)
  }
}

const INITIALIZE = {
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "hostile", version: "0" } }
}

/** A new session: initialize, then the initialized notification. Returns its id. */
export const openSession = async (url: string, headers: Readonly<Record<string, string>> = {}): Promise<string> => {
  const answer = await mcp(url, INITIALIZE, { headers })
  const id = answer.headers.get("mcp-session-id")
  if (answer.status !== 200 || id === null) throw new Error(`initialize answered ${answer.status}`)
  await mcp(url, { jsonrpc: "2.0", method: "notifications/initialized" }, { session: id, headers })
  return id
}

let nextId = 1
export const listTools = (url: string, session: string, headers: Readonly<Record<string, string>> = {}) =>
  mcp(url, { jsonrpc: "2.0", id: nextId++, method: "tools/list" }, { session, headers })

export const callTool = (
  url: string,
  session: string,
  name: string,
  args: Readonly<Record<string, unknown>>,
  options: PostOptions = {}
) => mcp(url, { jsonrpc: "2.0", id: nextId++, method: "tools/call", params: { name, arguments: args } }, { ...options, session })

/** The text of a tools/call answer, and whether it is a tool error. */
export const resultOf = (answer: Answer): { readonly text: string; readonly isError: boolean } => {
  const result = answer.messages.find((m) => "result" in m)?.["result"] as
    | { content: Array<{ text: string }>; isError?: boolean }
    | undefined
  if (result === undefined) throw new Error(`no result in ${JSON.stringify(answer.messages)}`)
  return { text: result.content.map((c) => c.text).join(""), isError: result.isError === true }
}

/**
 * A connection that sends a POST's headers and the start of its body, then nothing. Resolves, once
 * the server ends the connection, with what it answered ("" when it only closed it).
 */
export const trickle = (port: number): { readonly connected: Promise<boolean>; readonly closed: Promise<string> } => {
  const socket = net.connect(port, "127.0.0.1")
  let answer = ""
  socket.on("data", (chunk) => void (answer += chunk.toString("utf8")))
  const connected = new Promise<boolean>((resolve) => {
    socket.once("connect", () => {
      socket.write(
        `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\n` +
          "Accept: application/json, text/event-stream\r\nContent-Length: 1000\r\n\r\n{\"jsonrpc\":"
      )
      resolve(true)
    })
    socket.once("error", () => resolve(false))
  })
  const closed = new Promise<string>((resolve) => socket.once("close", () => resolve(answer)))
  return { connected, closed }
}

/** Polls `check` every 50 ms until it holds; false if it never did within `ms` (a hang guard only). */
export const waitFor = async (check: () => boolean | Promise<boolean>, ms = 20_000): Promise<boolean> => {
  const deadline = Date.now() + ms
  while (Date.now() < deadline) {
    if (await check()) return true
    await Bun.sleep(50)
  }
  return await check()
}
