// The history file: one per user, `$XDG_DATA_HOME/lait/history.jsonl` (else
// `$HOME/.local/share/lait/history.jsonl`), where the original lait keeps it, so both read and
// write the same file. Appends are one write each (FileLoader's append), which is what
// keeps twenty parallel `lait run`s from interleaving lines; no lock is taken and nothing is rotated.
import { Console, Effect } from "effect"
import * as nodePath from "node:path"
import type { Env } from "../config/env.ts"
import { FileLoader } from "../platform/FileLoader.ts"
import { entryLine, type HistoryEntry, numberNewestFirst, type Numbered, parseHistory } from "./entry.ts"
import { HistoryError } from "./historyErrors.ts"

const set = (value: string | undefined): string | undefined =>
  value === undefined || value.trim() === "" ? undefined : value

/** Where the history file is for this environment. */
export const historyPath = (env: Env): Effect.Effect<string, HistoryError> => {
  const data = set(env["XDG_DATA_HOME"])
  if (data !== undefined) return Effect.succeed(nodePath.join(data, "lait", "history.jsonl"))
  const home = set(env["HOME"]) ?? set(env["USERPROFILE"])
  return home === undefined
    ? Effect.fail(new HistoryError({ reason: { _tag: "NoHome" } }))
    : Effect.succeed(nodePath.join(home, ".local", "share", "lait", "history.jsonl"))
}

/** Appends one entry as one line. */
export const appendEntry = (path: string, entry: HistoryEntry): Effect.Effect<void, HistoryError, FileLoader> =>
  FileLoader.use((files) => files.append(path, entryLine(entry))).pipe(
    Effect.mapError((e) => new HistoryError({ reason: { _tag: "WriteFailed", path, detail: e.detail } }))
  )

/**
 * Every entry, newest first and numbered. A missing file is an empty history. A line that is not an
 * entry is skipped with a warning on stderr: one bad line must not hide every other run.
 */
export const readHistory = (path: string): Effect.Effect<ReadonlyArray<Numbered>, HistoryError, FileLoader> =>
  Effect.gen(function*() {
    // Like every file lait keeps private, never read through a symbolic link (docs/history.md).
    const text = yield* FileLoader.use((files) => files.readOwnText(path, { noFollow: true })).pipe(
      Effect.catch((e) =>
        e.reason._tag === "NotFound"
          ? Effect.succeed("")
          : Effect.fail(new HistoryError({ reason: { _tag: "ReadFailed", path, detail: e.detail } }))
      )
    )
    const { entries, corrupt } = parseHistory(text)
    for (const { line, problem } of corrupt) {
      yield* Console.error(`warning: skipping line ${line} of '${path}': ${problem}`)
    }
    return numberNewestFirst(entries)
  })
