// `lait init` starters: each one loads with its own loader, validates against its JSON Schema, and
// passes lint (the test starter once the workflow and its recordings exist); paths in the test and
// eval starters are relative to where they are written.
import { describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as path from "node:path"
import Ajv2020 from "ajv/dist/2020.js"
import { Effect } from "effect"
import { parse } from "yaml"
import { DEFAULT_PATHS, type InitKind, planInit as planInitEffect } from "../../src/cli/init.ts"
import { FileLoader } from "../../src/platform/FileLoader.ts"
import { splitFrontmatter } from "../../src/lang/agentFile.ts"
import { loadActiveConfig } from "../../src/lint/config.ts"
import { lintFile } from "../../src/lint/run.ts"
import { jsonSchemaOf, type SchemaKind } from "../../src/lint/schemas.ts"
import { makeTempDir } from "../e2e/util.ts"

/** The plan looks at the file system through FileLoader; run it to its answer. */
const planInit = (...args: Parameters<typeof planInitEffect>) =>
  Effect.runSync(planInitEffect(...args).pipe(Effect.provide(FileLoader.layer)))

const ajv = new Ajv2020({ allErrors: true, strict: false })
const schemaKind: { readonly [K in InitKind]: SchemaKind } = {
  config: "config",
  workflow: "workflow",
  test: "test",
  eval: "eval",
  agent: "agent"
}
const KINDS: ReadonlyArray<InitKind> = ["config", "workflow", "test", "eval", "agent"]

const lintIn = async (dir: string, file: string) => {
  const previous = process.cwd()
  process.chdir(dir)
  try {
    return await Effect.runPromise(
      Effect.gen(function*() {
        const active = yield* loadActiveConfig({
          configPath: undefined,
          noConfig: false,
          noEnv: true
        })
        return yield* lintFile(file, active)
      }).pipe(Effect.provide(FileLoader.layer))
    )
  } finally {
    process.chdir(previous)
  }
}

describe("starters", () => {
  for (const kind of KINDS) {
    test(`${kind}: validates against 'lait schema ${schemaKind[kind]}'`, () => {
      const plan = planInit(kind, undefined, makeTempDir("init-schema"))
      expect(plan.path).toBe(DEFAULT_PATHS[kind])
      const document = kind === "agent"
        ? parse((splitFrontmatter(plan.contents) as { frontmatter: string }).frontmatter)
        : parse(plan.contents)
      const validate = ajv.compile(jsonSchemaOf(schemaKind[kind]))
      expect({ kind, valid: validate(document), errors: validate.errors ?? null }).toEqual({
        kind,
        valid: true,
        errors: null
      })
    })
  }

  test("all of them pass lint in one directory once the test's recordings exist", async () => {
    const dir = makeTempDir("init-lint")
    for (const kind of KINDS) {
      const plan = planInit(kind, undefined, dir)
      fs.writeFileSync(path.join(dir, plan.path), plan.contents)
    }
    const before = await lintIn(dir, DEFAULT_PATHS.test)
    expect(before.issues.map((i) => [i.severity, i.message])).toEqual([
      ["warning", "'replay' directory 'recordings' does not exist yet; record it with `lait test --record-missing workflow.test.yml`"]
    ])
    fs.mkdirSync(path.join(dir, "recordings"))
    for (const kind of KINDS) {
      const report = await lintIn(dir, DEFAULT_PATHS[kind])
      expect({ file: report.file, issues: report.issues }).toEqual({ file: DEFAULT_PATHS[kind], issues: [] })
    }
  })

  test("a test or eval written elsewhere refers to ./workflow.yml relative to itself", async () => {
    const dir = makeTempDir("init-paths")
    fs.writeFileSync(path.join(dir, "workflow.yml"), planInit("workflow", undefined, dir).contents)
    const testPlan = planInit("test", "tests/summary.test.yml", dir)
    expect(parse(testPlan.contents)).toMatchObject({ workflow: "../workflow.yml", replay: "recordings" })
    expect(testPlan.contents).toContain("--record tests/recordings\n")
    expect(testPlan.notes).toEqual([
      "note: record the answers it replays first: lait run workflow.yml '...' --record tests/recordings"
    ])
    const evalPlan = planInit("eval", "evals/summary.eval.yml", dir)
    expect(parse(evalPlan.contents).target).toEqual({ workflow: "../workflow.yml" })
    expect(evalPlan.notes).toEqual([])

    fs.mkdirSync(path.join(dir, "tests", "recordings"), { recursive: true })
    fs.mkdirSync(path.join(dir, "evals"))
    fs.writeFileSync(path.join(dir, testPlan.path), testPlan.contents)
    fs.writeFileSync(path.join(dir, evalPlan.path), evalPlan.contents)
    expect((await lintIn(dir, testPlan.path)).issues).toEqual([])
    expect((await lintIn(dir, evalPlan.path)).issues).toEqual([])
  })

  test("a missing workflow is pointed out on stderr", () => {
    const plan = planInit("eval", undefined, makeTempDir("init-notes"))
    expect(plan.notes).toEqual(["note: 'workflow.yml' does not exist yet; create it with 'lait init workflow'"])
  })
})
