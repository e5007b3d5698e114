// What `lait test` loads on demand (src/cli/test.ts imports this module only when the command runs):
// discovery, the runner, the reporters and `--update`.
import { Effect } from "effect"
import type { LaitError } from "../core/errors.ts"
import { FileLoader } from "../platform/FileLoader.ts"
import type { FileError } from "../core/fileErrors.ts"
import { type Check, failureLines } from "./AssertionEvaluator.ts"
import type { TestOutcome } from "./runner.ts"
import { applyUpdates, describeUpdate, failingEquals } from "./update.ts"

export { AssertionEvaluator } from "./AssertionEvaluator.ts"
export { testAnnotations, testMarkdown } from "./ciReport.ts"
export { discoverTestFiles, findTestFiles } from "./discovery.ts"
export { jsonReport, junitReport, tally, textReport } from "./reporters.ts"
export { runTestSuite, type TestOutcome } from "./runner.ts"
export { inShard } from "./shard.ts"

export interface UpdateResult {
  readonly outcome: TestOutcome
  /** Lines for stderr: what was rewritten, or why nothing was. */
  readonly notes: ReadonlyArray<string>
}

/**
 * `--update` for one outcome: rewrites the failing `equals` values of a file that ran, then reports
 * the file with those failures gone (it passes when nothing else failed). The file is left alone
 * when it changed since it was read for the run.
 */
export const updateOutcome = (outcome: TestOutcome): Effect.Effect<UpdateResult, LaitError | FileError, FileLoader> =>
  Effect.gen(function*() {
    const evaluated = outcome.evaluated
    if (evaluated === undefined) return { outcome, notes: [] }
    const updates = failingEquals(evaluated.checks)
    if (updates.length === 0) return { outcome, notes: [] }
    const loader = yield* FileLoader
    const current = yield* loader.readText(outcome.file)
    if (current !== evaluated.text) {
      return { outcome, notes: [`warning: not updating '${outcome.file}': it changed while the tests ran`] }
    }
    const rewritten = applyUpdates(current, updates)
    if (typeof rewritten !== "string") {
      return { outcome, notes: [`warning: not updating '${outcome.file}': ${rewritten.error}`] }
    }
    yield* loader.writeAtomic(outcome.file, rewritten)
    const updated = new Set<Check>(updates.map((u) => u.trail.at(-1)!))
    const failures = failureLines(evaluated.checks, (check) => !updated.has(check))
    return {
      outcome: { ...outcome, status: failures.length === 0 ? "pass" : "fail", failures },
      notes: updates.map((u) => `note: updated '${outcome.file}': ${describeUpdate(u)}`)
    }
  })
