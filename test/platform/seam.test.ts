// The platform is the seam (docs/architecture.md): outside src/platform no module touches the file
// system but through FileLoader (or Effect's FileSystem), and outside src/platform and src/config
// the process environment is read in at most three places (src/main.ts's fast path is one).
import { describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as path from "node:path"

const src = path.join(import.meta.dir, "..", "..", "src")

const sources = (): Array<{ readonly file: string; readonly text: string }> =>
  (fs.readdirSync(src, { recursive: true }) as Array<string>)
    .filter((name) => name.endsWith(".ts"))
    .map((name) => ({ file: path.join("src", name), text: fs.readFileSync(path.join(src, name), "utf8") }))

const outside = (...dirs: ReadonlyArray<string>) =>
  sources().filter(({ file }) => !dirs.some((dir) => file.startsWith(`src/${dir}/`)))

// Static and dynamic imports and re-exports of node:fs (or fs, fs/promises) and of platform/files.ts.
const FORBIDDEN = /(?:from\s+|import\s*\(\s*|require\s*\(\s*)["'](?:node:)?fs(?:\/promises)?["']|["'][./]*platform\/files\.ts["']/

describe("the platform seam", () => {
  test("no module outside src/platform imports node:fs or src/platform/files.ts", () => {
    const offenders = outside("platform").filter(({ text }) => FORBIDDEN.test(text)).map(({ file }) => file)
    expect(offenders).toEqual([])
  })

  test("the check sees an import when there is one", () => {
    expect(FORBIDDEN.test(`import * as fs from "node:fs"`)).toBe(true)
    expect(FORBIDDEN.test(`import { readFileSync } from "fs"`)).toBe(true)
    expect(FORBIDDEN.test(`const fs = await import("node:fs/promises")`)).toBe(true)
    expect(FORBIDDEN.test(`import * as Files from "../../platform/files.ts"`)).toBe(true)
    expect(FORBIDDEN.test(`import * as nodePath from "node:path"`)).toBe(false)
    expect(FORBIDDEN.test(`import { FileLoader } from "../platform/FileLoader.ts"`)).toBe(false)
  })

  test("at most three lines outside src/platform and src/config mention process.env", () => {
    const lines = outside("platform", "config").flatMap(({ file, text }) =>
      text.split("\n").flatMap((line, i) => (line.includes("process.env") ? [`${file}:${i + 1}`] : []))
    )
    // Listed when there are too many, so the failure says where they are.
    expect(lines.length <= 3 ? [] : lines).toEqual([])
    // src/main.ts's fast path may load nothing else, so it reads the environment itself.
    expect(lines.some((line) => line.startsWith("src/main.ts:"))).toBe(true)
  })
})
