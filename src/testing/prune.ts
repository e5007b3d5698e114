// `lait cassettes prune PATH…`: which cassette files in the tests' `replay:` directories no test
// reads. The tests run in replay exactly as `lait test` runs them, with a CassetteUse collector
// listening (src/model/cassette/used.ts: every replaying reader reports the files it answers from);
// a file nobody reported is unused. Only a suite that passes completely says what it uses: one that
// errors or fails may have stopped before a request whose cassette would then look unused. Tool
// cassettes are read only by tests that replay tools: a directory's tool cassettes are judged only
// when every test replaying from it replays tools too (`replay_tools`, `--replay-tools`); otherwise a
// later `lait test --replay-tools` would miss the ones a live-tools run never looked at.
// A test file names its own `replay:` directory, so a hostile one could aim `--delete` at another
// project's cassettes: directories outside the project (symbolic links resolved) are not judged
// unless the caller allows it (docs/record-replay.md#pruning-unused-cassettes).
import { Effect } from "effect"
import * as nodePath from "node:path"
import { findProjectConfig } from "../config/load.ts"
import type { LaitConfig } from "../config/LaitConfig.ts"
import { FileError } from "../core/fileErrors.ts"
import { scanCassetteDir } from "../model/cassette/scan.ts"
import { CassetteUse, collectCassetteUse } from "../model/cassette/used.ts"
import { FileLoader } from "../platform/FileLoader.ts"
import type { AssertionEvaluator } from "./AssertionEvaluator.ts"
import { joinPath, parentPath } from "./discovery.ts"
import { runTestSuite, type TestOutcome } from "./runner.ts"

export type PruneResult = PruneFindings | {
  /** The files that did not pass: nothing can be pruned. */
  readonly failing: ReadonlyArray<TestOutcome>
  readonly total: number
}

export interface UnusedCassette {
  /** As the test files' paths spell it (what prune prints). */
  readonly path: string
  /** In the directory's real path: what `--delete` removes, the place that was checked. */
  readonly real: string
}

/** A `replay:` directory outside the project: not scanned, nothing in it listed. */
export interface OutsideDirectory {
  /** The first test file (as found) that replays from it. */
  readonly file: string
  /** Its `replay:` as written. */
  readonly replay: string
  /** Where it really is, symbolic links resolved. */
  readonly real: string
}

export interface PruneFindings {
  /** Unused cassette files, by directory then name. */
  readonly unused: ReadonlyArray<UnusedCassette>
  /** Lines for stderr: `*.json` files in those directories that are not cassettes (never listed). */
  readonly warnings: ReadonlyArray<string>
  /** Tool cassettes not judged, since a test reading their directory ran its tools live. */
  readonly toolsLeftAlone: number
  /** Whether any test replayed its tools. */
  readonly toolsReplayed: boolean
  /** Replay directories outside the project (always empty when outside ones are allowed). */
  readonly outside: ReadonlyArray<OutsideDirectory>
}

/**
 * The project prune keeps to: the directory of the `lait.config.yml` that config discovery finds from
 * `cwd` upward, else `cwd` itself; its real path, so that a link cannot move a directory in or out.
 */
export const projectRoot = (cwd: string): Effect.Effect<string, FileError, FileLoader> =>
  Effect.gen(function*() {
    const config = yield* findProjectConfig(cwd)
    return yield* FileLoader.use((files) => files.realPath(config === undefined ? cwd : nodePath.dirname(config)))
  })

/** Whether real path `path` is `root` or under it. */
const within = (root: string, path: string): boolean =>
  path === root || path.startsWith(root.endsWith(nodePath.sep) ? root : root + nodePath.sep)

/** `'FILE' replays from 'REPLAY', which is 'REAL', outside the project 'ROOT'`: for the error and the warning. */
export const describeOutside = (o: OutsideDirectory, project: string): string =>
  `'${o.file}' replays from '${o.replay}'${o.replay === o.real ? "" : `, which is '${o.real}'`}, ` +
  `outside the project '${project}'`

const listFailed = (dir: string) => (e: FileError) =>
  new FileError({ reason: { _tag: "ListFailed", path: dir, what: "cassette directory", detail: e.detail } })

/** A file's real directory joined with its name: one spelling for every way of reaching it. */
const realFile = (path: string): Effect.Effect<string, never, FileLoader> =>
  FileLoader.use((files) => files.realPath(nodePath.dirname(path))).pipe(
    Effect.map((dir) => nodePath.join(dir, nodePath.basename(path))),
    Effect.orElseSucceed(() => nodePath.resolve(path))
  )

/**
 * Runs `files` in replay and finds the cassette files none of them used, when all of them pass.
 * `project` is the real path of the project (`projectRoot`); undefined allows any directory.
 */
export const unusedCassettes = (
  files: ReadonlyArray<string>,
  options: { readonly replayTools: boolean; readonly project: string | undefined }
): Effect.Effect<PruneResult, FileError, LaitConfig | AssertionEvaluator | FileLoader> =>
  Effect.gen(function*() {
    const collector = collectCassetteUse()
    const outcomes = yield* runTestSuite(files, { replayTools: options.replayTools })
      .pipe(Effect.provideService(CassetteUse, collector.service))
    const failing = outcomes.filter((o) => o.status !== "pass" || o.evaluated === undefined)
    if (failing.length > 0) return { failing, total: outcomes.length }
    // By real path (two spellings, or a link, are one directory): the directory as first spelled, and
    // whether every test reading it replayed tools.
    const dirs = new Map<string, { readonly dir: string; toolsReplayed: boolean }>()
    const outside = new Map<string, OutsideDirectory>()
    let toolsReplayed = false
    for (const o of outcomes) {
      const { definition } = o.evaluated!
      const dir = joinPath(parentPath(o.file), definition.replay)
      const real = yield* FileLoader.use((files) => files.realPath(dir)).pipe(Effect.mapError(listFailed(dir)))
      if (options.project !== undefined && !within(options.project, real)) {
        if (!outside.has(real)) outside.set(real, { file: o.file, replay: definition.replay, real })
        continue
      }
      const replayed = options.replayTools || definition.replayTools
      toolsReplayed ||= replayed
      const known = dirs.get(real)
      if (known === undefined) dirs.set(real, { dir, toolsReplayed: replayed })
      else known.toolsReplayed &&= replayed
    }
    const used = new Set(yield* Effect.forEach([...collector.paths], realFile))
    const unused: Array<UnusedCassette> = []
    const warnings: Array<string> = []
    let toolsLeftAlone = 0
    for (const [real, { dir, toolsReplayed: judgeTools }] of dirs) {
      const scan = yield* scanCassetteDir(dir).pipe(Effect.mapError(listFailed(dir)))
      warnings.push(...scan.problems.map((p) => `warning: not a cassette, left alone: ${p}`))
      for (const c of scan.cassettes) {
        const file = nodePath.join(real, c.name)
        if (c.kind === "tool" && !judgeTools) toolsLeftAlone++
        else if (!used.has(file)) unused.push({ path: c.path, real: file })
      }
    }
    return { unused, warnings, toolsLeftAlone, toolsReplayed, outside: [...outside.values()] }
  })
