// Temp directories and effect runners shared by the config tests. Nothing here reads the real HOME.
import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"
import { afterAll } from "bun:test"
import { Effect } from "effect"
import { FileLoader } from "../../src/platform/FileLoader.ts"

const roots: Array<string> = []
afterAll(() => {
  for (const root of roots) fs.rmSync(root, { recursive: true, force: true })
})

/** A fresh temp directory (realpath, so it compares equal to what lookups return). */
export const tempDir = (prefix = "lait-config-"): string => {
  const dir = fs.realpathSync(fs.mkdtempSync(nodePath.join(os.tmpdir(), prefix)))
  roots.push(dir)
  return dir
}

/** Writes `files` (relative path → content) under `root`, creating directories. */
export const writeTree = (root: string, files: Record<string, string>): void => {
  for (const [rel, content] of Object.entries(files)) {
    const path = nodePath.join(root, rel)
    fs.mkdirSync(nodePath.dirname(path), { recursive: true })
    fs.writeFileSync(path, content)
  }
}

export const run = <A, E>(effect: Effect.Effect<A, E, FileLoader>): Promise<A> =>
  Effect.runPromise(effect.pipe(Effect.provide(FileLoader.layer)))

/** Runs an effect expected to fail and returns its error. */
export const runError = <A, E>(effect: Effect.Effect<A, E, FileLoader>): Promise<E> =>
  Effect.runPromise(Effect.flip(effect).pipe(Effect.provide(FileLoader.layer)))
