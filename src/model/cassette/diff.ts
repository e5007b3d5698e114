// When a replay misses, say why: find the recorded request in the cassette directory that differs
// from the current one in the fewest places, and name those places (`messages[2].content`, ...).
import { Effect } from "effect"
import * as nodePath from "node:path"
import { errnoOf, FileLoader, READ_LIMIT } from "../../platform/FileLoader.ts"
import { displayUrl } from "../../core/urls.ts"
import { type KeyInput, keyMaterial } from "./key.ts"

const MAX_FILES = 5000
const MAX_DIFFS_SHOWN = 5

const flatten = (value: unknown, path: string, out: Map<string, unknown>) => {
  if (Array.isArray(value)) {
    if (value.length === 0) out.set(path, [])
    value.forEach((v, i) => flatten(v, `${path}[${i}]`, out))
  } else if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value)
    if (entries.length === 0) out.set(path, {})
    for (const [k, v] of entries) flatten(v, path === "" ? k : `${path}.${k}`, out)
  } else {
    out.set(path, value)
  }
}

const leaves = (value: unknown) => {
  const out = new Map<string, unknown>()
  flatten(value, "", out)
  return out
}

const show = (v: unknown): string => {
  if (v === undefined) return "absent"
  const text = JSON.stringify(v)
  return text.length > 60 ? `${text.slice(0, 57)}…` : text
}

const WINDOW = 48

/**
 * Two long strings shown around their first difference: prompts often differ deep inside (an input
 * rendered into a template), where a plain prefix would look identical on both sides.
 */
const showStrings = (x: string, y: string): readonly [string, string] => {
  let i = 0
  while (i < x.length && i < y.length && x[i] === y[i]) i++
  const start = Math.max(0, i - WINDOW / 2)
  const clip = (s: string) => {
    const body = JSON.stringify(s.slice(start, start + WINDOW)).slice(1, -1)
    return `"${start > 0 ? "…" : ""}${body}${start + WINDOW < s.length ? "…" : ""}"`
  }
  return [clip(x), clip(y)]
}

/** Differences between two requests, as `path (recorded X, requested Y)` items in the key's field order. */
export const requestDiff = (recorded: unknown, requested: unknown): Array<string> => {
  const a = leaves(recorded)
  const b = leaves(requested)
  const paths = new Set([...a.keys(), ...b.keys()])
  const diffs: Array<string> = []
  for (const p of paths) {
    const x = a.get(p)
    const y = b.get(p)
    if (JSON.stringify(x) === JSON.stringify(y)) continue
    const [sx, sy] = typeof x === "string" && typeof y === "string" && (x.length > WINDOW || y.length > WINDOW)
      ? showStrings(x, y)
      : [show(x), show(y)]
    diffs.push(`${p} (recorded ${sx}, requested ${sy})`)
  }
  return diffs
}

/**
 * The names in a cassette directory that `keep` selects, sorted, at most MAX_FILES of them; or, when
 * the directory cannot be listed, the clause that says so (for a replay miss's message).
 */
export const recordingNames = (
  dir: string,
  keep: (name: string) => boolean
): Effect.Effect<ReadonlyArray<string> | string, never, FileLoader> =>
  Effect.gen(function*() {
    const listed = yield* Effect.result((yield* FileLoader).listNames(dir))
    if (listed._tag === "Failure") {
      if (errnoOf(listed.failure.os) === "ENOTDIR") return `'${dir}' is a file, not a cassette directory`
      return `the cassette directory '${dir}' does not exist or cannot be read`
    }
    return listed.success.filter(keep).sort().slice(0, MAX_FILES)
  })

/** A recording's text, or undefined when it is not a regular file within READ_LIMIT or cannot be read. */
export const recordingText = (file: string): Effect.Effect<string | undefined, never, FileLoader> =>
  Effect.gen(function*() {
    const files = yield* FileLoader
    // Only regular files: a FIFO would block this synchronous read forever.
    const stat = yield* Effect.option(files.stat(file))
    if (stat._tag === "None" || !stat.value.isFile() || stat.value.size > READ_LIMIT) return undefined
    const text = yield* Effect.option(files.readOwnText(file))
    return text._tag === "None" ? undefined : text.value
  })

/** One clause for the replay-miss error, or undefined when nothing useful can be said. */
export const closestRecording = (
  dir: string,
  current: KeyInput
): Effect.Effect<string | undefined, never, FileLoader> =>
  Effect.gen(function*() {
    // `tool-….json` files are tool cassettes (src/tools/cassette/format.ts), never a model request's.
    const names = yield* recordingNames(dir, (n) => n.endsWith(".json") && !n.startsWith("tool-"))
    if (typeof names === "string") return names
    if (names.length === 0) return `'${dir}' holds no recordings`
    // Cassettes store the base URL with its credentials masked; compare (and show) both sides that way.
    const requested = { ...JSON.parse(keyMaterial(current)), base_url: displayUrl(current.base_url) } as Record<
      string,
      unknown
    >
    let best: { name: string; diffs: Array<string> } | undefined
    for (const name of names) {
      const text = yield* recordingText(nodePath.join(dir, name))
      if (text === undefined) continue
      const diffs = diffsOf(text, requested)
      if (diffs !== undefined && (best === undefined || diffs.length < best.diffs.length)) best = { name, diffs }
    }
    if (best === undefined) return undefined
    if (best.diffs.length === 0) {
      return `the closest recording, '${nodePath.join(dir, best.name)}', matches in every field it stores ` +
        "(a base URL's credentials are stored masked, yet a different one is a different request)"
    }
    const shown = best.diffs.slice(0, MAX_DIFFS_SHOWN).join(", ")
    const more = best.diffs.length > MAX_DIFFS_SHOWN ? ` and ${best.diffs.length - MAX_DIFFS_SHOWN} more` : ""
    return `the closest recording, '${nodePath.join(dir, best.name)}', differs at ${shown}${more}`
  })

/** Where a recording's request differs from the requested one; undefined when it is not a model cassette. */
const diffsOf = (text: string, requested: Record<string, unknown>): Array<string> | undefined => {
  try {
    const parsed = JSON.parse(text) as { request?: Record<string, unknown> }
    if (parsed.request === undefined) return undefined
    // Cassettes from the Rust lait record only these fields; compare what both sides have.
    const recorded = typeof parsed.request.base_url === "string"
      ? { ...parsed.request, base_url: displayUrl(parsed.request.base_url) }
      : parsed.request
    const comparable = Object.fromEntries(
      Object.keys(requested).filter((k) => k in recorded).map((k) => [k, requested[k]])
    )
    return requestDiff(recorded, comparable)
  } catch {
    return undefined
  }
}
