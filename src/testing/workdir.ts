// A test file's working directory (docs/testing.md#working-directory). `workdir: temp` gives every run
// a fresh empty directory with the file's `fixtures:` copied in, so files that write the same relative
// path never meet; `workdir: <dir>` runs in an existing directory. The directory reaches the run through
// its RunContext, never process.chdir: the files of a suite run side by side in one process.
import { Effect } from "effect"
import * as nodePath from "node:path"
import { FileLoader } from "../platform/FileLoader.ts"
import { joinPath } from "./discovery.ts"
import { TestError } from "./testErrors.ts"
import { TEMP_WORKDIR, type TestDefinition } from "./testFile.ts"

export interface Workdir {
  /** Absolute; undefined when the file runs in the process's own directory (no `workdir:`). */
  readonly cwd: string | undefined
  /** Whether lait made it (`workdir: temp`), and so removes it after the run. */
  readonly temp: boolean
}

const NONE: Workdir = { cwd: undefined, temp: false }


/** Removes a directory made by `prepareWorkdir`; a failure to remove it never fails the test. */
export const removeWorkdir = (workdir: Workdir): Effect.Effect<void, never, FileLoader> =>
  workdir.temp && workdir.cwd !== undefined
    // A failure leaves it in the temp directory, which the system cleans.
    ? Effect.ignore(FileLoader.use((files) => files.removeTree(workdir.cwd!)))
    : Effect.void

const copyFixtures = (dir: string, base: string, fixtures: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const copiedFrom = new Map<string, string>()
    for (const fixture of fixtures) {
      const source = joinPath(base, fixture)
      const name = nodePath.basename(nodePath.resolve(source))
      const earlier = copiedFrom.get(name)
      if (earlier !== undefined) {
        return yield* new TestError({ reason: { _tag: "FixtureClash", earlier, fixture, name } })
      }
      copiedFrom.set(name, fixture)
      yield* FileLoader.use((files) => files.copyTree(source, nodePath.join(dir, name))).pipe(
        Effect.mapError((e) => new TestError({ reason: { _tag: "FixtureCopyFailed", path: source, detail: e.detail } }))
      )
    }
  })

/**
 * The working directory `definition` asks for (`base`: the test file's directory). A temp directory is
 * removed again when filling it fails; otherwise the caller removes it with `removeWorkdir`.
 */
export const prepareWorkdir = (
  definition: TestDefinition,
  base: string
): Effect.Effect<Workdir, TestError, FileLoader> =>
  Effect.gen(function*() {
    const files = yield* FileLoader
    const workdir = definition.workdir
    if (workdir === undefined) return NONE
    if (workdir !== TEMP_WORKDIR) {
      const dir = joinPath(base, workdir)
      const stat = yield* files.stat(dir).pipe(
        Effect.mapError((e) => new TestError({ reason: { _tag: "WorkdirUnusable", path: dir, detail: e.detail } }))
      )
      if (!stat.isDirectory()) return yield* new TestError({ reason: { _tag: "WorkdirNotDirectory", path: dir } })
      return { cwd: nodePath.resolve(dir), temp: false }
    }
    const dir = yield* files.makeTempDirectory("lait-test-").pipe(
      Effect.mapError((e) => new TestError({ reason: { _tag: "TempWorkdirFailed", detail: e.detail } }))
    )
    const made: Workdir = { cwd: dir, temp: true }
    yield* copyFixtures(dir, base, definition.fixtures).pipe(Effect.onError(() => removeWorkdir(made)))
    return made
  })
