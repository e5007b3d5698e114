// `write:` steps: a plain (not atomic) write, like `fs.write` — the file is truncated and rewritten in
// place, keeping its inode, permissions and links, and parent directories are never created. The
// target may be a FIFO: FileLoader's `writeStream` opens it non-blocking and waits, so a missing reader
// cannot hang the run past a timeout or Ctrl-C.
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
