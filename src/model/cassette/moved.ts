// Replays that survive a moved server: when no cassette has a request's exact key, the recordings
// that match it in everything but the base URL (another port, OPENAI_BASE_URL, a proxy in CI). The
// key itself never changes (it hashes the URL, as the original does); only the search is tolerant.
//
// A recording matches when either
//   - the request's key material with the recording's stored base URL in place of its own hashes to
//     the recording's file name: exact for every cassette, the original's included (they store no
//     sampling settings, but the name is their hash), as long as the stored URL is the one hashed,
//     i.e. it had no credentials to mask; or
//   - the recording stores every key field (this lait's cassettes do) and its key material equals the
//     request's once both base URLs are blanked: this covers a stored URL whose credentials are masked.
// The directory is read once and reused until its modification time changes (a file added, renamed
// or removed), so a run's misses cost one scan, not one per request.
import { Effect } from "effect"
import { sha256Hex } from "../../core/sha256.ts"
import * as nodePath from "node:path"
import { FileLoader } from "../../platform/FileLoader.ts"
import type { ChatMessage, ResponseFormat, ToolDefinition } from "../types.ts"
import { type KeyInput, keyMaterial, requestKey } from "./key.ts"
import { scanCassetteDir, type ScannedCassette } from "./scan.ts"

export interface MovedRecording {
  readonly path: string
  /** As stored: credentials masked. */
  readonly recordedUrl: string
}

interface Indexed extends MovedRecording {
  readonly key: string | undefined
}

interface DirIndex {
  readonly byKey: ReadonlyMap<string, Indexed>
  /** Every distinct stored base URL, to rehash a request with. */
  readonly urls: ReadonlySet<string>
  /** By the digest of the key material without its base URL (cassettes storing every key field). */
  readonly byRest: ReadonlyMap<string, ReadonlyArray<Indexed>>
}

const SAMPLING = ["reasoning_effort", "temperature", "top_p", "max_tokens"] as const

const restDigest = (k: KeyInput): string =>
  sha256Hex(keyMaterial({ ...k, base_url: "" }))

const optional = <A>(v: unknown): A | undefined => (v === null || v === undefined ? undefined : v as A)

/** The key input a stored request describes, when it stores every key field. */
const storedKeyInput = (request: Readonly<Record<string, unknown>>): KeyInput | undefined => {
  if (typeof request.model_id !== "string" || !Array.isArray(request.messages) || !Array.isArray(request.tools)) {
    return undefined
  }
  if (!("response_format" in request) || SAMPLING.some((field) => !(field in request))) return undefined
  return {
    base_url: "",
    model_id: request.model_id,
    reasoning_effort: optional<string>(request.reasoning_effort),
    temperature: optional<number>(request.temperature),
    top_p: optional<number>(request.top_p),
    max_tokens: optional<number>(request.max_tokens),
    messages: request.messages as ReadonlyArray<ChatMessage>,
    tools: request.tools as ReadonlyArray<ToolDefinition>,
    response_format: (request.response_format ?? null) as ResponseFormat | null
  }
}

const buildIndex = (cassettes: ReadonlyArray<ScannedCassette>): DirIndex => {
  const byKey = new Map<string, Indexed>()
  const urls = new Set<string>()
  const byRest = new Map<string, Array<Indexed>>()
  for (const c of cassettes) {
    if (c.kind !== "model" || c.request === undefined || typeof c.request.base_url !== "string") continue
    const entry: Indexed = { path: c.path, recordedUrl: c.request.base_url, key: c.key }
    urls.add(entry.recordedUrl)
    if (entry.key !== undefined) byKey.set(entry.key, entry)
    let input: KeyInput | undefined
    try {
      input = storedKeyInput(c.request)
      // A hand-edited request the key builder cannot render is simply not a candidate this way.
      if (input !== undefined) {
        const digest = restDigest(input)
        byRest.set(digest, [...(byRest.get(digest) ?? []), entry])
      }
    } catch {
      continue
    }
  }
  return { byKey, urls, byRest }
}

const indexes = new Map<string, { readonly mtimeMs: number; readonly index: DirIndex }>()

const indexOf = (dir: string): Effect.Effect<DirIndex | undefined, never, FileLoader> =>
  Effect.gen(function*() {
    const absolute = nodePath.resolve(dir)
    const stat = yield* Effect.option(FileLoader.use((files) => files.stat(absolute)))
    if (stat._tag === "None" || !stat.value.isDirectory()) return undefined
    const cached = indexes.get(absolute)
    if (cached !== undefined && cached.mtimeMs === stat.value.mtimeMs) return cached.index
    const scan = yield* Effect.option(scanCassetteDir(dir))
    if (scan._tag === "None") return undefined
    const index = buildIndex(scan.value.cassettes)
    indexes.set(absolute, { mtimeMs: stat.value.mtimeMs, index })
    return index
  })

/** The recordings in `dir` that differ from `input` only in the base URL, by path. */
export const movedRecordings = (
  dir: string,
  input: KeyInput
): Effect.Effect<ReadonlyArray<MovedRecording>, never, FileLoader> =>
  Effect.map(indexOf(dir), (index) => index === undefined ? [] : movedIn(index, input))

const movedIn = (index: DirIndex, input: KeyInput): ReadonlyArray<MovedRecording> => {
  const own = requestKey(input)
  const found = new Map<string, MovedRecording>()
  const add = (entry: Indexed) => {
    if (entry.key !== own) found.set(entry.path, { path: entry.path, recordedUrl: entry.recordedUrl })
  }
  for (const url of index.urls) {
    const hit = index.byKey.get(requestKey({ ...input, base_url: url }))
    if (hit !== undefined) add(hit)
  }
  for (const entry of index.byRest.get(restDigest(input)) ?? []) add(entry)
  return [...found.values()].sort((a, b) => a.path.localeCompare(b.path))
}
