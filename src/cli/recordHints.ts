// What each command's replay-miss errors tell the user to run (src/model/recordHint.ts,
// docs/record-replay.md#when-a-replay-misses), in one place: the command that records the missing
// request where it happened. Every command that can replay provides its own around its handler.
import type { RecordHint } from "../model/recordHint.ts"
import { laitCommandLine } from "../core/shellWord.ts"

/** `lait --replay DIR PROMPT`: the same one-shot chat, recording. */
export const chatRecordHint: RecordHint = {
  command: (dir) => `${laitCommandLine("--record", dir)} "..."`,
  same: "the same prompt and flags"
}

/** `lait chat --replay DIR` (and `lait` with no PROMPT at a terminal). */
export const replRecordHint: RecordHint = {
  command: (dir) => laitCommandLine("chat", "--record", dir),
  same: "the same conversation"
}

/**
 * `lait run FILE` (`command` = ["run"]) and `lait agent run FILE` (["agent", "run"]): --record-missing
 * keeps what was recorded; it records no tool calls, so a missing tool cassette takes --record.
 */
export const runRecordHint = (command: ReadonlyArray<string>, file: string): RecordHint => ({
  command: (dir, tools) => laitCommandLine(...command, file, tools ? "--record" : "--record-missing", dir),
  same: "the same input and vars"
})

/** `lait eval FILE --replay DIR`: an eval records with --record only (every repeat's answers). */
export const evalRecordHint = (file: string): RecordHint => ({
  command: (dir) => laitCommandLine("eval", file, "--record", dir),
  same: "the same cases and flags"
})

/** `lait test PATHS`: each file's `replay:` directory is its own, so --record-missing names none. */
export const testRecordHint = (paths: ReadonlyArray<string>, filter: string | undefined): RecordHint => ({
  command: () =>
    laitCommandLine("test", ...paths, ...(filter === undefined ? [] : ["--filter", filter]), "--record-missing"),
  same: "the test files' workflows and inputs"
})

/** `lait serve --mcp --replay DIR`. */
export const serveRecordHint: RecordHint = {
  command: (dir) => laitCommandLine("serve", "--mcp", "--record", dir),
  same: "the same tool calls"
}

/** `lait proxy --replay DIR`: the app's same requests, through a recording proxy. */
export const proxyRecordHint: RecordHint = {
  command: (dir) => laitCommandLine("proxy", "--record-missing", dir),
  same: "the same app requests"
}
