// Server-sent events as a streamed chat completion arrives: bytes in whatever pieces the network
// delivers (a line, a UTF-8 character, even a `\r\n` may be cut anywhere), events out once complete.
// Only what the event-stream format defines is kept: `data` lines (joined by newlines) and `event`;
// comments (`: keep-alive`), `id`, `retry` and unknown fields are skipped.

export interface SseEvent {
  /** The `event:` name, when the server sent one (an `error` event, say). */
  readonly event?: string
  readonly data: string
}

export class SseDecoder {
  private readonly decoder = new TextDecoder()
  private buffer = ""
  /** A `\r` ended the last piece: a `\n` starting the next one belongs to the same line break. */
  private pendingCr = false
  private data: Array<string> = []
  private event: string | undefined = undefined

  /** The events completed by this piece of the body. */
  push(bytes: Uint8Array): Array<SseEvent> {
    return this.feed(this.decoder.decode(bytes, { stream: true }))
  }

  /** The event a body ended without its blank line after, if any. */
  end(): Array<SseEvent> {
    const events = this.feed(this.decoder.decode())
    if (this.buffer.length > 0) this.line(this.buffer, events)
    this.buffer = ""
    this.dispatch(events)
    return events
  }

  private feed(text: string): Array<SseEvent> {
    const events: Array<SseEvent> = []
    if (this.pendingCr && text.startsWith("\n")) text = text.slice(1)
    this.pendingCr = false
    this.buffer += text
    let start = 0
    for (let i = 0; i < this.buffer.length; i++) {
      const c = this.buffer.charCodeAt(i)
      if (c !== 10 && c !== 13) continue
      this.line(this.buffer.slice(start, i), events)
      if (c === 13) {
        if (i + 1 === this.buffer.length) this.pendingCr = true
        else if (this.buffer.charCodeAt(i + 1) === 10) i++
      }
      start = i + 1
    }
    this.buffer = this.buffer.slice(start)
    return events
  }

  private line(line: string, events: Array<SseEvent>): void {
    if (line.length === 0) return this.dispatch(events)
    if (line.startsWith(":")) return
    const colon = line.indexOf(":")
    const field = colon === -1 ? line : line.slice(0, colon)
    let value = colon === -1 ? "" : line.slice(colon + 1)
    if (value.startsWith(" ")) value = value.slice(1)
    if (field === "data") this.data.push(value)
    else if (field === "event") this.event = value
  }

  private dispatch(events: Array<SseEvent>): void {
    if (this.data.length > 0) {
      const event = this.event
      events.push({ ...(event !== undefined && event !== "" ? { event } : {}), data: this.data.join("\n") })
    }
    this.data = []
    this.event = undefined
  }
}
