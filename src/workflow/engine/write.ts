// `write:` steps: the file is replaced through a temp file and a rename in its directory (FileLoader's
// `writeUserFile`), so a failed write keeps the old file whole; it keeps its permissions, a symlink is
// written through, and parent directories are never created. A FIFO or device is written in place,
// waiting interruptibly for a reader, so a missing reader cannot hang the run past a timeout or Ctrl-C.
//
// A templated path is the author's directories plus values: a value (a model's answer, say) may only
// fill in a file name, so one that holds `/` or `..` is refused before anything is opened.
import { Effect } from "effect"
import { StepError } from "../stepErrors.ts"
import { writeUserFile } from "../../platform/FileLoader.ts"
import { osErrorText } from "../../platform/process.ts"
import { resolveInRun } from "../../core/runPath.ts"

/** Writes `path` (relative to the run's working directory `cwd`); errors name it as written. */
export const writeOutputFile = (path: string, text: string, cwd: string | undefined): Effect.Effect<void, StepError> =>
  writeUserFile(resolveInRun(cwd, path), text, { createDirs: false }).pipe(
    Effect.mapError((e) => new StepError({ reason: { _tag: "WriteFailed", path, detail: osErrorText(e) } }))
  )

/** The refusal for a rendered `write` path whose templated values (`printed`) leave their directory. */
export const unsafeWritePath = (path: string, printed: ReadonlyArray<string>): StepError | undefined => {
  const value = printed.find((p) => p.includes("/") || p.includes(".."))
  if (value === undefined) return undefined
  return new StepError({ reason: { _tag: "UnsafeWritePath", path, value } })
}
