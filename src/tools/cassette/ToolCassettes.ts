// Recorded tools (docs/record-replay.md#tool-cassettes). With `--record DIR` every shell or MCP tool
// call's result, and every MCP server's tool list, is also written to DIR; with `--replay-tools` (or a
// test file's `replay_tools: true`) they are answered from there, so no tool command runs and no MCP
// server starts, not even to list its tools. Subagents are not recorded here: their model requests
// are model cassettes already. One tape per run: the occurrence numbers count that run's calls.
import { Effect, Redacted } from "effect"
import * as nodePath from "node:path"
import { DUMMY_API_KEY } from "../../config/endpoints.ts"
import { causeDetail, type AnyLaitError } from "../../core/errors.ts"
import { redactSecrets } from "../../core/secrets.ts"
import { ToolError } from "../toolErrors.ts"
import type { Endpoint } from "../../model/call.ts"
import { CassetteRepeat, cassetteFile, replayFile } from "../../model/cassette/repeat.ts"
import { CassetteUse } from "../../model/cassette/used.ts"
import { RecordHint } from "../../model/recordHint.ts"
import { unreadableSize } from "../../model/cassette/entryText.ts"
import { secretsOf } from "../../model/endpointSecrets.ts"
import { FileLoader } from "../../platform/FileLoader.ts"
import { type ToolCassetteMode, ToolCassettes } from "./mode.ts"
import {
  callFileName,
  canonicalArguments,
  closestToolRecording,
  listFileName,
  readCallResult,
  readToolList,
  shortJson
} from "./format.ts"

export interface ToolTape {
  readonly mode: ToolCassetteMode["mode"]
  /**
   * Remembers the secrets of the endpoint that answered (its key, resolved by then) and of every
   * endpoint's URL, to be masked in whatever is recorded afterwards.
   */
  readonly noteEndpoints: (answered: Endpoint, all: ReadonlyArray<Endpoint>) => Effect.Effect<void>
  /**
   * One tool call: `live` runs it, unless replaying; recorded afterwards when recording. `secrets`
   * (asked for after `live` ran: an MCP server knows its own only once started) are masked too.
   */
  readonly call: (
    tool: string,
    args: string,
    live: Effect.Effect<string, AnyLaitError>,
    secrets?: () => ReadonlyArray<string>
  ) => Effect.Effect<string, AnyLaitError>
  /** An MCP server's tool list: `live` lists it (starting the server), unless replaying. */
  readonly list: (
    server: string,
    live: Effect.Effect<ReadonlyArray<unknown>, AnyLaitError>,
    secrets?: () => ReadonlyArray<string>
  ) => Effect.Effect<ReadonlyArray<unknown>, AnyLaitError>
}

const nowRfc3339 = () => new Date().toISOString()

/** How the running command records the tool cassettes of `dir` (src/model/recordHint.ts). */
const recordWith = (dir: string) =>
  Effect.map(Effect.service(RecordHint), (hint) => ({ command: hint.command(dir, true), same: hint.same }))

/** The tape of one run, in the mode `ToolCassettes` holds where it is built. */
export const makeToolTape: Effect.Effect<ToolTape, never, FileLoader> = Effect.gen(function*() {
  const mode = yield* ToolCassettes
  const files = yield* FileLoader
  if (mode.mode === "live") {
    return { mode: "live", noteEndpoints: () => Effect.void, call: (_t, _a, live) => live, list: (_s, live) => live }
  }
  const dir = mode.dir
  const occurrences = new Map<string, number>()
  const secrets = new Set<string>()

  const nextOccurrence = (tool: string, args: unknown): number => {
    const key = JSON.stringify([tool, args])
    const n = (occurrences.get(key) ?? 0) + 1
    occurrences.set(key, n)
    return n
  }

  // The same masking as the logs': every spelling of a secret becomes `<redacted>`. Like a model
  // cassette, one that could never be read back is not written, and the run fails.
  const write = (path: string, fields: Record<string, unknown>, extra: () => ReadonlyArray<string>) =>
    Effect.gen(function*() {
      let body: string
      try {
        body = `${JSON.stringify(fields, null, 2)}\n`
      } catch (e) {
        const reason = e instanceof Error ? e.message : String(e)
        return yield* new ToolError({ reason: { _tag: "CassetteUnwritable", path, problem: reason } })
      }
      const text = redactSecrets(body, [...secrets, ...extra()], [DUMMY_API_KEY])
      const problem = unreadableSize(text)
      if (problem !== undefined) {
        return yield* new ToolError({ reason: { _tag: "CassetteUnwritable", path, problem } })
      }
      yield* files.writeAtomic(path, text)
    })

  const readRecorded = (path: string) =>
    files.readText(path).pipe(
      Effect.mapError((e) =>
        new ToolError({
          reason: { _tag: "CassetteInvalid", path, problem: causeDetail(e) }
        })
      )
    )

  const invalid = (path: string, problem: string) =>
    Effect.fail(new ToolError({ reason: { _tag: "CassetteInvalid", path, problem } }))

  const noteEndpoints = (answered: Endpoint, all: ReadonlyArray<Endpoint>) =>
    mode.mode === "replay" ? Effect.void : Effect.gen(function*() {
      // Resolved for the request just answered, so this runs no api_key_cmd; a failure masks nothing.
      const key = yield* answered.apiKey.pipe(Effect.orElseSucceed(() => undefined))
      const found = [
        ...secretsOf(key === undefined ? undefined : Redacted.value(key), answered.baseUrl, answered.headers),
        ...all.flatMap((e) => secretsOf(undefined, e.baseUrl))
      ]
      for (const secret of found) if (secret !== undefined) secrets.add(secret)
    })

  const call = (
    tool: string,
    raw: string,
    live: Effect.Effect<string, AnyLaitError>,
    extra: () => ReadonlyArray<string> = () => []
  ): Effect.Effect<string, AnyLaitError> =>
    Effect.gen(function*() {
      const args = canonicalArguments(raw)
      const occurrence = nextOccurrence(tool, args)
      // Each repeat of an eval keeps its own answers, as its model cassettes do (src/model/cassette/repeat.ts).
      const repeat = yield* CassetteRepeat
      const key = callFileName(tool, args, occurrence).replace(/\.json$/, "")
      const path = yield* replayFile(files, dir, key, repeat)
      const exists = yield* files.exists(path)
      if (mode.mode === "record" || (mode.mode === "record-missing" && !exists)) {
        const result = yield* live
        const fields = { kind: "tool", tool, arguments: args, occurrence, recorded_at: nowRfc3339(), result }
        yield* write(cassetteFile(dir, key, repeat), fields, extra)
        return result
      }
      if (!exists) {
        const hint = yield* Effect.provideService(closestToolRecording(dir, tool, args, occurrence), FileLoader, files)
        return yield* new ToolError({
          reason: {
            _tag: "CassetteMissing",
            tool,
            arguments: shortJson(args),
            occurrence,
            path,
            dir,
            hint,
            record: yield* recordWith(dir)
          }
        })
      }
      const use = yield* CassetteUse
      use.used(path)
      const read = readCallResult(yield* readRecorded(path))
      if ("problem" in read) return yield* invalid(path, read.problem)
      yield* Effect.logDebug(`tool '${tool}' (call ${occurrence}) replayed from '${path}'`)
      return read.result
    })

  const list = (
    server: string,
    live: Effect.Effect<ReadonlyArray<unknown>, AnyLaitError>,
    extra: () => ReadonlyArray<string> = () => []
  ): Effect.Effect<ReadonlyArray<unknown>, AnyLaitError> => {
    const path = nodePath.join(dir, listFileName(server))
    return Effect.gen(function*() {
      const exists = yield* files.exists(path)
      if (mode.mode === "record" || (mode.mode === "record-missing" && !exists)) {
        const tools = yield* live
        yield* write(path, { kind: "tool-list", server, recorded_at: nowRfc3339(), tools }, extra)
        return tools
      }
      if (!exists) {
        const record = yield* recordWith(dir)
        return yield* new ToolError({ reason: { _tag: "ListCassetteMissing", server, path, dir, record } })
      }
      const use = yield* CassetteUse
      use.used(path)
      const read = readToolList(yield* readRecorded(path))
      if ("problem" in read) return yield* invalid(path, read.problem)
      yield* Effect.logDebug(`MCP server '${server}': tool list replayed from '${path}'; the server is not started`)
      return read.tools
    })
  }

  return { mode: mode.mode, noteEndpoints, call, list }
})
