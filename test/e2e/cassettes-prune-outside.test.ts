// `lait cassettes prune` keeps to the project (issue 36, item 19), through the CLI: a test file whose
// `replay:` leads outside the project — `../..`, an absolute path, a symbolic link — is skipped with a
// warning when listing, and makes `--delete` refuse (exit 2) before deleting anything, even the unused
// cassettes inside the project; `--allow-outside` judges every directory as before. The project is
// the directory of the nearest lait.config.yml upward, else the current directory.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as path from "node:path"
import { requestKey } from "../../src/model/cassette/key.ts"
import { filesUnder, modelsYaml, outcome, prepareCli, server, stopServers, workspace } from "./model-harness.ts"

const ws = workspace("e2e-prune-outside")
beforeAll(prepareCli, 300_000)
afterEach(stopServers)
afterAll(() => ws.remove())

const workflow = (baseUrl: string) =>
  `${modelsYaml({ m: [{ baseUrl, modelId: "fixture-model" }] })}\ndefault:\n  model: m\nsteps:\n  - prompt: 'Say {{ input }}'\n`
const testFile = (replay: string) =>
  `workflow: ../wf.yml\ninput: alpha\nreplay: ${replay}\nassert:\n  - type: equals\n    value: 'echo: Say alpha'\n`
const keyOf = (baseUrl: string, content: string) =>
  requestKey({ base_url: baseUrl, model_id: "fixture-model", messages: [{ role: "user", content }], tools: [], response_format: null })
const tree = (dir: string) => filesUnder(path.join(ws.dir, dir)).map((f) => [f.path, f.bytes.toString("utf8")])
const names = (dir: string) => fs.readdirSync(path.join(ws.dir, dir)).sort()

/**
 * `root/victim/cassettes` (another project: the cassette of "alpha", a stale one, a tool cassette) and
 * `root/proj` with its own `cassettes` (the cassette of "alpha", a stale one) and `tests/in.yml`
 * replaying from them; returns the stale cassettes' names.
 */
const layout = async (root: string) => {
  const s = server()
  ws.write(`${root}/proj/wf.yml`, workflow(s.baseUrl))
  for (const [topic, dir] of [["alpha", "victim"], ["stale", "victim"], ["alpha", "proj"], ["old", "proj"]]) {
    const r = await ws.lait(["run", `${root}/proj/wf.yml`, topic!, "--record", `${root}/${dir}/cassettes`])
    expect(r.code).toBe(0)
  }
  await s.stop()
  ws.write(`${root}/victim/cassettes/tool-echo-1.json`, JSON.stringify({ kind: "tool", tool: "echo", arguments: {} }))
  ws.write(`${root}/proj/tests/in.yml`, testFile("../cassettes"))
  return { victimStale: `${keyOf(s.baseUrl, "Say stale")}.json`, projStale: `${keyOf(s.baseUrl, "Say old")}.json` }
}

describe("lait cassettes prune outside the project", () => {
  test("a replay: of ../.. is warned about when listing and refused by --delete; --allow-outside judges it", async () => {
    const { victimStale, projStale } = await layout("rel")
    ws.write("rel/proj/tests/out.yml", testFile("../../victim/cassettes"))
    const victim = path.join(ws.dir, "rel/victim/cassettes")
    const project = path.join(ws.dir, "rel/proj")
    const cwd = project
    const before = [tree("rel/victim"), tree("rel/proj")]
    const shown = `'tests/out.yml' replays from '../../victim/cassettes', which is '${victim}', ` +
      `outside the project '${project}'`

    // Listing: the project's own stale cassette only; the outside directory is not even looked at.
    expect(outcome(await ws.lait(["cassettes", "prune", "tests"], { cwd }))).toEqual({
      code: 0,
      stdout: `cassettes/${projStale}\n`,
      stderr: `warning: not judged: ${shown} (pass --allow-outside to judge it)\n`
    })
    // --delete refuses before deleting anything at all, the project's own stale cassette included.
    expect(outcome(await ws.lait(["cassettes", "prune", "--delete", "tests"], { cwd }))).toEqual({
      code: 2,
      stdout: "",
      stderr: `lait: refusing to prune: ${shown}; pass --allow-outside to prune there too; nothing was deleted\n`
    })
    expect([tree("rel/victim"), tree("rel/proj")]).toEqual(before)

    // Allowed: judged as before — the stale cassettes go, the used ones and the tool cassette stay.
    const allowed = await ws.lait(["cassettes", "prune", "--delete", "--allow-outside", "tests"], { cwd })
    expect(outcome(allowed)).toEqual({
      code: 0,
      stdout: `cassettes/${projStale}\n../victim/cassettes/${victimStale}\n`,
      stderr: "note: left 1 tool cassette(s) alone: no test replays tools (run prune with --replay-tools to judge them)\n" +
        "deleted 2 unused cassette file(s)\n"
    })
    expect(names("rel/victim/cassettes")).not.toContain(victimStale)
    expect(names("rel/victim/cassettes")).toHaveLength(2)
    expect(names("rel/proj/cassettes")).not.toContain(projStale)
    expect((await ws.lait(["test", "tests"], { cwd })).code).toBe(0)
  })

  test("an absolute replay: and a symbolic link out of the project are refused; the victims survive", async () => {
    await layout("abs")
    const victim = path.join(ws.dir, "abs/victim/cassettes")
    const project = path.join(ws.dir, "abs/proj")
    const cwd = project
    ws.write("abs/proj/tests/out.yml", testFile(victim))
    const before = tree("abs/victim")
    const refused = await ws.lait(["cassettes", "prune", "--delete", "tests"], { cwd })
    expect(outcome(refused)).toEqual({
      code: 2,
      stdout: "",
      stderr: `lait: refusing to prune: 'tests/out.yml' replays from '${victim}', outside the project '${project}'; ` +
        "pass --allow-outside to prune there too; nothing was deleted\n"
    })
    expect(tree("abs/victim")).toEqual(before)

    // A link inside the project that leads out of it is judged by where it leads, however the path
    // winds; one line names the first directory outside and counts the others.
    fs.rmSync(path.join(project, "tests/out.yml"))
    fs.cpSync(victim, path.join(ws.dir, "abs/elsewhere"), { recursive: true })
    fs.symlinkSync("../victim/cassettes", path.join(project, "shared"))
    fs.symlinkSync("..", path.join(project, "up"))
    ws.write("abs/proj/tests/link.yml", testFile("../shared"))
    ws.write("abs/proj/tests/up.yml", testFile("../up/proj/../victim/cassettes"))
    ws.write("abs/proj/tests/zz.yml", testFile("../up/elsewhere"))
    const elsewhere = tree("abs/elsewhere")
    const linked = await ws.lait(["cassettes", "prune", "--delete", "tests"], { cwd })
    expect(outcome(linked)).toEqual({
      code: 2,
      stdout: "",
      stderr: `lait: refusing to prune: 'tests/link.yml' replays from '../shared', which is '${victim}', ` +
        `outside the project '${project}' (and 1 more replay directory outside it); ` +
        "pass --allow-outside to prune there too; nothing was deleted\n"
    })
    expect(tree("abs/victim")).toEqual(before)
    const listed = await ws.lait(["cassettes", "prune", "tests"], { cwd })
    expect(listed.code).toBe(0)
    expect(listed.stderr.split("\n").filter((l) => l.startsWith("warning: not judged: "))).toEqual([
      `warning: not judged: 'tests/link.yml' replays from '../shared', which is '${victim}', outside the project ` +
      `'${project}' (pass --allow-outside to judge it)`,
      `warning: not judged: 'tests/zz.yml' replays from '../up/elsewhere', which is '${path.join(ws.dir, "abs/elsewhere")}', ` +
      `outside the project '${project}' (pass --allow-outside to judge it)`
    ])
    expect([tree("abs/victim"), tree("abs/elsewhere")]).toEqual([before, elsewhere])
  })

  test("the project is the directory of the nearest lait.config.yml upward, else the current one", async () => {
    const { projStale } = await layout("cfg")
    const cwd = path.join(ws.dir, "cfg/proj/tests")
    // From tests/ without a config file, ../cassettes is outside the current directory.
    const bare = await ws.lait(["cassettes", "prune", "--delete", "in.yml"], { cwd })
    expect([bare.code, bare.stdout]).toEqual([2, ""])
    expect(bare.stderr).toStartWith(`lait: refusing to prune: 'in.yml' replays from '../cassettes', which is '${
      path.join(ws.dir, "cfg/proj/cassettes")
    }', outside the project '${cwd}'`)
    expect(names("cfg/proj/cassettes")).toContain(projStale)
    // With the project's lait.config.yml, the same command prunes the project's directory.
    ws.write("cfg/proj/lait.config.yml", "# the project root\n")
    expect(outcome(await ws.lait(["cassettes", "prune", "--delete", "in.yml"], { cwd }))).toEqual({
      code: 0,
      stdout: `../cassettes/${projStale}\n`,
      stderr: "deleted 1 unused cassette file(s)\n"
    })
    expect(names("cfg/proj/cassettes")).not.toContain(projStale)
  })

  test("a directory reached through a link inside the project is one directory: a cassette read either way is used", async () => {
    const s = server()
    ws.write("two/wf.yml", workflow(s.baseUrl))
    for (const topic of ["alpha", "beta", "stale"]) {
      expect((await ws.lait(["run", "two/wf.yml", topic, "--record", "two/cassettes"])).code).toBe(0)
    }
    await s.stop()
    fs.symlinkSync("cassettes", path.join(ws.dir, "two/alias"))
    ws.write("two/t/a.yml", testFile("../cassettes"))
    ws.write("two/t/b.yml", testFile("../alias").replaceAll("alpha", "beta"))
    const stale = `${keyOf(s.baseUrl, "Say stale")}.json`
    const cwd = path.join(ws.dir, "two")
    expect(outcome(await ws.lait(["cassettes", "prune", "--delete", "t"], { cwd }))).toEqual({
      code: 0,
      stdout: `cassettes/${stale}\n`,
      stderr: "deleted 1 unused cassette file(s)\n"
    })
    expect(names("two/cassettes")).toHaveLength(2)
    expect((await ws.lait(["test", "t"], { cwd })).code).toBe(0)
  })
})
