// `lait cassettes prune PATH…`: which cassette files in the tests' `replay:` directories no test
// reads. The tests run in replay exactly as `lait test` runs them, with a CassetteUse collector
// listening (src/model/cassette/used.ts: every replaying reader reports the files it answers from);
// a file nobody reported is unused. Only a suite that passes completely says what it uses: one that
// errors or fails may have stopped before a request whose cassette would then look unused.
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
}

/** Runs `files` in replay and finds the cassette files none of them used, when all of them pass. */
export const unusedCassettes = (
  files: ReadonlyArray<string>
): Effect.Effect<PruneResult, FileError, LaitConfig | AssertionEvaluator | FileLoader> =>
  Effect.gen(function*() {
    const collector = collectCassetteUse()
    const outcomes = yield* runTestSuite(files).pipe(Effect.provideService(CassetteUse, collector.service))
    const failing = outcomes.filter((o) => o.status !== "pass" || o.evaluated === undefined)
    if (failing.length > 0) return { failing, total: outcomes.length }
    const dirs = new Map<string, string>()
    for (const o of outcomes) {
      const dir = joinPath(parentPath(o.file), o.evaluated!.definition.replay)
      if (!dirs.has(nodePath.resolve(dir))) dirs.set(nodePath.resolve(dir), dir)
    }
    const unused: Array<string> = []
    const warnings: Array<string> = []
    for (const dir of dirs.values()) {
      const scan = yield* Effect.try({
        try: () => scanCassetteDir(dir),
        catch: (e) =>
          new FileError({
            reason: { _tag: "ListFailed", path: dir, what: "cassette directory", detail: describeOsError(e) }
          })
      })
      warnings.push(...scan.problems.map((p) => `warning: not a cassette, left alone: ${p}`))
      for (const c of scan.cassettes) if (!collector.paths.has(nodePath.resolve(c.path))) unused.push(c.path)
    }
    return { unused, warnings }
  })
