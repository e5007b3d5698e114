// Which cassette files a run actually read. Every replaying reader reports each file it answers from
// to `CassetteUse` — the model replay (src/model/Replay.ts) does, and so must any other reader of a
// cassette directory (tool cassettes, replayed repeats): call `(yield* CassetteUse).used(path)` with
// the path of the file read, before reading it. Outside `lait cassettes prune` nobody listens (the
// default ignores every report); prune provides a collector and lists the files no test reported.
import { Context } from "effect"
import * as nodePath from "node:path"

export interface CassetteUseService {
  readonly used: (path: string) => void
}

export const CassetteUse = Context.Reference<CassetteUseService>("lait/model/cassette/CassetteUse", {
  defaultValue: () => ({ used: () => {} })
})

/** A collector for `CassetteUse`: absolute paths, so a file reached by two spellings counts once. */
export const collectCassetteUse = (): { readonly service: CassetteUseService; readonly paths: Set<string> } => {
  const paths = new Set<string>()
  return { service: { used: (path) => void paths.add(nodePath.resolve(path)) }, paths }
}
