// Tool cassettes (docs/record-replay.md#tool-cassettes): the files beside the model cassettes that hold
// what a tool call answered. A call is keyed by the tool's qualified name, its arguments as canonical
// JSON and how many times the run had made that same call before, so a tool asked the same thing twice
// replays both answers in order. The `tool-` prefix can never be a model cassette's name (those are
// 64 hex digits), so neither replay mistakes one for the other.
import { Effect } from "effect"
import { sha256Hex } from "../../core/sha256.ts"
import * as nodePath from "node:path"
import { recordingNames, recordingText, requestDiff } from "../../model/cassette/diff.ts"
import { parseCassetteObject } from "../../model/cassette/format.ts"
import type { FileLoader } from "../../platform/FileLoader.ts"

export const TOOL_CASSETTE_PREFIX = "tool-"
const LIST_PREFIX = "tool-list-"

/** Whether a file in a cassette directory is a tool cassette (a call's or a server's tool list). */
export const isToolCassetteName = (name: string): boolean => name.startsWith(TOOL_CASSETTE_PREFIX)

const sortKeys = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(sortKeys)
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(
      Object.keys(value).sort().map((k) => [k, sortKeys((value as Record<string, unknown>)[k])])
    )
  }
  return value
}

/**
 * A call's raw arguments as a value with sorted keys: the model may order keys or space them
 * differently between runs without asking anything else. Blank and `null` mean `{}`, as for the tools.
 */
export const canonicalArguments = (raw: string): unknown => {
  if (raw.trim() === "") return {}
  let value: unknown
  try {
    value = JSON.parse(raw)
  } catch {
    // The tool loop answers such a call itself; keep it keyable all the same.
    return raw
  }
  return value === null ? {} : sortKeys(value)
}

/** `tool-<sha256>.json` of one call. */
export const callFileName = (tool: string, args: unknown, occurrence: number): string =>
  `${TOOL_CASSETTE_PREFIX}${sha256Hex(JSON.stringify({ tool, arguments: args, occurrence }))}.json`

/** `tool-list-<server>.json`; a name that is not file-safe gets a hash, so two names never share a file. */
export const listFileName = (server: string): string => {
  const safe = server.replace(/[^A-Za-z0-9_-]/g, "_")
  if (safe === server && safe.length > 0 && safe.length <= 100) return `${LIST_PREFIX}${safe}.json`
  return `${LIST_PREFIX}${safe.slice(0, 40)}-${sha256Hex(server).slice(0, 16)}.json`
}

export interface CallCassette {
  readonly kind: "tool"
  readonly tool: string
  readonly arguments: unknown
  readonly occurrence: number
  readonly recorded_at: string
  /** The tool message's text exactly as the model got it (an error the tool reported included). */
  readonly result: string
}

export interface ListCassette {
  readonly kind: "tool-list"
  readonly server: string
  readonly recorded_at: string
  readonly tools: ReadonlyArray<unknown>
}

/** The recorded result of a call cassette's text, or why there is none (one clause). */
export const readCallResult = (text: string): { readonly result: string } | { readonly problem: string } => {
  const value = parseCassetteObject(text)
  if (typeof value === "string") return { problem: value }
  if (value.kind !== "tool") return { problem: "not a tool call cassette (expected \"kind\": \"tool\")" }
  if (typeof value.result !== "string") return { problem: "missing string field 'result'" }
  return { result: value.result }
}

/** The recorded tool list of a list cassette's text, or why there is none. */
export const readToolList = (
  text: string
): { readonly tools: ReadonlyArray<unknown> } | { readonly problem: string } => {
  const value = parseCassetteObject(text)
  if (typeof value === "string") return { problem: value }
  if (value.kind !== "tool-list") return { problem: "not a tool list cassette (expected \"kind\": \"tool-list\")" }
  if (!Array.isArray(value.tools)) return { problem: "missing array field 'tools'" }
  const bad = value.tools.findIndex((t: unknown) =>
    typeof t !== "object" || t === null || typeof (t as { name?: unknown }).name !== "string"
  )
  if (bad !== -1) return { problem: `tools[${bad}] is not a tool (an object with a string 'name')` }
  return { tools: value.tools }
}

/** Compact JSON, shortened for an error line. */
export const shortJson = (value: unknown, max = 80): string => {
  const text = JSON.stringify(value) ?? "null"
  return text.length > max ? `${text.slice(0, max - 1)}…` : text
}

/**
 * Why a replayed call found no cassette, in one clause: the recording of the same tool whose arguments
 * differ in the fewest places (and where), or that the same call was recorded fewer times.
 */
export const closestToolRecording = (
  dir: string,
  tool: string,
  args: unknown,
  occurrence: number
): Effect.Effect<string, never, FileLoader> =>
  Effect.gen(function*() {
    const names = yield* recordingNames(dir, (n) => isToolCassetteName(n) && !n.startsWith(LIST_PREFIX))
    if (typeof names === "string") return names
    const wanted = JSON.stringify(args)
    let sameCalls = 0
    let best: { name: string; occurrence: number; diffs: Array<string> } | undefined
    for (const name of names) {
      const text = yield* recordingText(nodePath.join(dir, name))
      if (text === undefined) continue
      let recorded: Partial<CallCassette>
      try {
        recorded = JSON.parse(text) as Partial<CallCassette>
      } catch {
        continue
      }
      // `null` parses too, and has no fields to read.
      if (recorded?.kind !== "tool" || recorded.tool !== tool) continue
      if (JSON.stringify(recorded.arguments) === wanted) {
        sameCalls++
        continue
      }
      const diffs = requestDiff({ arguments: recorded.arguments }, { arguments: args })
      const seen = typeof recorded.occurrence === "number" ? recorded.occurrence : 1
      if (
        best === undefined || diffs.length < best.diffs.length ||
        (diffs.length === best.diffs.length && seen < best.occurrence)
      ) {
        best = { name, occurrence: seen, diffs }
      }
    }
    if (sameCalls > 0) {
      return `'${tool}' was recorded with these arguments ${sameCalls} time${sameCalls === 1 ? "" : "s"}, ` +
        `and this is call ${occurrence}`
    }
    if (best === undefined) return `'${dir}' holds no recordings of tool '${tool}'`
    const shown = best.diffs.slice(0, 5).join(", ")
    const more = best.diffs.length > 5 ? ` and ${best.diffs.length - 5} more` : ""
    return `the closest recording of '${tool}', '${nodePath.join(dir, best.name)}', differs at ${shown}${more}`
  })
