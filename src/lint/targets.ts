// Which files `lait lint PATH...` checks. A path that is a directory is walked: entries in sorted
// order, names starting with '.' skipped, symlinks and special files (FIFOs, sockets, devices) never
// followed or opened, directories named `target`/`node_modules` skipped, each directory walked once
// (by real path) however often it is reached. Inside a walk only `.yml`/`.yaml` files and `.md` files
// whose first line is `---` (agent files; a skill's SKILL.md is not one) count, except a YAML file
// whose document is a list: no lait file is one, and an eval's cases file is. Any other path is
// checked as given, in the order given, so a file
// named twice is checked twice and a dot-file named explicitly is checked too.
import { Effect } from "effect"
import * as nodePath from "node:path"
import { LIST_HEAD_BYTES, opensList } from "../core/fileKind.ts"
import { FileError } from "../core/fileErrors.ts"
import { FileLoader } from "../platform/FileLoader.ts"

const SKIPPED_DIRECTORIES = new Set(["target", "node_modules"])

const head = (path: string, length: number): Effect.Effect<string, FileError, FileLoader> =>
  FileLoader.use((files) => files.readHead(path, length)).pipe(
    Effect.map((bytes) => Buffer.from(bytes).toString("utf8"))
  )

/** Reads only the first line (at most 8 bytes are needed) of a regular file. */
const startsWithFrontmatter = (path: string): Effect.Effect<boolean, never, FileLoader> =>
  head(path, 5).pipe(
    Effect.map((text) => text === "---" || text.startsWith("---\n") || text.startsWith("---\r\n")),
    // Unreadable: let the checker report why, rather than silently skipping it.
    Effect.orElseSucceed(() => true)
  )

/** The first thing in the file, past comments and a `---`, opens a list (`- ` or `[`). */
const isYamlList = (path: string): Effect.Effect<boolean, never, FileLoader> =>
  head(path, LIST_HEAD_BYTES).pipe(Effect.map(opensList), Effect.orElseSucceed(() => false))

// A skill's SKILL.md also starts with frontmatter, but it is not an agent file.
const SKILL_FILE = "SKILL.md"

const lintable = (path: string, name: string): Effect.Effect<boolean, never, FileLoader> => {
  if (name.endsWith(".yml") || name.endsWith(".yaml")) return Effect.map(isYamlList(path), (list) => !list)
  return name.endsWith(".md") && name !== SKILL_FILE ? startsWithFrontmatter(path) : Effect.succeed(false)
}

const walk = (
  dir: string,
  visited: Set<string>,
  out: Array<string>
): Effect.Effect<void, FileError, FileLoader> =>
  Effect.gen(function*() {
    const files = yield* FileLoader
    const identity = yield* files.realPath(dir).pipe(Effect.mapError((e) =>
      new FileError({ reason: { _tag: "ResolveFailed", path: dir, what: "directory", detail: e.detail } })
    ))
    if (visited.has(identity)) return
    visited.add(identity)
    const names = yield* files.listNames(dir).pipe(Effect.mapError((e) =>
      new FileError({ reason: { _tag: "ListFailed", path: dir, detail: e.detail } })
    ))
    names.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    for (const name of names) {
      if (name.startsWith(".")) continue
      // Joined as written (no normalisation), so `lait lint .` reports `./a.yml` like the path typed.
      const path = dir.endsWith(nodePath.sep) ? `${dir}${name}` : `${dir}${nodePath.sep}${name}`
      const stat = yield* Effect.option(files.lstat(path))
      if (stat._tag === "None") continue
      if (stat.value.isDirectory()) {
        if (!SKIPPED_DIRECTORIES.has(name)) yield* walk(path, visited, out)
      } else if (stat.value.isFile() && (yield* lintable(path, name))) {
        out.push(path)
      }
    }
  })

const isDirectory = (path: string): Effect.Effect<boolean, never, FileLoader> =>
  FileLoader.use((files) => files.stat(path)).pipe(
    Effect.map((stat) => stat.isDirectory()),
    Effect.orElseSucceed(() => false)
  )

/** The files to lint, in order. Fails only when a directory cannot be read. */
export const expandTargets = (
  paths: ReadonlyArray<string>
): Effect.Effect<ReadonlyArray<string>, FileError, FileLoader> =>
  Effect.gen(function*() {
    const visited = new Set<string>()
    const out: Array<string> = []
    for (const path of paths) {
      if (yield* isDirectory(path)) yield* walk(path, visited, out)
      else out.push(path)
    }
    return out
  })
