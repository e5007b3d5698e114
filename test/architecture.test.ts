// The layout rules of src/ (README "Layout"), checked on every run so that a change cannot quietly
// undo them: no import cycle between the top-level folders, nor between files (type imports and
// `import()` count: they tie modules together too), the file system and child processes only behind
// src/platform/, no source file over 450 lines.
import { describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as path from "node:path"

const src = path.resolve(import.meta.dir, "..", "src")

const sourceFiles = (dir: string): Array<string> =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name)
    return e.isDirectory() ? sourceFiles(p) : /\.tsx?$/.test(e.name) ? [p] : []
  })

const files = sourceFiles(src).map((file) => ({ file, text: fs.readFileSync(file, "utf8") }))

/** `cli/`, `model/`, ... for a file in a folder; the file name for one directly in src/. */
const folderOf = (file: string): string => {
  const parts = path.relative(src, file).split(path.sep)
  return parts.length === 1 ? parts[0]! : `${parts[0]}/`
}

const IMPORT = /(?:import|export)\s[^;]*?from\s+["'](\.{1,2}\/[^"']+)["']|import\(\s*["'](\.{1,2}\/[^"']+)["']\s*\)/g

/** Strongly connected groups of more than one node, folders or files (Tarjan). */
const cycles = (edges: Map<string, Set<string>>): Array<Array<string>> => {
  let next = 0
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: Array<string> = []
  const onStack = new Set<string>()
  const cycles: Array<Array<string>> = []
  const visit = (v: string) => {
    index.set(v, next)
    low.set(v, next++)
    stack.push(v)
    onStack.add(v)
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w)
        low.set(v, Math.min(low.get(v)!, low.get(w)!))
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!))
    }
    if (low.get(v) === index.get(v)) {
      const group: Array<string> = []
      let w: string
      do {
        w = stack.pop()!
        onStack.delete(w)
        group.push(w)
      } while (w !== v)
      if (group.length > 1) cycles.push(group.sort())
    }
  }
  for (const v of edges.keys()) if (!index.has(v)) visit(v)
  return cycles
}

describe("src/ layout", () => {
  test("no import cycle between the top-level folders", () => {
    const edges = new Map<string, Set<string>>()
    for (const { file, text } of files) {
      for (const m of text.matchAll(IMPORT)) {
        const target = path.resolve(path.dirname(file), m[1] ?? m[2]!)
        const from = folderOf(file)
        const to = folderOf(target)
        if (from === to) continue
        if (!edges.has(from)) edges.set(from, new Set())
        edges.get(from)!.add(to)
        if (!edges.has(to)) edges.set(to, new Set())
      }
    }
    expect(edges.size).toBeGreaterThan(5)
    expect(cycles(edges)).toEqual([])
  })

  test("the cycle check finds a cycle (so an empty result means something)", () => {
    const edges = new Map([["a/", new Set(["b/"])], ["b/", new Set(["c/"])], ["c/", new Set(["a/"])], ["d/", new Set<string>()]])
    expect(cycles(edges)).toEqual([["a/", "b/", "c/"]])
  })

  // A file that imports a file that imports it back (directly or around a longer loop) is one module
  // split in two: the pair is merged, or what both need moves to a third file they both import
  // (docs/architecture.md). Each cycle is reported with the imports that close it.
  test("no import cycle between files", () => {
    const edges = new Map<string, Set<string>>()
    for (const { file, text } of files) {
      const from = path.relative(src, file)
      if (!edges.has(from)) edges.set(from, new Set())
      for (const m of text.matchAll(IMPORT)) {
        const to = path.relative(src, path.resolve(path.dirname(file), m[1] ?? m[2]!))
        if (/\.tsx?$/.test(to)) edges.get(from)!.add(to)
      }
    }
    // Sanity: an `import()` and an `import type` are both read.
    expect(edges.get("cli/replCommand.ts")).toContain("cli/replRun.ts")
    expect(edges.get("cli/replRun.ts")).toContain("cli/replFlags.ts")
    const found = cycles(edges).map((group) =>
      group.flatMap((from) => [...edges.get(from)!].filter((to) => group.includes(to)).map((to) => `${from} -> ${to}`))
    )
    expect(found).toEqual([])
  })

  test("node:fs and node:child_process are imported only in src/platform/", () => {
    const outside = files
      .filter(({ file }) => folderOf(file) !== "platform/")
      .filter(({ text }) => /from\s+["']node:(fs|fs\/promises|child_process)["']/.test(text))
      .map(({ file }) => path.relative(src, file))
    expect(outside).toEqual([])
  })

  test("no source file is over 450 lines", () => {
    const long = files
      .map(({ file, text }) => ({ file: path.relative(src, file), lines: text.split("\n").length - 1 }))
      .filter((f) => f.lines > 450)
    expect(long).toEqual([])
  })
})
