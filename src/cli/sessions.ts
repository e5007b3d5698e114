// `lait sessions list|show NAME|delete NAME`: the conversations `--session NAME` keeps under
// `.lait/sessions/` in the current directory (src/chat/session.ts). Local files only, no config.
// What the files hold reaches the terminal with its control characters escaped (core/terminalText.ts):
// a name or an answer holding ESC must not drive the terminal. `show` keeps newlines and tabs, so a
// multi-line answer still reads as one; the file itself keeps the exact text.
import { Effect } from "effect"
import { Argument, Command } from "effect/cli"
import { escapeControls } from "../core/terminalText.ts"
import { printLine } from "./output.ts"

const loadSessions = Effect.promise(() => import("../chat/session.ts"))
const name = Argument.String("name").pipe(Argument.withDescription("The session's name"))

const list = Command.make("list", {}, () =>
  Effect.gen(function*() {
    const sessions = yield* loadSessions
    const summaries = yield* sessions.listSessions
    if (summaries.length === 0) {
      return yield* printLine("no sessions saved yet; start one with `lait --session <NAME> ...`")
    }
    yield* printLine(summaries.map((s) => `${escapeControls(s.name)}  (${s.turns} turns)`).join("\n"))
  })).pipe(Command.withDescription("List the sessions and how many turns each holds"))

const show = Command.make("show", { name }, ({ name }) =>
  Effect.gen(function*() {
    const sessions = yield* loadSessions
    const messages = yield* sessions.loadSession(name, "fail")
    if (messages.length > 0) {
      yield* printLine(messages.map((m) => `${m.role}: ${escapeControls(m.content, { keepLines: true })}`).join("\n"))
    }
  })).pipe(Command.withDescription("Print a session's messages, oldest first"))

const remove = Command.make("delete", { name }, ({ name }) =>
  Effect.gen(function*() {
    const sessions = yield* loadSessions
    yield* sessions.deleteSession(name)
    yield* printLine(`deleted session '${name}'`)
  })).pipe(Command.withDescription("Delete a session's file"))

export const sessionsCommand = Command.make("sessions").pipe(
  Command.withDescription("List, show and delete the conversations kept by --session"),
  Command.withSubcommands([list, show, remove])
)
