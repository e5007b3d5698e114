// `write:` steps: a plain (not atomic) write, like `fs.write` — the file is truncated and rewritten in
// place, keeping its inode, permissions and links, and parent directories are never created. The
// target may be a FIFO: FileLoader's `writeStream` opens it non-blocking and waits, so a missing reader
// cannot hang the run past a timeout or Ctrl-C.
//
// A templated path is the author's directories plus values: a value (a model's answer, say) may only
// fill in a file name, so one that holds `/` or `..` is refused before anything is opened.
import * as fs from "node:fs"
import { Effect } from "effect"
import { LaitError } from "../../core/errors.ts"
import { isStreamTarget, writeStream } from "../../core/FileLoader.ts"
import { osErrorText } from "./process.ts"

const failure = (path: string, cause: unknown) =>
  new LaitError({ message: `failed to write output to '${path}'`, cause: osErrorText(cause) })

export const writeOutputFile = (path: string, text: string): Effect.Effect<void, LaitError> =>
  Effect.suspend(() =>
    isStreamTarget(path)
      ? writeStream(path, text).pipe(Effect.mapError((e) => failure(path, e)))
      : Effect.try({ try: () => fs.writeFileSync(path, text), catch: (e) => failure(path, e) })
  )

/** The refusal for a rendered `write` path whose templated values (`printed`) leave their directory. */
export const unsafeWritePath = (path: string, printed: ReadonlyArray<string>): LaitError | undefined => {
  const value = printed.find((p) => p.includes("/") || p.includes(".."))
  if (value === undefined) return undefined
  const what = value.includes("/") ? "'/'" : "'..'"
  return new LaitError({
    message: `refusing to write ${JSON.stringify(path)}: the templated value ${JSON.stringify(value)} contains ${what}; ` +
      "a value in a 'write' path may only fill in a file name"
  })
}
