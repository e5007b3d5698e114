// The hooks `.pre-commit-hooks.yaml` offers the pre-commit framework (docs/editors.md#pre-commit): the
// manifest parses, holds only keys pre-commit knows, and each hook's entry is a lait command whose
// flags exist; then each hook runs as pre-commit runs it — its entry, its args and the project's files
// that its `files` pattern matches — in a project made by `lait init`, recorded from the fixture server.
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as path from "node:path"
import { parse } from "yaml"
import { type OpenAiServer, startOpenAiServer } from "../fixtures/openai-server.ts"
import { makeTempDir, repoRoot, runCli } from "./util.ts"

interface Hook {
  readonly id: string
  readonly name: string
  readonly entry: string
  readonly language: string
  readonly files?: string
  readonly args?: ReadonlyArray<string>
  readonly pass_filenames?: boolean
}

// The keys of a hook in pre-commit's manifest schema (pre_commit/clientlib.py, MANIFEST_HOOK_DICT).
const MANIFEST_KEYS = new Set([
  "id", "name", "entry", "language", "alias", "files", "exclude", "types", "types_or", "exclude_types",
  "additional_dependencies", "args", "always_run", "fail_fast", "pass_filenames", "description",
  "language_version", "log_file", "minimum_pre_commit_version", "require_serial", "stages", "verbose"
])

const hooks = parse(fs.readFileSync(path.join(repoRoot, ".pre-commit-hooks.yaml"), "utf8")) as ReadonlyArray<Hook>
const hook = (id: string) => hooks.find((h) => h.id === id)!

const dir = fs.realpathSync(makeTempDir("pre-commit"))
let server: OpenAiServer
const env = () => ({ PATH: process.env["PATH"], HOME: dir, NO_COLOR: "1", OPENAI_BASE_URL: server.baseUrl })

/** Every file under `root`, relative and with `/`, as `git ls-files` would list a checkout. */
const listFiles = (root: string, sub = ""): Array<string> =>
  fs.readdirSync(path.join(root, sub), { withFileTypes: true }).flatMap((e) => {
    const rel = sub === "" ? e.name : `${sub}/${e.name}`
    return e.isDirectory() ? listFiles(root, rel) : [rel]
  }).sort()

/** What pre-commit runs: the entry's words, the hook's args, then the files its pattern matches. */
const runHook = (h: Hook, cwd: string) => {
  const [program, ...words] = h.entry.split(" ")
  expect(program).toBe("lait")
  const files = listFiles(cwd).filter((f) => new RegExp(h.files ?? "").test(f))
  return { files, result: runCli([...words, ...(h.args ?? []), ...(h.pass_filenames === false ? [] : files)], { cwd, env: env(), timeoutMs: 60_000 }) }
}

beforeAll(async () => {
  server = startOpenAiServer({
    script: [{ content: "lait runs YAML workflows.\nIt replays answers in CI.", usage: { prompt_tokens: 60, completion_tokens: 14 }, repeat: true }]
  })
  for (const kind of [[], ["workflow"], ["test"], ["eval"], ["test", "tests/second.test.yml"]]) {
    expect((await runCli(["init", ...kind], { cwd: dir, env: env() })).code).toBe(0)
  }
  // YAML that is no lait file, which lait lint would reject: the hooks must not be given it.
  fs.mkdirSync(path.join(dir, ".github/workflows"), { recursive: true })
  fs.writeFileSync(path.join(dir, ".github/workflows/ci.yml"), "on: push\njobs: {}\n")
  fs.writeFileSync(path.join(dir, "compose.yml"), "services:\n  web:\n    image: nginx\n")
  const sample = /^input: (".*")$/m.exec(fs.readFileSync(path.join(dir, "workflow.test.yml"), "utf8"))![1]!
  for (const to of ["recordings", "tests/recordings"]) {
    const record = await runCli(["run", "workflow.yml", JSON.parse(sample) as string, "--record", to], { cwd: dir, env: env() })
    expect(record.code).toBe(0)
  }
})
afterAll(async () => {
  await server.stop()
  fs.rmSync(dir, { recursive: true, force: true })
})

describe(".pre-commit-hooks.yaml", () => {
  test("a list of hooks with the keys pre-commit knows, running the lait on PATH", async () => {
    expect(hooks.map((h) => h.id)).toEqual(["lait-lint", "lait-test"])
    for (const h of hooks) {
      expect(Object.keys(h).filter((key) => !MANIFEST_KEYS.has(key))).toEqual([])
      expect(h).toMatchObject({ language: "system", name: h.entry })
      // The entry is a lait command: its help lists every flag the hook's args pass.
      const help = await runCli([...h.entry.split(" ").slice(1), "--help"], { cwd: dir, env: env() })
      expect(help.code).toBe(0)
      for (const flag of (h.args ?? []).filter((a) => a.startsWith("--"))) expect(help.stdout).toContain(flag)
    }
  })

  test("lait-lint checks the lait files of a project and leaves other YAML alone", async () => {
    const { files, result } = runHook(hook("lait-lint"), dir)
    expect(files).toEqual(["lait.config.yml", "tests/second.test.yml", "workflow.eval.yml", "workflow.test.yml", "workflow.yml"])
    const r = await result
    expect([r.code, r.stderr]).toEqual([0, ""])
    expect(r.stdout).toContain("workflow.yml: OK\n")
    // A broken workflow fails the commit.
    const workflow = path.join(dir, "workflow.yml")
    const before = fs.readFileSync(workflow, "utf8")
    fs.writeFileSync(workflow, `${before}bogus_key: 1\n`)
    try {
      const broken = await runHook(hook("lait-lint"), dir).result
      expect(broken.code).toBe(3)
      expect(broken.stdout).toContain("unknown field 'bogus_key'")
    } finally {
      fs.writeFileSync(workflow, before)
    }
  })

  test("lait-test replays the test files and fails the commit when one fails", async () => {
    const { files, result } = runHook(hook("lait-test"), dir)
    expect(files).toEqual(["tests/second.test.yml", "workflow.test.yml"])
    const r = await result
    expect([r.code, r.stdout]).toEqual([
      0,
      "tests/second.test.yml: PASS\nworkflow.test.yml: PASS\n2 passed, 0 failed, 2 total\n"
    ])
    const second = path.join(dir, "tests/second.test.yml")
    fs.appendFileSync(second, "  - type: contains\n    value: never in the answer\n")
    const failing = await runHook(hook("lait-test"), dir).result
    expect(failing.code).toBe(1)
    expect(failing.stdout).toContain("tests/second.test.yml: FAIL\n  assertion 4: expected output to contain \"never in the answer\"")
  })
})
