// Reading a whole cassette directory: what `lait cassettes ls` prints, what `prune` may delete, and
// what a replay that missed searches for a recording made against another base URL (./moved.ts).
// Model cassettes are `{recorded_at, request, response}` (the request only for people and diffs);
// tool cassettes carry `"kind": "tool"`. Anything else named `*.json` is reported, never used.
import { Effect } from "effect"
import * as nodePath from "node:path"
import type { FileError } from "../../core/fileErrors.ts"
import { FileLoader, READ_LIMIT } from "../../platform/FileLoader.ts"

export interface ScannedCassette {
  readonly name: string
  readonly path: string
  readonly kind: "model" | "tool"
  /** The SHA-256 request key of a model cassette named `<key>.json`; undefined for any other name. */
  readonly key: string | undefined
  readonly recordedAt: string | undefined
  /** The request as stored (base URL masked), when the file has one. */
  readonly request: Readonly<Record<string, unknown>> | undefined
  /** The whole parsed file (tool cassettes are described from it). */
  readonly value: Readonly<Record<string, unknown>>
}

export interface CassetteScan {
  readonly cassettes: ReadonlyArray<ScannedCassette>
  /** `'<path>': <why it is not a cassette>`, one per rejected `*.json` file. */
  readonly problems: ReadonlyArray<string>
}

const KEY_NAME = /^([0-9a-f]{64})\.json$/

const asRecord = (v: unknown): Record<string, unknown> | undefined =>
  typeof v === "object" && v !== null && !Array.isArray(v) ? v as Record<string, unknown> : undefined

/** One file, or why it is not a cassette. */
const scanFile = Effect.fnUntraced(function*(dir: string, name: string) {
  const path = nodePath.join(dir, name)
  const files = yield* FileLoader
  const read = yield* Effect.result(Effect.gen(function*() {
    // Only regular files: a FIFO named *.json would block this synchronous read forever.
    const stat = yield* files.stat(path)
    if (!stat.isFile()) return "not a regular file"
    if (stat.size > READ_LIMIT) return "larger than the 16 MiB read limit"
    return { text: yield* files.readOwnText(path) }
  }))
  if (read._tag === "Failure") return `cannot be read (${read.failure.detail})`
  if (typeof read.success === "string") return read.success
  return parseCassette(path, name, read.success.text)
})

const parseCassette = (path: string, name: string, text: string): ScannedCassette | string => {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch (e) {
    return `not valid JSON (${e instanceof Error ? e.message : String(e)})`
  }
  const value = asRecord(parsed)
  if (value === undefined) return "expected a JSON object"
  // A call's answer (`kind: "tool"`) and an MCP server's tool list (`kind: "tool-list"`) are both tool cassettes.
  const kind = value.kind === "tool" || value.kind === "tool-list" ? "tool" : "response" in value ? "model" : undefined
  if (kind === undefined) return "neither a model cassette (no 'response') nor a tool cassette"
  return {
    name,
    path,
    kind,
    key: kind === "model" ? KEY_NAME.exec(name)?.[1] : undefined,
    recordedAt: typeof value.recorded_at === "string" ? value.recorded_at : undefined,
    request: asRecord(value.request),
    value
  }
}

/** Every `*.json` file of `dir` (not its subdirectories), by name; fails when the listing does. */
export const scanCassetteDir = (dir: string): Effect.Effect<CassetteScan, FileError, FileLoader> =>
  Effect.gen(function*() {
    const names = (yield* FileLoader.use((files) => files.listNames(dir))).filter((n) => n.endsWith(".json")).sort()
    const cassettes: Array<ScannedCassette> = []
    const problems: Array<string> = []
    for (const name of names) {
      const scanned = yield* scanFile(dir, name)
      if (typeof scanned === "string") problems.push(`'${nodePath.join(dir, name)}': ${scanned}`)
      else cassettes.push(scanned)
    }
    return { cassettes, problems }
  })
