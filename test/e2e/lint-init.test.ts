// `lait init` and `lait schema`, run in this process (docs/architecture.md#testing): the starters are
// written atomically, never over an existing file, pass `lait lint` once their answers are recorded
// (from a real OpenAI-compatible server on 127.0.0.1), and that recorded test then passes under
// `lait test`; `lait schema` prints each kind's JSON Schema and validates what `lait init` wrote.
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as path from "node:path"
import Ajv2020 from "ajv/dist/2020.js"
import { parse } from "yaml"
import { type OpenAiServer, startOpenAiServer } from "../fixtures/openai-server.ts"
import { makeTempDir, runCli } from "./util.ts"

const SAMPLE_INPUT = "lait runs YAML workflows against OpenAI-compatible servers, records the model's answers " +
  "once and replays them in tests, so a workflow can be checked in CI without a model."

let server: OpenAiServer
const home = makeTempDir("init-home")

beforeAll(async () => {
  server = await startOpenAiServer({
    script: [
      {
        content: "lait runs YAML workflows.\nIt records answers and replays them in CI.",
        usage: { prompt_tokens: 60, completion_tokens: 14 },
        repeat: true
      }
    ]
  })
})
afterAll(() => server.stop())

const envFor = (extra: Record<string, string> = {}) => ({ PATH: process.env["PATH"], HOME: home, NO_COLOR: "1", ...extra })
const lait = (args: ReadonlyArray<string>, cwd: string, extra?: Record<string, string>) =>
  runCli(args, { cwd, env: envFor(extra), timeoutMs: 60_000 })

describe("lait init", () => {
  test("every starter, refusal to overwrite, lint before and after recording, then lait test passes", async () => {
    const dir = makeTempDir("init-e2e")
    const created: Array<string> = []
    for (const args of [[], ["workflow"], ["test"], ["eval"], ["agent"]]) {
      const r = await lait(["init", ...args], dir)
      expect(r.code).toBe(0)
      created.push(r.stdout)
    }
    // With each YAML starter, the JSON Schema its first line points at (docs/editors.md).
    expect(created).toEqual([
      "created 'lait.config.yml'\ncreated '.lait-schemas/config.schema.json'\n",
      "created 'workflow.yml'\ncreated '.lait-schemas/workflow.schema.json'\n",
      "created 'workflow.test.yml'\ncreated '.lait-schemas/test.schema.json'\n",
      "created 'workflow.eval.yml'\ncreated '.lait-schemas/eval.schema.json'\n",
      "created 'agent.md'\n"
    ])
    // Atomic writes leave no temp files behind.
    expect(fs.readdirSync(dir).sort()).toEqual(
      [".lait-schemas", "agent.md", "lait.config.yml", "workflow.eval.yml", "workflow.test.yml", "workflow.yml"]
    )
    expect(fs.readdirSync(path.join(dir, ".lait-schemas")).sort()).toEqual(
      ["config.schema.json", "eval.schema.json", "test.schema.json", "workflow.schema.json"]
    )

    const before = fs.readFileSync(path.join(dir, "workflow.yml"), "utf8")
    const again = await lait(["init", "workflow"], dir)
    expect([again.code, again.stdout, again.stderr]).toEqual([
      1,
      "",
      "lait: 'workflow.yml' already exists; refusing to overwrite it (move it aside or pass another PATH)\n"
    ])
    expect(fs.readFileSync(path.join(dir, "workflow.yml"), "utf8")).toBe(before)

    const unrecorded = await lait(["lint", "."], dir)
    // Not recorded yet is not wrong: a warning that names the command recording it.
    expect(unrecorded.stdout).toContain(
      "./workflow.test.yml:\n  warning: 'replay' directory 'recordings' does not exist yet; record it with " +
        "`lait test --record-missing ./workflow.test.yml`\n"
    )
    expect(unrecorded.code).toBe(0)

    // Record the answers the test replays, from a real server, as the starter's comment says.
    const record = await lait(["run", "workflow.yml", SAMPLE_INPUT, "--record", "recordings"], dir, {
      OPENAI_BASE_URL: server.baseUrl
    })
    expect(record.code).toBe(0)
    expect(server.requests.length).toBe(1)

    const lint = await lait(["lint", "."], dir)
    expect([lint.code, lint.stdout, lint.stderr]).toEqual([
      0,
      [
        "./agent.md: OK",
        "./lait.config.yml: OK",
        "./workflow.eval.yml: OK",
        "./workflow.test.yml: OK",
        "./workflow.yml: OK",
        ""
      ].join("\n"),
      ""
    ])

    // The recordings are keyed by endpoint too: replay with the same base URL (never contacted).
    const replayed = await lait(["test", "workflow.test.yml"], dir, { OPENAI_BASE_URL: server.baseUrl })
    expect([replayed.code, replayed.stdout]).toEqual([0, "workflow.test.yml: PASS\n1 passed, 0 failed, 1 total\n"])
    expect(server.requests.length).toBe(1)
  })

  test("a PATH in a new directory; notes on stderr for what the starter still needs", async () => {
    const dir = makeTempDir("init-path")
    const r = await lait(["init", "test", "tests/summary.test.yml"], dir)
    expect([r.code, r.stdout, r.stderr]).toEqual([
      0,
      "created 'tests/summary.test.yml'\ncreated '.lait-schemas/test.schema.json'\n",
      "note: 'workflow.yml' does not exist yet; create it with 'lait init workflow'\n" +
        "note: record the answers it replays first: lait run workflow.yml '...' --record tests/recordings\n"
    ])
    const text = fs.readFileSync(path.join(dir, "tests/summary.test.yml"), "utf8")
    expect(parse(text)).toMatchObject({ workflow: "../workflow.yml", replay: "recordings" })
    // The modeline is relative to the file, as the YAML language server resolves it.
    expect(text.split("\n")[0]).toBe("# yaml-language-server: $schema=../.lait-schemas/test.schema.json")
  })

  test("an unknown kind is a usage error", async () => {
    const r = await lait(["init", "pipeline"], makeTempDir("init-usage"))
    expect(r.code).toBe(2)
  })
})

describe("lait schema", () => {
  test("each kind is JSON Schema 2020-12 on stdout, and validates what lait init wrote", async () => {
    const dir = makeTempDir("schema-e2e")
    const ajv = new Ajv2020({ allErrors: true, strict: false })
    const pairs = [
      ["config", "lait.config.yml", []],
      ["workflow", "workflow.yml", ["workflow"]],
      ["test", "workflow.test.yml", ["test"]],
      ["eval", "workflow.eval.yml", ["eval"]],
      ["agent", "agent.md", ["agent"]]
    ] as const
    for (const [kind, file, initArgs] of pairs) {
      expect((await lait(["init", ...initArgs], dir)).code).toBe(0)
      const r = await lait(["schema", kind], dir)
      expect([r.code, r.stderr]).toEqual([0, ""])
      const schema = JSON.parse(r.stdout) as Record<string, unknown>
      expect(schema["$schema"]).toBe("https://json-schema.org/draft/2020-12/schema")
      const text = fs.readFileSync(path.join(dir, file), "utf8")
      const document = kind === "agent" ? parse(text.split("\n---\n")[0]!.replace(/^---\n/, "")) : parse(text)
      const validate = ajv.compile(schema)
      expect({ kind, valid: validate(document), errors: validate.errors ?? null }).toEqual({ kind, valid: true, errors: null })
      expect(validate({ surely_not_a_key: true })).toBe(false)
    }
  })

  test("an unknown kind is a usage error, and so is neither a kind nor --write", async () => {
    const r = await lait(["schema", "pipeline"], makeTempDir("schema-usage"))
    expect([r.code, r.stdout]).toEqual([2, ""])
    const none = await lait(["schema"], makeTempDir("schema-usage"))
    expect([none.code, none.stdout, none.stderr]).toEqual([
      2,
      "",
      "lait: a KIND (workflow, config, test, eval, agent) or --write DIR is required\n"
    ])
  })

  test("--write DIR writes every schema, as `lait schema KIND` prints it; the modelines of lait init find them", async () => {
    const dir = makeTempDir("schema-write")
    const r = await lait(["schema", "--write", "editor/schemas"], dir)
    const kinds = ["workflow", "config", "test", "eval", "agent"]
    expect([r.code, r.stdout, r.stderr]).toEqual([
      0,
      kinds.map((kind) => `wrote 'editor/schemas/${kind}.schema.json'\n`).join(""),
      ""
    ])
    const ajv = new Ajv2020({ allErrors: true, strict: false })
    for (const kind of kinds) {
      const written = fs.readFileSync(path.join(dir, "editor/schemas", `${kind}.schema.json`), "utf8")
      expect(written).toBe((await lait(["schema", kind], dir)).stdout)
      // A valid schema: Ajv compiles it against the 2020-12 meta-schema.
      expect(ajv.validateSchema(JSON.parse(written))).toBe(true)
    }
    // One kind only, over an older file.
    fs.writeFileSync(path.join(dir, "editor/schemas/test.schema.json"), "{}")
    const one = await lait(["schema", "test", "--write", "editor/schemas"], dir)
    expect(one.stdout).toBe("wrote 'editor/schemas/test.schema.json'\n")
    expect(fs.readFileSync(path.join(dir, "editor/schemas/test.schema.json"), "utf8")).toBe(
      (await lait(["schema", "test"], dir)).stdout
    )

    // Every YAML starter's first line points at a schema that exists and accepts the starter.
    const project = makeTempDir("schema-modelines")
    // A schema already there is left alone (lait init overwrites nothing).
    fs.mkdirSync(path.join(project, ".lait-schemas"))
    fs.writeFileSync(path.join(project, ".lait-schemas/eval.schema.json"), "{}\n")
    for (const [args, file, kind] of [
      [[], "lait.config.yml", "config"],
      [["workflow", "flows/wf.yml"], "flows/wf.yml", "workflow"],
      [["test"], "workflow.test.yml", "test"],
      [["eval", "evals/deep/summary.eval.yml"], "evals/deep/summary.eval.yml", "eval"]
    ] as const) {
      const init = await lait(["init", ...args], project)
      expect(init.code).toBe(0)
      const text = fs.readFileSync(path.join(project, file), "utf8")
      const modeline = /^# yaml-language-server: \$schema=(\S+)\n/.exec(text)
      expect(modeline).not.toBeNull()
      const schemaPath = path.resolve(path.dirname(path.join(project, file)), modeline![1]!)
      expect(schemaPath).toBe(path.join(project, ".lait-schemas", `${kind}.schema.json`))
      if (kind === "eval") {
        expect(init.stdout).toBe(`created '${file}'\n`)
        expect(fs.readFileSync(schemaPath, "utf8")).toBe("{}\n")
        continue
      }
      const validate = ajv.compile(JSON.parse(fs.readFileSync(schemaPath, "utf8")) as object)
      expect({ file, valid: validate(parse(text)), errors: validate.errors ?? null }).toEqual({
        file,
        valid: true,
        errors: null
      })
    }
  })
})
