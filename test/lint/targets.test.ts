// Which files `lait lint PATH...` checks, and how each is recognised.
import { describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as path from "node:path"
import { Effect } from "effect"
import type { FileKind } from "../../src/lint/findings.ts"
import { detectKind } from "../../src/core/fileKind.ts"
import { expandTargets } from "../../src/lint/targets.ts"
import { FileLoader } from "../../src/platform/FileLoader.ts"
import { makeTempDir } from "../e2e/util.ts"

const expand = (paths: ReadonlyArray<string>) =>
  Effect.runPromise(expandTargets(paths).pipe(Effect.provide(FileLoader.layer)))

const tree = () => {
  const dir = makeTempDir("lint-walk")
  const write = (rel: string, text = "steps:\n  - jq: .\n") => {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true })
    fs.writeFileSync(path.join(dir, rel), text)
  }
  write("a.yml")
  write("b.yaml")
  write("c.txt")
  write(".hidden.yml")
  write(".git/config.yml")
  write("node_modules/pkg/ci.yml")
  write("target/build.yml")
  write("sub/y.yml")
  write("agent.md", "---\nname: x\n---\nbody\n")
  write("crlf.md", "---\r\nname: x\r\n---\r\nbody\r\n")
  write("readme.md", "# not an agent\n")
  write("skill/SKILL.md", "---\nname: s\n---\nskill body\n")
  fs.symlinkSync(path.join(dir, "a.yml"), path.join(dir, "link.yml"))
  fs.symlinkSync(path.join(dir, "sub"), path.join(dir, "linkdir"))
  Bun.spawnSync(["mkfifo", path.join(dir, "pipe.yml")])
  return dir
}

describe("expandTargets", () => {
  test("a directory walk: sorted; dot entries, symlinks, FIFOs, target/, node_modules/, non-agent .md skipped", async () => {
    const dir = tree()
    expect(fs.statSync(path.join(dir, "pipe.yml")).isFIFO()).toBe(true)
    expect(await expand([dir])).toEqual(
      ["a.yml", "agent.md", "b.yaml", "crlf.md", "sub/y.yml"].map((f) => path.join(dir, f))
    )
  })

  test("a YAML list (an eval's cases file) is not walked into; named explicitly it is checked", async () => {
    const dir = makeTempDir("lint-walk-lists")
    fs.writeFileSync(path.join(dir, "cases.yml"), "# the cases\n---\n- input: a\n- input: b\n")
    fs.writeFileSync(path.join(dir, "flow.yml"), "# a workflow\nsteps:\n  - jq: .\n")
    fs.writeFileSync(path.join(dir, "inline.yaml"), "[{ input: a }]\n")
    expect(await expand([dir])).toEqual([path.join(dir, "flow.yml")])
    expect(await expand([path.join(dir, "cases.yml")])).toEqual([path.join(dir, "cases.yml")])
  })

  test("paths are joined as typed: `.` gives ./a.yml", async () => {
    const dir = tree()
    const previous = process.cwd()
    process.chdir(dir)
    try {
      expect((await expand(["."]))[0]).toBe(`.${path.sep}a.yml`)
    } finally {
      process.chdir(previous)
    }
  })

  test("explicit files are kept as given, in order, twice when named twice, dot-files included", async () => {
    const dir = tree()
    const files = [path.join(dir, "c.txt"), path.join(dir, ".hidden.yml"), path.join(dir, "c.txt"), "missing.yml"]
    expect(await expand(files)).toEqual(files)
  })

  test("a directory reached twice (two spellings, or through a symlink) is walked once", async () => {
    const dir = tree()
    const sub = path.join(dir, "sub")
    expect(await expand([sub, path.join(dir, "sub", "..", "sub"), path.join(dir, "linkdir")])).toEqual([
      path.join(sub, "y.yml")
    ])
  })
})

describe("detectKind", () => {
  const cases: ReadonlyArray<readonly [string, string, FileKind]> = [
    ["w.yml", "steps:\n  - jq: .\n", "workflow"],
    ["w.yml", "nodes: {}\n", "workflow"],
    ["w.yml", "version: 2\n", "workflow"],
    ["w.yml", "name: x\ndescription: no steps yet\n", "workflow"],
    ["t.yml", "workflow: w.yml\nreplay: r\n", "test"],
    ["t.yml", "workflow: w.yml\nassert: []\n", "test"],
    ["e.yml", "target: {model: m, prompt: p}\ncases: []\n", "eval"],
    ["e.yml", "cases: []\n", "eval"],
    ["c.yml", "mcp_servers: {}\n", "config"],
    ["c.yml", "default: {model: m}\ntools: {}\n", "config"],
    ["lait.config.yml", "steps: []\n", "config"],
    [path.join("lait", "config.yml"), "default: {}\n", "config"],
    ["a.md", "anything", "agent"],
    ["x.test.yml", "key: [broken", "test"],
    ["x.eval.yaml", "- a list\n", "eval"],
    ["x.yml", "key: [broken", "workflow"],
    ["x.yml", "default: {model: m}\n", "workflow"]
  ]
  for (const [file, text, kind] of cases) {
    test(`${file} ${JSON.stringify(text)} is a ${kind} file`, () => expect(detectKind(file, text)).toBe(kind))
  }
})
