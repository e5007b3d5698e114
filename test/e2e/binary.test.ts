// The compiled binary runs on a machine without Node or Bun: we run a copy of dist/lait from outside the
// repo, with PATH stripped of every directory holding node/bun/deno and no BUN_* variables.
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as path from "node:path"
import pkg from "../../package.json" with { type: "json" }
import { ensureBinary, envWithoutJsRuntimes, makeTempDir, repoRoot, run } from "./util.ts"

let cwd = ""
let lait = ""
const env = envWithoutJsRuntimes({ HOME: "", XDG_CONFIG_HOME: "" })

beforeAll(async () => {
  cwd = makeTempDir("binary")
  env["HOME"] = cwd
  env["XDG_CONFIG_HOME"] = path.join(cwd, "xdg")
  // A copy outside the repo: the binary must not reach node_modules or src next to it.
  lait = path.join(cwd, path.basename(await ensureBinary()))
  fs.copyFileSync(path.join(repoRoot, "dist", path.basename(lait)), lait)
  fs.chmodSync(lait, 0o755)
}, 300_000)

afterAll(() => fs.rmSync(cwd, { recursive: true, force: true }))

const runLait = (...args: Array<string>) => run([lait, ...args], { cwd, env })

describe("dist/lait without node or bun", () => {
  test("the environment really has no JavaScript runtime", () => {
    for (const name of ["node", "bun", "deno"]) expect(Bun.which(name, { PATH: env["PATH"]! })).toBeNull()
    expect(Object.keys(env).filter((k) => k.startsWith("BUN_"))).toEqual([])
  })

  // build.ts bakes in the commit; dist/lait may predate HEAD (rebuilt only when sources change), so the
  // check is that it names a real commit of this checkout.
  test("--version prints the package version and the commit it was built from", async () => {
    const r = await runLait("--version")
    expect(r).toMatchObject({ code: 0, stderr: "" })
    const commit = /^lait (\S+) \(([0-9a-f]{7,})\)\n$/.exec(r.stdout)
    expect(commit?.[1]).toBe(pkg.version)
    const git = Bun.spawnSync(["git", "rev-parse", "--verify", "--quiet", `${commit?.[2]}^{commit}`], { cwd: repoRoot })
    expect(git.exitCode).toBe(0)
  })

  test("--version --json adds the target and the build date", async () => {
    const r = await runLait("--version", "--json")
    expect(r).toMatchObject({ code: 0, stderr: "" })
    const info = JSON.parse(r.stdout) as Record<string, string>
    expect(Object.keys(info)).toEqual(["name", "version", "commit", "target", "build_date"])
    expect(info).toMatchObject({ name: "lait", version: pkg.version, target: `bun-${process.platform}-${process.arch}` })
    expect(r.stdout).toBe(`${JSON.stringify(info)}\n`)
    expect((await runLait("--version")).stdout).toBe(`lait ${pkg.version} (${info["commit"]})\n`)
    const built = Date.parse(info["build_date"]!)
    expect(new Date(built).toISOString()).toBe(info["build_date"]!)
    expect(built).toBeLessThanOrEqual(Date.now())
  })

  test("--help prints usage on stdout", async () => {
    const r = await runLait("--help")
    expect(r).toMatchObject({ code: 0, stderr: "" })
    expect(r.stdout).toContain("USAGE")
    expect(r.stdout).toContain("--version, -V")
  })

  test("an unknown flag is a one-line usage error: exit 2, nothing on stdout", async () => {
    const r = await runLait("--no-such-flag")
    expect(r).toMatchObject({ code: 2, stdout: "" })
    expect(r.stderr.endsWith("\n")).toBe(true)
    expect(r.stderr.trimEnd().split("\n")).toHaveLength(1)
    expect(r.stderr).toStartWith("lait: ")
    expect(r.stderr).toContain("--no-such-flag")
  })
})

describe("build.ts", () => {
  const build = (...args: Array<string>) => run([process.execPath, path.join(repoRoot, "build.ts"), ...args], { cwd })

  test("an unknown flag is one line on stderr, exit 2", async () => {
    const r = await build("--minify")
    expect(r).toMatchObject({ code: 2, stdout: "" })
    expect(r.stderr.trimEnd().split("\n")).toHaveLength(1)
    expect(r.stderr).toContain("unknown flag '--minify'")
  })

  test("a target Bun does not know is rejected before compiling", async () => {
    const r = await build("--target", "bun-plan9-x64")
    expect(r).toMatchObject({ code: 2, stdout: "" })
    expect(r.stderr).toContain("unknown part 'plan9'")
  })

  // --target for another platform: test/release/cross-build.test.ts (npm run test:release).
})
