// The stdio transport of an MCP server we start ourselves. Not the SDK's StdioClientTransport: that
// one kills only the direct child, so a server started through a wrapper (`npx`, `uvx`, `sh -c`)
// would leave its real process behind. Here the server leads its own process group (spawnGroup),
// shutdown signals the whole group, and the process-wide exit hook kills any group still alive when
// lait exits without running finalizers (a second Ctrl-C, SIGTERM or SIGHUP). Incoming frames are capped, so a runaway
// server cannot grow the line buffer without bound. A server that can no longer answer breaks the
// connection at once, so pending requests fail instead of waiting for the I/O timeout: when it closes
// its stdout (no answer
// can arrive any more) and when it answers with an id lait never sent (the request that answer was
// meant for will never be answered).
import { deserializeMessage, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js"
import { type GroupChild, spawnGroup, TERMINATION_GRACE_MS } from "../../platform/process.ts"

/** One newline-delimited JSON-RPC message from a server may be at most this long. */
export const MAX_STDIO_FRAME_BYTES = 16 * 1024 * 1024

/** How long a server gets between SIGTERM and SIGKILL at shutdown. */
export const STDIO_TERMINATION_GRACE_MS = TERMINATION_GRACE_MS

export interface StdioServerParameters {
  readonly command: string
  readonly args: ReadonlyArray<string>
  /** The child's complete environment. */
  readonly env: Readonly<Record<string, string>>
  readonly cwd?: string | undefined
}

export class GroupStdioTransport implements Transport {
  onclose?: (() => void) | undefined
  onerror?: ((error: Error) => void) | undefined
  onmessage?: (<T extends JSONRPCMessage>(message: T) => void) | undefined

  private group: GroupChild | undefined
  private exited: Promise<void> = Promise.resolve()
  private chunks: Array<Buffer> = []
  private frameBytes = 0
  private closing: Promise<void> | undefined
  /** The ids of the requests sent, as numbers: the SDK matches an answer by Number(id) ("1" is 1). */
  private readonly sent = new Set<number>()
  /** Why the connection broke, for messages that would otherwise only say "Connection closed". */
  failure: string | undefined

  constructor(private readonly params: StdioServerParameters) {}

  get pid(): number | undefined {
    return this.group?.pid
  }

  start(): Promise<void> {
    // stderr is the server's own diagnostics: the user sees them, as with upstream lait.
    const options = { env: this.params.env, cwd: this.params.cwd, stdio: ["pipe", "pipe", "inherit"] } as const
    return spawnGroup(this.params.command, this.params.args, options).then((group) => {
      const child = group.child
      this.group = group
      this.exited = group.exited
      child.on("error", (error) => this.onerror?.(error))
      child.stdin!.on("error", (error) => this.onerror?.(error))
      child.stdout!.on("data", (chunk: Buffer) => this.receive(chunk))
      child.stdout!.once("end", () => {
        // A server that is exiting closes stdout first: give its exit status a moment to be the reason.
        void Promise.race([this.exited, new Promise((done) => setTimeout(done, 100))]).then(() => {
          if (this.closing !== undefined || child.exitCode !== null || child.signalCode !== null) return
          this.failure ??= "the server closed its stdout"
          void this.close()
        })
      })
      child.once("exit", (code, signal) => {
        if (this.closing === undefined) {
          this.failure ??= `the server process exited (${
            code !== null ? `exit status: ${code}` : `signal: ${signal}`
          })`
          void this.close()
        }
      })
    })
  }

  /** Adds part of the current frame; false (and the connection is closing) when it grew too long. */
  private grow(part: Buffer): boolean {
    this.frameBytes += part.length
    if (this.frameBytes > MAX_STDIO_FRAME_BYTES) {
      this.chunks = []
      this.failure = `MCP stdio JSON-RPC frame exceeds ${MAX_STDIO_FRAME_BYTES} bytes`
      this.onerror?.(new Error(this.failure))
      void this.close()
      return false
    }
    if (part.length > 0) this.chunks.push(part)
    return true
  }

  private receive(chunk: Buffer): void {
    if (this.failure !== undefined && this.closing !== undefined) return
    let start = 0
    for (let newline = chunk.indexOf(10, start); newline !== -1; newline = chunk.indexOf(10, start)) {
      if (!this.grow(chunk.subarray(start, newline))) return
      const line = Buffer.concat(this.chunks).toString("utf8").replace(/\r$/u, "")
      this.chunks = []
      this.frameBytes = 0
      start = newline + 1
      if (line.trim() === "") continue
      let message: JSONRPCMessage
      try {
        message = deserializeMessage(line)
      } catch (error) {
        this.onerror?.(error instanceof Error ? error : new Error(String(error)))
        continue
      }
      if (!this.expected(message)) return
      this.onmessage?.(message)
    }
    this.grow(chunk.subarray(start))
  }

  /** False (and the connection is closing) for a response to a request that was never sent. */
  private expected(message: JSONRPCMessage): boolean {
    if ("method" in message || !("id" in message) || message.id === undefined) return true
    // A late answer to a cancelled request stays expected: its id was sent.
    if (this.sent.has(Number(message.id))) return true
    this.failure = `the server answered with id ${JSON.stringify(message.id)}, which matches no request lait sent`
    this.onerror?.(new Error(this.failure))
    void this.close()
    return false
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.group?.child.stdin
    if (stdin === undefined || stdin === null || this.closing !== undefined) {
      return Promise.reject(new Error(this.failure ?? "Not connected"))
    }
    if ("method" in message && "id" in message && message.id !== undefined) this.sent.add(Number(message.id))
    return new Promise((resolve) => {
      if (stdin.write(serializeMessage(message))) resolve()
      else stdin.once("drain", () => resolve())
    })
  }

  /** Ends stdin (a cooperative server exits), then SIGTERM and, after the grace period, SIGKILL to the group. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      const group = this.group
      if (group !== undefined) {
        try {
          group.child.stdin?.end()
        } catch {
          // already closed
        }
        // Whatever the server left in its group (workers, a wrapped real server) goes too.
        await group.terminate(STDIO_TERMINATION_GRACE_MS)
      }
      this.onclose?.()
    })()
    return this.closing
  }
}
