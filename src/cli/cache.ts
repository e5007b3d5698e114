// `lait cache clear`: deletes `.lait/cache/` under the current directory (a missing one is fine).
// A symlinked `.lait` or `.lait/cache` is refused: a recursive delete through it would empty whatever
// directory the link points at, which is not the cache lait wrote.
import { Effect } from "effect"
import { Command } from "effect/cli"
import * as nodePath from "node:path"
import { FileError } from "../core/fileErrors.ts"
import { FileLoader } from "../platform/FileLoader.ts"
import { CommandError } from "./commandErrors.ts"
import { CACHE_DIR } from "./modelLayers.ts"
import { printLine } from "./output.ts"

const clear = Command.make("clear", {}, () =>
  Effect.gen(function*() {
    const dir = nodePath.resolve(CACHE_DIR)
    const files = yield* FileLoader
    // An unreadable component is left to the removal below to report.
    const link = yield* Effect.orElseSucceed(files.symlinkOnPath(dir), () => undefined)
    if (link !== undefined) return yield* new CommandError({ reason: { _tag: "CacheSymlink", path: link } })
    yield* files.removeTree(dir).pipe(
      // The OS error's own words, as the removal has always reported them.
      Effect.mapError((e) => new FileError({ reason: { _tag: "RemoveFailed", path: dir, detail: e.os.message } }))
    )
    yield* printLine("cache cleared")
  })).pipe(Command.withDescription("Delete the response cache (.lait/cache/ in the current directory)"))

export const cacheCommand = Command.make("cache").pipe(
  Command.withDescription("Manage the response cache used by --cache"),
  Command.withSubcommands([clear])
)
