// Discovery never follows a symlink and never opens a special file; these tests build each edge
// case in a temporary directory and check the exact list (or message) that comes back.
import { afterAll, describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { Effect, Exit } from "effect"
import { renderChain } from "../../src/core/errors.ts"
import { FileLoader } from "../../src/platform/FileLoader.ts"
import {
  comparePaths,
  discoverTestFiles as discoverEffect,
  findTestFiles as findEffect,
  joinPath,
  parentPath
} from "../../src/testing/discovery.ts"

/** Discovery looks at the file system through FileLoader. */
const discoverTestFiles = (paths: ReadonlyArray<string>) =>
  discoverEffect(paths).pipe(Effect.provide(FileLoader.layer))
const findTestFiles = (paths: ReadonlyArray<string>) => findEffect(paths).pipe(Effect.provide(FileLoader.layer))

const root = fs.mkdtempSync(path.join(os.tmpdir(), "lait-discovery-"))
afterAll(() => fs.rmSync(root, { recursive: true, force: true }))
let n = 0
const fresh = () => {
  const dir = path.join(root, `case-${++n}`)
  fs.mkdirSync(dir)
  return dir
}
const touch = (file: string) => {
  fs.mkdirSync(path.dirname(file), { recursive: true })
  fs.writeFileSync(file, "")
}
const discover = async (paths: ReadonlyArray<string>) => Effect.runPromise(discoverTestFiles(paths))
const discoverError = async (paths: ReadonlyArray<string>) => {
  const exit = await Effect.runPromiseExit(discoverTestFiles(paths))
  if (Exit.isSuccess(exit)) throw new Error(`expected an error, got ${JSON.stringify(exit.value)}`)
  return renderChain(exit.cause.reasons.find((r) => r._tag === "Fail")?.error)
}
const mkfifo = (file: string) => {
  const r = Bun.spawnSync(["mkfifo", file])
  if (r.exitCode !== 0) throw new Error(`mkfifo failed: ${r.stderr.toString()}`)
}

describe("directories", () => {
  test("walks recursively, keeps only .yml/.yaml, in path order", async () => {
    const dir = fresh()
    for (const f of ["b.yml", "nested/a.yaml", "ignored.txt", "a.yml", "nested/deeper/c.yml", "README.md"]) {
      touch(path.join(dir, f))
    }
    expect(await discover([dir])).toEqual([
      `${dir}/a.yml`,
      `${dir}/b.yml`,
      `${dir}/nested/a.yaml`,
      `${dir}/nested/deeper/c.yml`
    ])
  })

  test("skips hidden files and directories, target/ and node_modules/", async () => {
    const dir = fresh()
    for (
      const f of [
        "visible.yml",
        ".hidden.yml",
        ".git/config.yml",
        ".github/workflows/ci.yml",
        "target/build.yml",
        "node_modules/pkg/dep.yml",
        "sub/target/x.yml",
        "sub/ok.yml"
      ]
    ) touch(path.join(dir, f))
    expect(await discover([dir])).toEqual([`${dir}/sub/ok.yml`, `${dir}/visible.yml`])
  })

  test("a directory given with a trailing slash or as . keeps that spelling", async () => {
    const dir = fresh()
    touch(path.join(dir, "t.yml"))
    expect(await discover([`${dir}/`])).toEqual([`${dir}/t.yml`])
    const cwd = process.cwd()
    process.chdir(dir)
    try {
      expect(await discover(["."])).toEqual(["./t.yml"])
    } finally {
      process.chdir(cwd)
    }
  })

  test("symlinked files and directories inside a walk are skipped, and a symlink loop ends", async () => {
    const dir = fresh()
    touch(path.join(dir, "real/inside.yml"))
    fs.symlinkSync("real", path.join(dir, "link_to_real"))
    fs.symlinkSync("real/inside.yml", path.join(dir, "link.yml"))
    // A loop: loop/self -> .. (its own parent), and a self-referencing link.
    fs.mkdirSync(path.join(dir, "loop"))
    fs.symlinkSync("..", path.join(dir, "loop", "self"))
    fs.symlinkSync("me.yml", path.join(dir, "me.yml"))
    expect(await discover([dir])).toEqual([`${dir}/real/inside.yml`])
  })

  test("a FIFO and a socket named like test files are skipped without being opened", async () => {
    const dir = fresh()
    touch(path.join(dir, "ok.yml"))
    mkfifo(path.join(dir, "pipe.yml"))
    const server = net.createServer()
    await new Promise<void>((resolve) => server.listen(path.join(dir, "sock.yml"), resolve))
    try {
      // Opening the FIFO for reading would block forever without a writer: this returning at all is the check.
      expect(await discover([dir])).toEqual([`${dir}/ok.yml`])
    } finally {
      server.close()
    }
  })
})

describe("explicit paths", () => {
  test("an explicit file counts whatever its extension", async () => {
    const dir = fresh()
    touch(path.join(dir, "case.txt"))
    touch(path.join(dir, ".hidden.yml"))
    expect(await discover([`${dir}/case.txt`, `${dir}/.hidden.yml`])).toEqual([`${dir}/.hidden.yml`, `${dir}/case.txt`])
  })

  test("an explicit symlink is an error, even to a regular file", async () => {
    const dir = fresh()
    touch(path.join(dir, "real.yml"))
    fs.symlinkSync("real.yml", path.join(dir, "link.yml"))
    expect(await discoverError([`${dir}/link.yml`])).toBe(
      `test target '${dir}/link.yml' is a symbolic link; pass a regular file or directory`
    )
    fs.symlinkSync(".", path.join(dir, "dirlink"))
    expect(await discoverError([`${dir}/dirlink`])).toBe(
      `test target '${dir}/dirlink' is a symbolic link; pass a regular file or directory`
    )
  })

  test("an explicit FIFO or socket is an error (and the FIFO is not opened)", async () => {
    const dir = fresh()
    mkfifo(path.join(dir, "pipe.yml"))
    expect(await discoverError([`${dir}/pipe.yml`])).toBe(
      `test target '${dir}/pipe.yml' is not a regular file or directory`
    )
    const server = net.createServer()
    await new Promise<void>((resolve) => server.listen(path.join(dir, "s.sock"), resolve))
    try {
      expect(await discoverError([`${dir}/s.sock`])).toBe(`test target '${dir}/s.sock' is not a regular file or directory`)
    } finally {
      server.close()
    }
  })

  test("a missing path is an error naming it", async () => {
    const dir = fresh()
    expect(await discoverError([`${dir}/nope`])).toBe(`failed to read test target '${dir}/nope': no such file or directory`)
  })

  test("the same file reached twice runs once, under the first spelling seen", async () => {
    const dir = fresh()
    touch(path.join(dir, "case.yml"))
    touch(path.join(dir, "other.yml"))
    expect(await discover([`${dir}/case.yml`, dir])).toEqual([`${dir}/case.yml`, `${dir}/other.yml`])
    const cwd = process.cwd()
    process.chdir(root)
    try {
      const rel = path.basename(dir)
      expect(await discover([`./${rel}/case.yml`, `${rel}/case.yml`, `${rel}/../${rel}/case.yml`])).toEqual([
        `./${rel}/case.yml`
      ])
      // A directory reached through two spellings is walked once.
      expect(await discover([rel, `./${rel}`])).toEqual([`${rel}/case.yml`, `${rel}/other.yml`])
    } finally {
      process.chdir(cwd)
    }
  })

  test("with no test files at all the list is empty", async () => {
    const dir = fresh()
    touch(path.join(dir, "notes.txt"))
    expect(await discover([dir])).toEqual([])
  })
})

describe("path order", () => {
  test("component-wise, like Rust's Path ordering", () => {
    const paths = ["a.b/x.yml", "a/b.yml", "a-b.yml", "a/a/z.yml", "B.yml", "a.yml", "é.yml", "z.yml"]
    expect([...paths].sort(comparePaths)).toEqual([
      "B.yml",
      "a/a/z.yml",
      "a/b.yml",
      "a-b.yml",
      "a.b/x.yml",
      "a.yml",
      "z.yml",
      "é.yml"
    ])
  })
  test("root before ./ before ../ before names", () => {
    expect(["a.yml", "../b.yml", "./c.yml", "/d.yml"].sort(comparePaths)).toEqual([
      "/d.yml",
      "./c.yml",
      "../b.yml",
      "a.yml"
    ])
  })
  test("join and parent spell paths as Rust's Path does", () => {
    expect(joinPath("tests", "../wf.yml")).toBe("tests/../wf.yml")
    expect(joinPath("tests/", "c")).toBe("tests/c")
    expect(joinPath("", "wf.yml")).toBe("wf.yml")
    expect(joinPath("tests", "/abs/wf.yml")).toBe("/abs/wf.yml")
    expect(parentPath("tests/case.yml")).toBe("tests")
    expect(parentPath("case.yml")).toBe("")
    expect(parentPath("/case.yml")).toBe("/")
    expect(parentPath("./case.yml")).toBe(".")
  })
})

describe("a large suite", () => {
  // Sorting splits each path into components once, and a walked file's real path is its directory's
  // plus its name (no realpath per file); what it costs is a row of bench/, this checks what it finds.
  test("4,000 files in nested directories come back once each, real paths, in path-component order", async () => {
    const dir = fs.realpathSync(fresh())
    const expected: Array<string> = []
    for (let d = 0; d < 8; d++) {
      fs.mkdirSync(path.join(dir, `group-${d}`))
      for (let i = 0; i < 500; i++) {
        fs.writeFileSync(path.join(dir, `group-${d}`, `case-${i}.yml`), "")
        expected.push(path.join(dir, `group-${d}`, `case-${i}.yml`))
      }
    }
    expected.sort(comparePaths)
    const found = await discover([dir])
    expect(found.length).toBe(4000)
    expect(found).toEqual(expected)
    expect(await discover([path.join(dir, "group-3"), dir])).toEqual(expected)
  }, 60_000)
})

describe("other kinds of lait file", () => {
  const write = (file: string, text: string) => {
    fs.mkdirSync(path.dirname(file), { recursive: true })
    fs.writeFileSync(file, text)
  }

  test("a walk skips what lint recognises as another kind; unsure files stay tests", async () => {
    const dir = fresh()
    write(path.join(dir, "lait.config.yml"), "replay: looks like a test, but the name says config\n")
    write(path.join(dir, "wf.yml"), "steps:\n  - jq: .\n")
    write(path.join(dir, "named.yml"), "name: x\n")
    write(path.join(dir, "e.yml"), "target: {workflow: wf.yml}\ncases: []\n")
    write(path.join(dir, "cases.yaml"), "# cases\n- input: a\n")
    write(path.join(dir, "t.yml"), "workflow: wf.yml\nreplay: cas\n")
    write(path.join(dir, "broken.yml"), "steps: [\n")
    write(path.join(dir, "empty.yml"), "")
    write(path.join(dir, "odd.yml"), "vars: {a: 1}\n")
    const found = await Effect.runPromise(findTestFiles([dir]))
    expect(found.files).toEqual([`${dir}/broken.yml`, `${dir}/empty.yml`, `${dir}/odd.yml`, `${dir}/t.yml`])
    expect(found.skipped).toEqual([
      { path: `${dir}/cases.yaml`, kind: "a list (an eval's cases)" },
      { path: `${dir}/e.yml`, kind: "an eval" },
      { path: `${dir}/lait.config.yml`, kind: "a config" },
      { path: `${dir}/named.yml`, kind: "a workflow" },
      { path: `${dir}/wf.yml`, kind: "a workflow" }
    ])
  })

  test("a file named explicitly runs whatever it is, before or after a walk reaches it", async () => {
    const dir = fresh()
    write(path.join(dir, "wf.yml"), "steps:\n  - jq: .\n")
    write(path.join(dir, "other.yml"), "steps:\n  - jq: .\n")
    const after = await Effect.runPromise(findTestFiles([dir, path.join(dir, "wf.yml")]))
    expect(after).toEqual({ files: [`${dir}/wf.yml`], skipped: [{ path: `${dir}/other.yml`, kind: "a workflow" }] })
    const before = await Effect.runPromise(findTestFiles([path.join(dir, "wf.yml"), dir]))
    expect(before).toEqual(after)
  })
})
