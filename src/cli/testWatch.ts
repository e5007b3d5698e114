// `lait test --watch PATH...` (docs/testing.md#watch-mode): the suite runs once, then each change
// re-runs only the test files that read what changed. What a file depends on is what its last run
// read (src/testing/runner.ts `onInputs`: the file, its workflow and child workflows, agents, schemas,
// fixtures, its `replay:` directory), so a child workflow a run never opened does not count until a
// run opens it. A change to a loaded config file re-runs everything; a new test file under PATH runs.
// Each round discovers the files again and loads the config again, as a plain `lait test` would.
// Only Ctrl-C ends it (exit 130): a failing round is reported, and the next change starts another.
import { Cause, Console, Deferred, Effect, FileSystem, Stream } from "effect"
import * as nodePath from "node:path"
import { primaryError, renderChain } from "../core/errors.ts"
import { escapeControls } from "../core/terminalText.ts"
import { stdoutIsTerminal } from "../platform/rawStdout.ts"
import { writeStdout } from "./output.ts"

/** What ./test.ts asks of the watcher in each round. */
export interface Watching {
  /** The files of this round out of those discovered; undefined when the change affects none of them. */
  readonly select: (discovered: ReadonlyArray<string>) => ReadonlyArray<string> | undefined
  /** Called before the selected files run. */
  readonly beforeRun: (files: ReadonlyArray<string>) => Effect.Effect<void>
  readonly onInputs: (file: string, inputs: ReadonlyArray<string>) => Effect.Effect<void>
  readonly onConfig: (files: ReadonlyArray<string>) => void
}

// Editors save in bursts (a write, a rename, a metadata update): the changes that arrive this soon
// after the first one make one round.
const SETTLE = "100 millis"

// Erase the screen and the scrollback, cursor home: each round's report stands alone, as vitest's.
const CLEAR = "\x1b[2J\x1b[3J\x1b[H"

const isYaml = (path: string): boolean => /\.ya?ml$/.test(path)

/** Whether `path` is `dep` or lies inside it (a `replay:` or fixture directory). */
const touches = (dep: string, path: string): boolean => path === dep || path.startsWith(`${dep}/`)

interface Root {
  readonly path: string
  readonly recursive: boolean
}

/**
 * The directories to watch: each PATH directory (recursively, for new test files), each directory
 * input (recursively), the directory of each file input. Directories, not files: an editor that
 * saves through a rename replaces the file a file watch was on. A root inside a recursive one is
 * dropped; a path that does not exist (yet) is watched from its directory.
 */
const watchRoots = (paths: ReadonlyArray<string>, inputs: Iterable<string>) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const kind = (path: string) =>
      fs.stat(path).pipe(Effect.map((info) => info.type), Effect.orElseSucceed(() => undefined))
    const roots = new Map<string, boolean>()
    const add = (path: string, recursive: boolean) => roots.set(path, recursive || roots.get(path) === true)
    for (const path of paths.map((p) => nodePath.resolve(p))) {
      const type = yield* kind(path)
      if (type === "Directory") add(path, true)
      else add(nodePath.dirname(path), false)
    }
    for (const input of inputs) {
      const type = yield* kind(input)
      if (type === "Directory") add(input, true)
      else if ((yield* kind(nodePath.dirname(input))) === "Directory") add(nodePath.dirname(input), false)
    }
    const recursive = [...roots].filter(([, r]) => r).map(([p]) => p)
    return [...roots]
      .filter(([path]) => !recursive.some((dir) => dir !== path && touches(dir, path)))
      .map(([path, recursive]): Root => ({ path, recursive }))
  })

/**
 * Waits until something `relevant` changes under `roots`; the absolute paths that changed. `onReady`
 * runs once every watch is in place (a change before that may be missed; after it, none is).
 */
const nextChange = (roots: ReadonlyArray<Root>, relevant: (path: string) => boolean, onReady: Effect.Effect<void>) =>
  Effect.scoped(Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const ready = yield* Deferred.make<void>()
    const settled = yield* Deferred.make<void>()
    const changed = new Set<string>()
    let waiting = roots.length
    const oneReady = () => {
      if (--waiting === 0) Deferred.doneUnsafe(ready, Effect.void)
    }
    if (waiting === 0) Deferred.doneUnsafe(ready, Effect.void)
    const events = roots.map((root) =>
      fs.watch(root.path, { recursive: root.recursive, onReady: oneReady }).pipe(
        Stream.map((event) => nodePath.resolve(root.path, event.path)),
        // A root that cannot be watched (removed meanwhile) is left out rather than ending the watch.
        Stream.catch(() => Stream.fromEffect(Effect.sync(oneReady)).pipe(Stream.drain))
      )
    )
    yield* Stream.mergeAll(events, { concurrency: "unbounded" }).pipe(
      Stream.filter(relevant),
      Stream.runForEach((path) =>
        Effect.suspend(() => {
          changed.add(path)
          return changed.size === 1
            ? Effect.forkScoped(Effect.delay(Deferred.succeed(settled, undefined), SETTLE))
            : Effect.void
        })
      ),
      Effect.forkScoped
    )
    yield* Deferred.await(ready)
    yield* onReady
    yield* Deferred.await(settled)
    return [...changed]
  }))

/** Runs `round` once for everything, then again for what each change affects, until interrupted. */
export const watchTests = <R>(
  paths: ReadonlyArray<string>,
  round: (watching: Watching) => Effect.Effect<void, unknown, R>
): Effect.Effect<never, never, R | FileSystem.FileSystem> =>
  Effect.gen(function*() {
    // Absolute test file -> the absolute paths its last run read.
    const inputs = new Map<string, ReadonlyArray<string>>()
    let configFiles: ReadonlyArray<string> = []
    let changed: ReadonlyArray<string> | undefined
    const clear = stdoutIsTerminal()
    const dirs = paths.map((p) => nodePath.resolve(p))
    while (true) {
      const since = changed
      const affected = (file: string): boolean => {
        if (since === undefined) return true
        const read = inputs.get(nodePath.resolve(file))
        return read === undefined ||
          since.some((path) => configFiles.includes(path) || read.some((dep) => touches(dep, path)))
      }
      const watching: Watching = {
        select: (discovered) => {
          const files = discovered.filter(affected)
          return since !== undefined && files.length === 0 ? undefined : files
        },
        beforeRun: (files) =>
          since === undefined ? Effect.void : Effect.gen(function*() {
            if (clear) yield* Effect.ignore(writeStdout(CLEAR))
            const shown = since.map((path) => nodePath.relative(process.cwd(), path) || ".")
            yield* Console.error(`note: ${shown.join(", ")} changed: re-running ${files.length} test file(s)`)
          }),
        onInputs: (file, read) =>
          Effect.sync(() => void inputs.set(nodePath.resolve(file), read.map((p) => nodePath.resolve(p)))),
        onConfig: (files) => void (configFiles = files.map((p) => nodePath.resolve(p)))
      }
      yield* round(watching).pipe(
        Effect.catchCause((cause) =>
          Cause.hasInterruptsOnly(cause)
            ? Effect.failCause(cause as Cause.Cause<never>)
            : Console.error(`lait: ${escapeControls(renderChain(primaryError(cause)), { keepLines: true })}`)
        )
      )
      const known = [...inputs.values()].flat()
      const relevant = (path: string) =>
        configFiles.includes(path) || known.some((dep) => touches(dep, path)) ||
        (isYaml(path) && !inputs.has(path) && dirs.some((dir) => touches(dir, path)))
      const roots = yield* watchRoots(paths, [...known, ...configFiles])
      changed = yield* nextChange(
        roots,
        relevant,
        Console.error(`note: watching for changes to ${inputs.size} test file(s) and their inputs (Ctrl-C to stop)`)
      ).pipe(Effect.orDie)
    }
  })
