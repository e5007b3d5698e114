// `lait test --watch` (docs/testing.md#watch-mode) as a user meets it: the compiled binary in a real
// terminal (tmux), files edited while it watches. Two test files share nothing but the folder, so
// every edit must re-run exactly the one whose run read the edited file. Skipped only without tmux.
import { afterAll, describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as path from "node:path"
import { binaryPath, ensureBinary, makeTempDir, runCli } from "./util.ts"

const hasTmux = Bun.spawnSync(["sh", "-c", "command -v tmux"]).exitCode === 0
if (!hasTmux) console.warn("skipping the terminal test of lait test --watch: tmux is not installed")

// A tmux server of our own (its own socket): nothing of the user's is touched.
const socket = `lait-watch-${process.pid}`
const tmux = (...args: Array<string>) =>
  Bun.spawnSync(["tmux", "-L", socket, ...args], { stdout: "pipe", stderr: "pipe" }).stdout.toString()

const root = makeTempDir("watch")
afterAll(() => {
  if (hasTmux) tmux("kill-server")
  fs.rmSync(root, { recursive: true, force: true })
})

/** a.yml runs child.yml; b.yml stands alone; each has a test file with its own replay: directory. */
const project = (): string => {
  const dir = fs.mkdtempSync(path.join(root, "p-"))
  const write = (file: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true })
    fs.writeFileSync(path.join(dir, file), text)
  }
  write("a.yml", "name: a\nsteps:\n  - workflow: child.yml\n")
  write("child.yml", "name: child\nsteps:\n  - jq: '\"child says \" + .'\n")
  write("b.yml", "name: b\nsteps:\n  - jq: '\"b says \" + .'\n")
  const testFile = (name: string, expected: string) =>
    `workflow: ../${name}.yml\ninput: hi\nreplay: cassettes/${name}\nassert:\n  - type: equals\n    value: ${expected}\n`
  write("tests/a.test.yml", testFile("a", "child says hi"))
  write("tests/b.test.yml", testFile("b", "b says hi"))
  write("tests/cassettes/b/notes.txt", "one\n")
  write("lait.config.yml", "default:\n  temperature: 0\n")
  return dir
}

describe.skipIf(!hasTmux)("lait test --watch in a terminal", () => {
  test("re-runs only the files a change affects (child workflow, cassettes, config, new file); Ctrl-C exits 130", async () => {
    await ensureBinary()
    const dir = project()
    const exitFile = path.join(dir, "exit-status")
    tmux(
      "new-session", "-d", "-s", "t", "-x", "120", "-y", "40",
      `cd '${dir}' && NO_COLOR=1 '${binaryPath}' test --watch tests; echo $? > '${exitFile}'; sleep 600`
    )
    const screen = () => tmux("capture-pane", "-p", "-t", "t")
    // Generous: a wait ends as soon as the text shows; only a failure waits it out.
    const waitFor = async (check: (shown: string) => boolean, what: string) => {
      const deadline = Date.now() + 60_000
      for (;;) {
        const shown = screen()
        if (check(shown)) return shown
        if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}; the screen:\n${shown}`)
        await Bun.sleep(25)
      }
    }
    const watching = "note: watching for changes to 2 test file(s)"

    let shown = await waitFor((s) => s.includes(watching), "the first round")
    expect(shown).toContain("tests/a.test.yml: PASS\ntests/b.test.yml: PASS\n2 passed, 0 failed, 2 total")

    // A child workflow of a.yml: only tests/a.test.yml re-runs, on a cleared screen.
    fs.writeFileSync(path.join(dir, "child.yml"), "name: child\nsteps:\n  - jq: '\"kid says \" + .'\n")
    shown = await waitFor((s) => s.includes(watching) && s.includes("1 total"), "the round after child.yml")
    expect(shown).toContain("note: child.yml changed: re-running 1 test file(s)")
    expect(shown).toContain('tests/a.test.yml: FAIL\n  assertion 1: expected output to equal "child says hi", got "kid')
    expect(shown).toContain("0 passed, 1 failed, 1 total")
    expect(shown).not.toContain("b.test.yml")
    expect(shown).not.toContain("2 total")

    // A file in b's replay: directory: only tests/b.test.yml re-runs.
    fs.writeFileSync(path.join(dir, "tests/cassettes/b/notes.txt"), "two\n")
    shown = await waitFor((s) => s.includes(watching) && s.includes("1 passed"), "the round after the cassette")
    expect(shown).toContain("note: tests/cassettes/b/notes.txt changed: re-running 1 test file(s)")
    expect(shown).toContain("tests/b.test.yml: PASS\n1 passed, 0 failed, 1 total")
    expect(shown).not.toContain("a.test.yml")

    // The config: every file re-runs.
    fs.writeFileSync(path.join(dir, "lait.config.yml"), "default:\n  temperature: 0.5\n")
    shown = await waitFor((s) => s.includes(watching) && s.includes("2 total"), "the round after the config")
    expect(shown).toContain("note: lait.config.yml changed: re-running 2 test file(s)")
    expect(shown).toContain("tests/a.test.yml: FAIL")
    expect(shown).toContain("tests/b.test.yml: PASS\n1 passed, 1 failed, 2 total")

    // A new test file under PATH: it runs alone, and is watched from then on.
    fs.writeFileSync(path.join(dir, "tests/c.test.yml"), "workflow: ../b.yml\ninput: c\nreplay: cassettes/b\n")
    shown = await waitFor((s) => s.includes("watching for changes to 3 test file(s)"), "the round after the new file")
    expect(shown).toContain("note: tests/c.test.yml changed: re-running 1 test file(s)")
    expect(shown).toContain("tests/c.test.yml: PASS\n1 passed, 0 failed, 1 total")
    expect(shown).not.toContain("a.test.yml")

    tmux("send-keys", "-t", "t", "C-c")
    await waitFor(() => fs.existsSync(exitFile) && fs.readFileSync(exitFile, "utf8").trim() !== "", "the exit status")
    expect(fs.readFileSync(exitFile, "utf8").trim()).toBe("130")
  }, 180_000)
})

test("--watch with --record is a usage error: recording would start the next round", async () => {
  const dir = project()
  const r = await runCli(["test", "--watch", "--record", "tests", "--no-config"], { cwd: dir })
  expect(r.code).toBe(2)
  expect(r.stderr).toBe("lait: the argument '--watch' cannot be used with '--record'\n")
  expect(r.stdout).toBe("")
})
