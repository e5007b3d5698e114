// Which files `lait test PATH...` runs (docs/testing.md#which-files-run). Explicit paths must be regular files (any
// extension) or directories; a symlink or special file given explicitly is an error, so a typo never
// quietly runs zero tests. Directories are walked in path order without ever following a symlink or
// opening anything: only lstat and readdir are used, so a symlink loop cannot make the walk endless
// and a FIFO or socket is never read as a test. Dot entries and `target`/`node_modules` directories
// are skipped, and only `.yml`/`.yaml` files are kept. A file reached under two spellings runs once
// (the first spelling is kept), and the result is sorted the way Rust sorts paths (component-wise).
// In a walk (never for a file named explicitly, as upstream) a YAML file that `lait lint` recognises
// as another kind — the config, a workflow, an eval, an eval's list of cases — is skipped and
// counted, so `lait test .` in a folder made by `lait init` runs only its test files.
import { Effect } from "effect"
import { Buffer } from "node:buffer"
import { FileError } from "../core/fileErrors.ts"
import { LIST_HEAD_BYTES, opensList, recognizeKind } from "../core/fileKind.ts"
import { FileLoader, READ_LIMIT } from "../platform/FileLoader.ts"
import { TestError } from "./testErrors.ts"

export const SKIPPED_DIR_NAMES: ReadonlyArray<string> = ["target", "node_modules"]

/** `dir` joined with `name` the way Rust's `Path::join` spells it (no normalisation). */
export const joinPath = (dir: string, name: string): string => {
  if (name.startsWith("/")) return name
  if (dir === "") return name
  return dir.endsWith("/") ? `${dir}${name}` : `${dir}/${name}`
}

/** The directory part of a path as Rust's `Path::parent` gives it ("" for a bare file name). */
export const parentPath = (path: string): string => {
  const trimmed = path.replace(/\/+$/, "")
  const slash = trimmed.lastIndexOf("/")
  if (slash < 0) return ""
  if (slash === 0) return "/"
  return trimmed.slice(0, slash).replace(/\/+$/, "")
}

// Rust's `Component` order: RootDir < CurDir < ParentDir < Normal (no Prefix on Unix).
type Component = { readonly rank: 1 | 2 | 3 | 4; readonly bytes: Buffer }

const components = (path: string): ReadonlyArray<Component> => {
  const out: Array<Component> = []
  const empty = Buffer.alloc(0)
  if (path.startsWith("/")) out.push({ rank: 1, bytes: empty })
  const parts = path.split("/")
  parts.forEach((part, index) => {
    if (part === "") return
    // `.` counts only as the first component of a relative path; elsewhere Rust drops it.
    if (part === ".") {
      if (index === 0) out.push({ rank: 2, bytes: empty })
      return
    }
    out.push(part === ".." ? { rank: 3, bytes: empty } : { rank: 4, bytes: Buffer.from(part, "utf8") })
  })
  return out
}

const compareComponents = (ca: ReadonlyArray<Component>, cb: ReadonlyArray<Component>): number => {
  for (let i = 0; i < Math.min(ca.length, cb.length); i++) {
    const x = ca[i]!
    const y = cb[i]!
    if (x.rank !== y.rank) return x.rank - y.rank
    const byBytes = Buffer.compare(x.bytes, y.bytes)
    if (byBytes !== 0) return byBytes
  }
  return ca.length - cb.length
}

/** Rust's `Ord for Path`: component by component, names compared as bytes. */
export const comparePaths = (a: string, b: string): number => compareComponents(components(a), components(b))

/** Sorted by `comparePaths` of `pathOf`, each path split into components once rather than per comparison. */
const sortByPath = <A>(items: ReadonlyArray<A>, pathOf: (item: A) => string): Array<A> =>
  items
    .map((item) => ({ item, key: components(pathOf(item)) }))
    .sort((a, b) => compareComponents(a.key, b.key))
    .map(({ item }) => item)

const isYaml = (name: string): boolean => /\.ya?ml$/.test(name) && !/^\.ya?ml$/.test(name)

/** A YAML file a walk did not take, and what it is instead. */
export interface SkippedFile {
  readonly path: string
  readonly kind: string
}

export interface Discovered {
  readonly files: ReadonlyArray<string>
  /** Sorted like `files`. */
  readonly skipped: ReadonlyArray<SkippedFile>
}

interface Walk {
  readonly files: Array<string>
  /** By identity (real path). */
  readonly skipped: Map<string, SkippedFile>
  readonly seen: Set<string>
  readonly visitedDirs: Set<string>
}

/**
 * What a YAML file met in a walk is when it is recognisably not a test file, by the rules of `lait
 * lint` (src/core/fileKind.ts: its kinds, and the list rule of its walk). Anything unsure —
 * unreadable, too large, not YAML, no telling key — stays a test file, so that its run reports what
 * is wrong with it.
 */
const otherKind = (files: FileLoader["Service"], path: string): Effect.Effect<string | undefined> =>
  files.lstat(path).pipe(
    Effect.flatMap((stat) => (stat.size > READ_LIMIT ? Effect.succeed(undefined) : files.readOwnText(path))),
    Effect.map((text) => {
      if (text === undefined) return undefined
      if (opensList(text.slice(0, LIST_HEAD_BYTES))) return "a list (an eval's cases)"
      const kind = recognizeKind(path, text)
      return kind === undefined || kind === "test" ? undefined : kind === "eval" ? "an eval" : `a ${kind}`
    }),
    Effect.orElseSucceed(() => undefined)
  )

const realPath = (files: FileLoader["Service"], path: string, what: string) =>
  files.realPath(path).pipe(
    Effect.mapError((e) => new FileError({ reason: { _tag: "ResolveFailed", path, what, detail: e.detail } }))
  )

/** With `kind`, a walk skips the file as that kind. */
const addFile = (walk: Walk, path: string, identity: string, kind?: string) => {
  if (walk.seen.has(identity)) {
    // Named explicitly after a walk skipped it: explicit paths always run.
    if (kind === undefined && walk.skipped.delete(identity)) walk.files.push(path)
    return
  }
  walk.seen.add(identity)
  if (kind === undefined) walk.files.push(path)
  else walk.skipped.set(identity, { path, kind })
}

const walkDirectory = (files: FileLoader["Service"], walk: Walk, dir: string): Effect.Effect<void, FileError> =>
  Effect.gen(function*() {
    // Between directories, so a Ctrl-C during a huge walk stops it.
    yield* Effect.yieldNow
    const identity = yield* realPath(files, dir, "directory")
    if (walk.visitedDirs.has(identity)) return
    walk.visitedDirs.add(identity)
    const entries = yield* files.list(dir).pipe(
      Effect.mapError((e) => new FileError({ reason: { _tag: "ListFailed", path: dir, detail: e.detail } }))
    )
    const named = sortByPath(entries.map((entry) => ({ entry, path: joinPath(dir, entry.name) })), (e) => e.path)
    for (const { entry, path } of named) {
      if (entry.name.startsWith(".")) continue
      // Dirent types come from the entry itself (lstat semantics): a symlink is never followed.
      if (entry.isSymbolicLink()) continue
      if (entry.isDirectory()) {
        if (SKIPPED_DIR_NAMES.includes(entry.name)) continue
        yield* walkDirectory(files, walk, path)
      } else if (entry.isFile()) {
        // A regular file (not a symlink) in a resolved directory: its real path needs no system call.
        const file = joinPath(identity, entry.name)
        if (isYaml(entry.name) && !walk.seen.has(file)) addFile(walk, path, file, yield* otherKind(files, path))
      }
      // FIFOs, sockets and devices are skipped without being opened.
    }
  })

/** The test files named by `paths`, de-duplicated by real path and sorted, and the YAML files skipped. */
export const findTestFiles = (
  paths: ReadonlyArray<string>
): Effect.Effect<Discovered, FileError | TestError, FileLoader> =>
  Effect.gen(function*() {
    const files = yield* FileLoader
    const walk: Walk = { files: [], skipped: new Map(), seen: new Set(), visitedDirs: new Set() }
    for (const path of paths) {
      const stat = yield* files.lstat(path).pipe(
        Effect.mapError((e) => new TestError({ reason: { _tag: "TargetUnreadable", path, detail: e.detail } }))
      )
      if (stat.isSymbolicLink()) {
        return yield* new TestError({ reason: { _tag: "TargetSymlink", path } })
      }
      if (stat.isFile()) {
        addFile(walk, path, yield* realPath(files, path, "test file"))
        continue
      }
      if (!stat.isDirectory()) {
        return yield* new TestError({ reason: { _tag: "TargetNotFile", path } })
      }
      yield* walkDirectory(files, walk, path)
    }
    return {
      files: sortByPath(walk.files, (file) => file),
      skipped: sortByPath([...walk.skipped.values()], (file) => file.path)
    }
  })

/** The test files named by `paths` (`findTestFiles` without the skipped ones). */
export const discoverTestFiles = (
  paths: ReadonlyArray<string>
): Effect.Effect<ReadonlyArray<string>, FileError | TestError, FileLoader> =>
  Effect.map(findTestFiles(paths), (found) => found.files)
