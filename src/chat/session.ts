// Named conversations (`--session NAME`, `lait sessions`): `.lait/sessions/<NAME>.jsonl` under the
// current directory, one `{"role":"user"|"assistant","content":"…"}` per line, oldest first, the
// format upstream lait writes. A turn is appended only after it succeeded, as one write holding both
// its lines, so a failed or interrupted turn never leaves a question without its answer. A session
// saved by the REPL's `/save` starts with `{"role":"system","content":"…"}` when a system prompt was
// set (an addition to upstream's format): loading it brings the prompt back unless --system or
// --system-file names another (docs/repl.md#saving-a-conversation). `--session` appends turns only.
// The files are private and reached without following symlinks (platform/privateState.ts,
// docs/chat.md#sessions), and a session never grows past what it can be read back with (the 16 MiB
// read limit): the turn that would is refused.
import { Console, Effect } from "effect"
import * as nodePath from "node:path"
import { errnoOf } from "../core/osError.ts"
import { renderChain } from "../core/errors.ts"
import { escapeControls } from "../core/terminalText.ts"
import type { ChatMessage } from "../model/types.ts"
import { type FileLoader, READ_LIMIT } from "../platform/FileLoader.ts"
import { osErrorText } from "../platform/process.ts"
import * as State from "../platform/privateState.ts"
import { ChatError } from "./chatErrors.ts"
import { redact } from "../core/redaction.ts"

export const SESSIONS_DIR = nodePath.join(State.STATE_DIR, "sessions")

const sessionIo = (path: string, action: "write" | "read" | "delete") => (e: unknown) =>
  new ChatError({ reason: { _tag: "SessionIo", path, detail: osErrorText(e), action } })

/** Whether the session file is there; a symlink on the way is an error, a missing file is not. */
const sessionExists = (path: string, action: "read" | "delete") =>
  Effect.try({ try: () => State.privateEntryExists(path), catch: sessionIo(path, action) })

/** The file's text (capped, never waiting on a FIFO, no symlink followed). */
const readSessionFile = (path: string): Effect.Effect<string, ChatError, FileLoader> =>
  State.readPrivateText(path).pipe(
    Effect.mapError((e) => new ChatError({ reason: { _tag: "SessionIo", path, detail: e.detail, action: "read" } }))
  )

export interface StoredMessage {
  readonly role: "system" | "user" | "assistant"
  readonly content: string
}

const isRole = (role: unknown): role is StoredMessage["role"] =>
  role === "system" || role === "user" || role === "assistant"

/** Letters, digits, `_` and `-` only: a name can never reach outside the sessions directory. */
export const checkSessionName = (name: string): Effect.Effect<string, ChatError> =>
  /^[A-Za-z0-9_-]+$/.test(name)
    ? Effect.succeed(nodePath.join(SESSIONS_DIR, `${name}.jsonl`))
    : Effect.fail(new ChatError({ reason: { _tag: "SessionName", name } }))

const parseLines = (path: string, text: string): Effect.Effect<ReadonlyArray<StoredMessage>, ChatError> =>
  Effect.suspend(() => {
    const messages: Array<StoredMessage> = []
    const lines = text.split("\n")
    for (const [i, line] of lines.entries()) {
      if (line.trim() === "") continue
      let value: unknown
      try {
        value = JSON.parse(line)
      } catch {
        value = undefined
      }
      const record = value as Partial<StoredMessage> | undefined
      if (
        typeof record !== "object" || record === null ||
        !isRole(record.role) || typeof record.content !== "string"
      ) {
        return Effect.fail(new ChatError({ reason: { _tag: "SessionCorrupt", path, line: i + 1 } }))
      }
      messages.push({ role: record.role, content: record.content })
    }
    return Effect.succeed(messages)
  })

/** The session's messages, oldest first; none for a session never used (`missing: "empty"`). */
export const loadSession = (name: string, missing: "empty" | "fail" = "empty") =>
  Effect.gen(function*() {
    const path = yield* checkSessionName(name)
    if (!(yield* sessionExists(path, "read"))) {
      return missing === "empty" ? [] : yield* new ChatError({ reason: { _tag: "SessionMissing", name } })
    }
    return yield* parseLines(path, yield* readSessionFile(path))
  })

/** The messages a request sends for the stored ones, after the system prompt (sessionSystem). */
export const sessionMessages = (stored: ReadonlyArray<StoredMessage>): ReadonlyArray<ChatMessage> =>
  stored.filter((m) => m.role !== "system").map((m) => ({ role: m.role, content: m.content }))

/** The system prompt a saved session holds (its last system line), if any. */
export const sessionSystem = (stored: ReadonlyArray<StoredMessage>): string | undefined =>
  stored.findLast((m) => m.role === "system")?.content

/** A whole session file: the system prompt first (when there is one), then one line per message. */
export const sessionText = (system: string | undefined, messages: ReadonlyArray<ChatMessage>): string =>
  [
    ...(system === undefined || system === "" ? [] : [{ role: "system", content: system }]),
    ...messages
      .filter((m) => m.role === "user" || m.role === "assistant")
      .map((m) => ({ role: m.role, content: typeof m.content === "string" ? m.content : "" }))
  ].map((m) => `${JSON.stringify(m)}\n`).join("")

/** Whether a session file's line is its system prompt (not part of a turn). */
const isSystemLine = (line: string): boolean => {
  try {
    return (JSON.parse(line) as { role?: unknown } | null)?.role === "system"
  } catch {
    return false
  }
}

/** A turn's two lines, as appended. */
const turnText = (user: string, assistant: string): string =>
  [{ role: "user", content: user }, { role: "assistant", content: assistant }]
    .map((m) => `${redact(JSON.stringify(m))}\n`).join("")

const sessionFull = (name: string, path: string) =>
  new ChatError({ reason: { _tag: "SessionFull", name, path, limit: READ_LIMIT } })

/**
 * Fails before a request whose turn could never be stored: the session file plus the question alone
 * (with an empty answer) already pass the read limit, so `--session` could not read it back.
 */
export const checkTurnFits = (name: string, user: string) =>
  Effect.flatMap(checkSessionName(name), (path) =>
    Effect.gen(function*() {
      const size = yield* Effect.try({
        try: () => State.privateEntrySize(path),
        catch: sessionIo(path, "write")
      })
      if (size + Buffer.byteLength(turnText(user, "")) > READ_LIMIT) return yield* sessionFull(name, path)
    }))

/** Appends one finished turn (both lines in one write), unless the file would pass the read limit. */
export const appendTurn = (name: string, user: string, assistant: string) =>
  Effect.flatMap(checkSessionName(name), (path) =>
    Effect.try({
      try: () => State.appendPrivate(path, turnText(user, assistant), READ_LIMIT),
      catch: (e) => errnoOf(e) === "ESIZELIMIT" ? sessionFull(name, path) : sessionIo(path, "write")(e)
    }))

/**
 * Writes a whole session file (the REPL's `/save NAME`): private, replacing what was there; refused
 * when `--session` could not read it back.
 */
export const saveSession = (name: string, text: string) =>
  Effect.flatMap(checkSessionName(name), (path) =>
    Buffer.byteLength(text) > READ_LIMIT
      ? Effect.fail(sessionFull(name, path))
      : Effect.as(Effect.try({ try: () => State.writePrivateFile(path, text), catch: sessionIo(path, "write") }), path))

export interface SessionSummary {
  readonly name: string
  /** user+assistant pairs */
  readonly turns: number
}

/**
 * Every session, sorted by name; none when the directory does not exist. A `.jsonl` entry that cannot
 * be read (too large, a symlink, a FIFO) is one `warning:` line on stderr, and the others still list.
 */
export const listSessions = Effect.gen(function*() {
  const entries = yield* Effect.try({
    try: () => State.listPrivateDir(SESSIONS_DIR),
    catch: sessionIo(SESSIONS_DIR, "read")
  })
  const summaries: Array<SessionSummary> = []
  for (const entry of entries ?? []) {
    if (entry.isDirectory() || !entry.name.endsWith(".jsonl")) continue
    const read = yield* Effect.result(readSessionFile(nodePath.join(SESSIONS_DIR, entry.name)))
    if (read._tag === "Failure") {
      yield* Console.error(`warning: ${escapeControls(renderChain(read.failure))} (skipped)`)
      continue
    }
    const lines = read.success.split("\n").filter((l) => l.trim() !== "" && !isSystemLine(l)).length
    summaries.push({ name: entry.name.slice(0, -".jsonl".length), turns: Math.floor(lines / 2) })
  }
  return summaries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
})

export const deleteSession = (name: string) =>
  Effect.gen(function*() {
    const path = yield* checkSessionName(name)
    if (!(yield* sessionExists(path, "delete"))) {
      return yield* new ChatError({ reason: { _tag: "SessionMissing", name } })
    }
    yield* Effect.try({ try: () => State.removePrivateFile(path), catch: sessionIo(path, "delete") })
  })
