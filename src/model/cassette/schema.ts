// The Effect Schema decoders of cassette and cache entry files: loaded with `import()` by the replay
// and cache layers on the first file they read, so that a run that reads none never evaluates them.
import { Schema } from "effect"

/** `.lait/cache/<key>.json`: the answer and when it was stored (for the TTL). */
export const CachedEntry = Schema.Struct({ created_at: Schema.String, response: Schema.Unknown })

/** `<dir>/<key>.json`: only the answer is read back; the request is there for people and diffs. */
export const Cassette = Schema.Struct({ response: Schema.Unknown })
export type Cassette = typeof Cassette.Type

const cassette = Schema.decodeUnknownExit(Schema.fromJsonString(Cassette))
const cachedEntry = Schema.decodeUnknownExit(Schema.fromJsonString(CachedEntry))

/** A cassette's text decoded, or undefined when it is not one. */
export const decodeCassette = (text: string): Cassette | undefined => {
  const exit = cassette(text)
  return exit._tag === "Success" ? exit.value : undefined
}

/** A cache entry's text decoded, or undefined when it is not one. */
export const decodeCachedEntry = (text: string): typeof CachedEntry.Type | undefined => {
  const exit = cachedEntry(text)
  return exit._tag === "Success" ? exit.value : undefined
}
