// Proof that test/hermetic.ts (bunfig.toml's test preload) ran before this file: HOME, the XDG
// directories and the working directory are a temp dir's, and a lait spawned the way most tests
// spawn it (this process's environment and working directory) keeps its history there, not in the
// developer's. The file deliberately does not import test/hermetic.ts, which would make it hermetic
// on its own and prove nothing about the others.
import { expect, test } from "bun:test"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

interface Hermetic {
  readonly root: string
  readonly developer: { readonly home: string; readonly xdgDataHome: string | undefined; readonly cwd: string }
}

const repoRoot = path.resolve(import.meta.dir, "..")
const hermetic = (globalThis as Record<symbol, Hermetic | undefined>)[Symbol.for("lait.test.hermetic")]
const inside = (dir: string, p: string | undefined) => p !== undefined && !path.relative(dir, p).startsWith("..")

test("the preload gave this process a temp HOME, XDG directories and working directory", () => {
  expect(hermetic, "test/hermetic.ts did not run first: is bunfig.toml's [test] preload in place?").toBeDefined()
  const { root } = hermetic!
  expect(inside(fs.realpathSync(os.tmpdir()), root)).toBe(true)
  expect(root).not.toBe(os.userInfo().homedir)
  for (const name of ["HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME", "XDG_RUNTIME_DIR"]) {
    expect(inside(root, process.env[name]), `${name}=${process.env[name]}`).toBe(true)
    expect(fs.statSync(process.env[name]!).isDirectory()).toBe(true)
  }
  expect(inside(root, process.cwd()), `cwd ${process.cwd()}`).toBe(true)
})

test("a lait spawned with the inherited environment writes its history into the temp HOME, not the developer's", async () => {
  const { developer } = hermetic!
  const nonce = `hermetic-${process.pid}-${crypto.randomUUID()}`
  fs.writeFileSync(
    "wf.yml",
    "steps:\n  - run: [sh, -c, 'printf \"%s|%s|%s\" \"$HOME\" \"$XDG_DATA_HOME\" \"$PWD\"']\n"
  )
  // No env and no cwd: exactly what a test that forgets about them gives its child.
  const child = Bun.spawn([process.execPath, path.join(repoRoot, "src", "main.ts"), "run", "wf.yml", nonce], {
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe"
  })
  const [stdout, stderr] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text()])
  expect(await child.exited, stderr).toBe(0)
  expect(stdout).toBe(`${process.env["HOME"]}|${process.env["XDG_DATA_HOME"]}|${process.cwd()}\n`)

  // The history entry's prompt is the nonce.
  const ours = path.join(process.env["XDG_DATA_HOME"]!, "lait", "history.jsonl")
  expect(fs.readFileSync(ours, "utf8")).toContain(nonce)
  // Read only: whatever else writes to the developer's history meanwhile, this run's nonce is not there.
  const theirs = path.join(developer.xdgDataHome || path.join(developer.home, ".local", "share"), "lait", "history.jsonl")
  expect(theirs).not.toBe(ours)
  expect(fs.existsSync(theirs) && fs.readFileSync(theirs, "utf8").includes(nonce)).toBe(false)
}, 60_000)
