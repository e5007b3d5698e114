// `lait cache clear`: deletes `.lait/cache/` under the current directory (a missing one is fine).
// A symlinked `.lait` or `.lait/cache` is refused: a recursive delete through it would empty whatever
// directory the link points at, which is not the cache lait wrote.
import { Effect } from "effect"
import { Command } from "effect/cli"
import * as Files from "../platform/files.ts"
import * as nodePath from "node:path"
import { FileError } from "../core/fileErrors.ts"
import { CommandError } from "./commandErrors.ts"
import { CACHE_DIR } from "./modelLayers.ts"
import { printLine } from "./output.ts"

const clear = Command.make("clear", {}, () =>
  Effect.gen(function*() {
    const dir = nodePath.resolve(CACHE_DIR)
    // An unreadable component is left to rmSync below to report.
    const link = yield* Effect.orElseSucceed(Effect.try(() => Files.symlinkOnPath(dir)), () => undefined)
    if (link !== undefined) return yield* new CommandError({ reason: { _tag: "CacheSymlink", path: link } })
    yield* Effect.try({
      try: () => Files.removeTree(dir),
      catch: (e) => {
        const detail = e instanceof Error ? e.message : String(e)
        return new FileError({ reason: { _tag: "RemoveFailed", path: dir, detail } })
      }
    })
    yield* printLine("cache cleared")
  })).pipe(Command.withDescription("Delete the response cache (.lait/cache/ in the current directory)"))

export const cacheCommand = Command.make("cache").pipe(
  Command.withDescription("Manage the response cache used by --cache"),
  Command.withSubcommands([clear])
)
