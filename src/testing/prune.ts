// `lait cassettes prune PATH…`: which cassette files in the tests' `replay:` directories no test
// reads. The tests run in replay exactly as `lait test` runs them, with a CassetteUse collector
// listening (src/model/cassette/used.ts: every replaying reader reports the files it answers from);
// a file nobody reported is unused. Only a suite that passes completely says what it uses: one that
// errors or fails may have stopped before a request whose cassette would then look unused. Tool
// cassettes are read only by tests that replay tools: a directory's tool cassettes are judged only
// when every test replaying from it replays tools too (`replay_tools`, `--replay-tools`); otherwise a
// later `lait test --replay-tools` would miss the ones a live-tools run never looked at.
import { Effect } from "effect"
import * as nodePath from "node:path"
import type { LaitConfig } from "../config/LaitConfig.ts"
import { FileError } from "../core/fileErrors.ts"
import { scanCassetteDir } from "../model/cassette/scan.ts"
import { CassetteUse, collectCassetteUse } from "../model/cassette/used.ts"
import { describeOsError, type FileLoader } from "../platform/FileLoader.ts"
import type { AssertionEvaluator } from "./AssertionEvaluator.ts"
import { joinPath, parentPath } from "./discovery.ts"
import { runTestSuite, type TestOutcome } from "./runner.ts"

export type PruneResult = PruneFindings | {
  /** The files that did not pass: nothing can be pruned. */
  readonly failing: ReadonlyArray<TestOutcome>
  readonly total: number
}

export interface PruneFindings {
  /** Unused cassette files, as the test files' paths spell them, by directory then name. */
  readonly unused: ReadonlyArray<string>
  /** Lines for stderr: `*.json` files in those directories that are not cassettes (never listed). */
  readonly warnings: ReadonlyArray<string>
  /** Tool cassettes not judged, since a test reading their directory ran its tools live. */
  readonly toolsLeftAlone: number
  /** Whether any test replayed its tools. */
  readonly toolsReplayed: boolean
}

/** Runs `files` in replay and finds the cassette files none of them used, when all of them pass. */
export const unusedCassettes = (
  files: ReadonlyArray<string>,
  options: { readonly replayTools: boolean }
): Effect.Effect<PruneResult, FileError, LaitConfig | AssertionEvaluator | FileLoader> =>
  Effect.gen(function*() {
    const collector = collectCassetteUse()
    const outcomes = yield* runTestSuite(files, { replayTools: options.replayTools })
      .pipe(Effect.provideService(CassetteUse, collector.service))
    const failing = outcomes.filter((o) => o.status !== "pass" || o.evaluated === undefined)
    if (failing.length > 0) return { failing, total: outcomes.length }
    // By resolved path: the directory as first spelled, and whether every test reading it replayed tools.
    const dirs = new Map<string, { readonly dir: string; toolsReplayed: boolean }>()
    let toolsReplayed = false
    for (const o of outcomes) {
      const { definition } = o.evaluated!
      const dir = joinPath(parentPath(o.file), definition.replay)
      const replayed = options.replayTools || definition.replayTools
      toolsReplayed ||= replayed
      const known = dirs.get(nodePath.resolve(dir))
      if (known === undefined) dirs.set(nodePath.resolve(dir), { dir, toolsReplayed: replayed })
      else known.toolsReplayed &&= replayed
    }
    const unused: Array<string> = []
    const warnings: Array<string> = []
    let toolsLeftAlone = 0
    for (const { dir, toolsReplayed: judgeTools } of dirs.values()) {
      const scan = yield* Effect.try({
        try: () => scanCassetteDir(dir),
        catch: (e) =>
          new FileError({
            reason: { _tag: "ListFailed", path: dir, what: "cassette directory", detail: describeOsError(e) }
          })
      })
      warnings.push(...scan.problems.map((p) => `warning: not a cassette, left alone: ${p}`))
      for (const c of scan.cassettes) {
        if (c.kind === "tool" && !judgeTools) toolsLeftAlone++
        else if (!collector.paths.has(nodePath.resolve(c.path))) unused.push(c.path)
      }
    }
    return { unused, warnings, toolsLeftAlone, toolsReplayed }
  })
