// Which files `lait lint PATH...` checks. A path that is a directory is walked: entries in sorted
// order, names starting with '.' skipped, symlinks and special files (FIFOs, sockets, devices) never
// followed or opened, directories named `target`/`node_modules` skipped, each directory walked once
// (by real path) however often it is reached. Inside a walk only `.yml`/`.yaml` files and `.md` files
// whose first line is `---` (agent files; a skill's SKILL.md is not one) count, except a YAML file
// whose document is a list: no lait file is one, and an eval's cases file is. Any other path is
// checked as given, in the order given, so a file
// named twice is checked twice and a dot-file named explicitly is checked too.
import { Effect } from "effect"
import * as Files from "../platform/files.ts"
import * as nodePath from "node:path"
import { LaitError } from "../core/errors.ts"
import { LIST_HEAD_BYTES, opensList } from "../core/fileKind.ts"
import { FileError } from "../core/fileErrors.ts"
import { describeOsError } from "../platform/FileLoader.ts"

const SKIPPED_DIRECTORIES = new Set(["target", "node_modules"])

/** Reads only the first line (at most 8 bytes are needed) of a regular file. */
const startsWithFrontmatter = (path: string): boolean => {
  try {
    const head = Buffer.from(Files.readHead(path, 5)).toString("utf8")
    return head === "---" || head.startsWith("---\n") || head.startsWith("---\r\n")
  } catch {
    // Unreadable: let the checker report why, rather than silently skipping it.
    return true
  }
}

/** The first thing in the file, past comments and a `---`, opens a list (`- ` or `[`). */
const isYamlList = (path: string): boolean => {
  try {
    return opensList(Buffer.from(Files.readHead(path, LIST_HEAD_BYTES)).toString("utf8"))
  } catch {
    return false
  }
}

// A skill's SKILL.md also starts with frontmatter, but it is not an agent file.
const SKILL_FILE = "SKILL.md"

const lintable = (path: string, name: string): boolean => {
  if (name.endsWith(".yml") || name.endsWith(".yaml")) return !isYamlList(path)
  return name.endsWith(".md") && name !== SKILL_FILE && startsWithFrontmatter(path)
}

const walk = (dir: string, visited: Set<string>, out: Array<string>): void => {
  let identity: string
  try {
    identity = Files.realPath(dir)
  } catch (e) {
    throw new FileError({ reason: { _tag: "ResolveFailed", path: dir, what: "directory", detail: describeOsError(e) } })
  }
  if (visited.has(identity)) return
  visited.add(identity)
  let names: Array<string>
  try {
    names = Files.list(dir)
  } catch (e) {
    throw new FileError({ reason: { _tag: "ListFailed", path: dir, detail: describeOsError(e) } })
  }
  names.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
  for (const name of names) {
    if (name.startsWith(".")) continue
    // Joined as written (no normalisation), so `lait lint .` reports `./a.yml` like the path typed.
    const path = dir.endsWith(nodePath.sep) ? `${dir}${name}` : `${dir}${nodePath.sep}${name}`
    let stat: Files.Stats
    try {
      stat = Files.lstat(path)
    } catch {
      continue
    }
    if (stat.isDirectory()) {
      if (!SKIPPED_DIRECTORIES.has(name)) walk(path, visited, out)
    } else if (stat.isFile() && lintable(path, name)) {
      out.push(path)
    }
  }
}

const isDirectory = (path: string): boolean => {
  try {
    return Files.stat(path).isDirectory()
  } catch {
    return false
  }
}

/** The files to lint, in order. Fails only when a directory cannot be read. */
export const expandTargets = (
  paths: ReadonlyArray<string>
): Effect.Effect<ReadonlyArray<string>, FileError | LaitError> =>
  Effect.try({
    try: () => {
      const visited = new Set<string>()
      const out: Array<string> = []
      for (const path of paths) {
        if (isDirectory(path)) walk(path, visited, out)
        else out.push(path)
      }
      return out
    },
    // Only FileError is thrown on purpose; anything else is unexpected and still gets its one line.
    catch: (e) => (e instanceof FileError ? e : new LaitError({ message: String(e) }))
  })
