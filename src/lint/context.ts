// State shared by the checks of one linted file: the active configuration (absent = names are not
// checked), where the first skipped name check was, which workflow files are being linted along the
// current `workflow:` chain (cycles), and how paths are shown.
import { Effect } from "effect"
import * as nodePath from "node:path"
import { CONFIG_FILE_NAME } from "../config/load.ts"
import type { ConfigFile } from "../config/schema.ts"
import { FileLoader } from "../platform/FileLoader.ts"
import { entries, items, type Source, type Y } from "../lang/load/yaml.ts"
import type { Emitter } from "./findings.ts"

export interface LintEnv {
  /** The merged active configuration; undefined when none was loaded (names are then not checked). */
  readonly config: ConfigFile | undefined
  /** Why names were not checked, completing "... were not checked because ...". */
  readonly skippedBecause: string
}

export const NO_CONFIG_REASON = `no ${CONFIG_FILE_NAME} was found (or --no-config was used)`
export const BROKEN_CONFIG_REASON = `the configuration failed to load`

export interface FileState {
  readonly env: LintEnv
  /** Line (in the linted file) of the first name check skipped for want of a config. */
  skipped: { readonly line: number | undefined } | undefined
  /** Real paths of the workflow files on the current `workflow:` chain, outermost first. */
  readonly visited: Array<string>
}

export const newFileState = (env: LintEnv): FileState => ({ env, skipped: undefined, visited: [] })

/**
 * The lint of a file of a kind that can name other files (a workflow, an agent), from its text: the
 * state is the one the files it names share with it (the `workflow:` chain, the skipped-names note).
 */
export type FileLint = (
  path: string,
  text: string,
  state: FileState,
  emitter: Emitter
) => Effect.Effect<void, never, FileLoader>

export const noteSkipped = (state: FileState, line: number | undefined): void => {
  if (state.skipped === undefined) state.skipped = { line }
}

/** Emits the one warning about unchecked names, if any check was skipped. */
export const reportSkipped = (state: FileState, emitter: Emitter): void => {
  if (state.skipped === undefined) return
  emitter.emit(
    "warning",
    `'mcp'/'skills'/'subagents'/'tools' names were not checked because ${state.env.skippedBecause}`,
    state.skipped.line
  )
}

/** A path as the user would type it from here: relative to the current directory when inside it. */
export const display = (path: string): string => {
  const absolute = nodePath.resolve(path)
  const relative = nodePath.relative(process.cwd(), absolute)
  return relative === "" || relative.startsWith("..") || nodePath.isAbsolute(relative) ? absolute : relative
}

export const realpath = (path: string): Effect.Effect<
  { readonly ok: true; readonly path: string } | { readonly ok: false; readonly reason: string },
  never,
  FileLoader
> =>
  FileLoader.use((files) => files.realPath(path)).pipe(
    Effect.map((real) => ({ ok: true as const, path: real })),
    Effect.catch((e) => Effect.succeed({ ok: false as const, reason: e.detail }))
  )

// ---------------------------------------------------------------------------------------------------
// YAML positions

/**
 * Where a file's checks look up lines. `fixedLine` is set for content that lives in another file (a
 * child workflow, an agent file): its findings point at the line of the step that uses it.
 */
export interface Where {
  readonly src: Source | undefined
  readonly fixedLine?: number | undefined
}

export const fieldOf = (where: Where, y: Y | undefined, key: string) => {
  if (where.src === undefined || y === undefined) return undefined
  return entries(where.src, y)?.find((e) => e.keyIsString && e.key === key)
}

export const valueOf = (where: Where, y: Y | undefined, key: string): Y | undefined => fieldOf(where, y, key)?.value

export const itemOf = (where: Where, y: Y | undefined, index: number): Y | undefined =>
  where.src === undefined || y === undefined ? undefined : items(where.src, y)?.[index]

/** The line of a mapping key (falling back to the mapping's own line). */
export const keyLine = (where: Where, y: Y | undefined, key: string): number | undefined => {
  if (where.fixedLine !== undefined) return where.fixedLine
  return fieldOf(where, y, key)?.keyLine ?? y?.line
}

export const lineOfY = (where: Where, y: Y | undefined, fallback?: number): number | undefined =>
  where.fixedLine ?? y?.line ?? fallback

/**
 * The line where `text` is written inside the node `y` (a template or a jq filter), found from the
 * node's own source range; the node's line when the text is not there verbatim (escaped quotes).
 */
export const lineOfText = (where: Where, y: Y | undefined, text: string, fallback?: number): number | undefined => {
  if (where.fixedLine !== undefined) return where.fixedLine
  const range = y?.node?.range
  if (where.src === undefined || y === undefined || range === undefined || range === null) return y?.line ?? fallback
  const index = where.src.text.slice(range[0], range[1]).indexOf(text)
  return index < 0 ? y.line ?? fallback : where.src.lineAt(range[0] + index)
}
