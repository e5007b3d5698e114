// `lait cache clear`: deletes `.lait/cache/` under the current directory (a missing one is fine).
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { Effect } from "effect"
import { Command } from "effect/cli"
import { LaitError } from "../core/errors.ts"
import { printLine } from "./output.ts"

export const CACHE_DIR = nodePath.join(".lait", "cache")

const clear = Command.make("clear", {}, () =>
  Effect.gen(function*() {
    const dir = nodePath.resolve(CACHE_DIR)
    yield* Effect.try({
      try: () => fs.rmSync(dir, { recursive: true, force: true }),
      catch: (e) => new LaitError({ message: `failed to remove '${dir}'`, cause: e instanceof Error ? e.message : String(e) })
    })
    yield* printLine("cache cleared")
  })).pipe(Command.withDescription("Delete the response cache (.lait/cache/ in the current directory)"))

export const cacheCommand = Command.make("cache").pipe(
  Command.withDescription("Manage the response cache used by --cache"),
  Command.withSubcommands([clear])
)
