// `lait schema KIND`: the JSON Schemas (draft 2020-12, checked with Ajv's 2020 validator) accept every
// file under examples/ (each by the kind lint recognises it as) and the corpus's clean files, and
// reject the corpus's files whose mistake is one of shape. The agent schema and the agent parser
// accept and reject the same frontmatters.
import { describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as path from "node:path"
import Ajv2020 from "ajv/dist/2020.js"
import { Effect, Exit } from "effect"
import { parse } from "yaml"
import { parseAgentText, splitFrontmatter } from "../../src/lang/agentFile.ts"
import { detectKind } from "../../src/core/fileKind.ts"
import { jsonSchemaOf, SCHEMA_KINDS, type SchemaKind } from "../../src/lint/schemas.ts"
import { expandTargets } from "../../src/lint/targets.ts"
import { FileLoader } from "../../src/platform/FileLoader.ts"
import { CORPUS } from "./corpus.ts"

const repoRoot = path.resolve(import.meta.dir, "../..")
const ajv = new Ajv2020({ allErrors: true, strict: false })
const validators = Object.fromEntries(SCHEMA_KINDS.map((k) => [k, ajv.compile(jsonSchemaOf(k))])) as Record<
  SchemaKind,
  ReturnType<typeof ajv.compile>
>

/** The YAML value the schema describes: the document, or an agent file's frontmatter. */
const documentOf = (file: string): unknown => {
  const text = fs.readFileSync(file, "utf8")
  if (file.endsWith(".md")) {
    const split = splitFrontmatter(text)
    if (typeof split === "string") throw new Error(`${file}: ${split}`)
    return parse(split.frontmatter) ?? {}
  }
  return parse(text)
}

const verdict = (file: string) => {
  const kind = detectKind(file, fs.readFileSync(file, "utf8"))
  const validate = validators[kind]
  const valid = validate(documentOf(file))
  return { file: path.relative(repoRoot, file), kind, errors: valid ? null : validate.errors }
}

test("every kind is a draft 2020-12 document that Ajv compiles", () => {
  for (const kind of SCHEMA_KINDS) {
    const schema = jsonSchemaOf(kind)
    expect(schema["$schema"]).toBe("https://json-schema.org/draft/2020-12/schema")
    expect(schema["type"]).toBe("object")
    expect(schema["additionalProperties"]).toBe(false)
  }
})

test("every file under examples/ validates against the schema of its kind", async () => {
  const files = await Effect.runPromise(expandTargets([path.join(repoRoot, "examples")]).pipe(Effect.provide(FileLoader.layer)))
  expect(files.length).toBeGreaterThan(5)
  for (const file of files) {
    const result = verdict(file)
    expect(result).toEqual({ ...result, errors: null })
  }
})

describe("the lint corpus", () => {
  const valid = [
    "ok/workflow.yml",
    "ok/workflow.test.yml",
    "ok/workflow.eval.yml",
    "ok/agents/local.md",
    "ok/lait.config.yml",
    "lait.config.yml",
    "tests/ok.test.yml",
    "evals/ok.eval.yml",
    // Mistakes of meaning, not of shape: the schema accepts them, lint does not.
    "undeclared-input-template.yml",
    "unknown-tool.yml",
    "tests/unknown-step.test.yml",
    "evals/step-output-prompt.eval.yml",
    "agents/unknown-names.md",
    "configs/registry/lait.config.yml"
  ]
  for (const file of valid) {
    test(`accepts ${file}`, () => {
      const result = verdict(path.join(CORPUS, file))
      expect(result).toEqual({ ...result, errors: null })
    })
  }

  const invalid: ReadonlyArray<readonly [string, SchemaKind]> = [
    ["load-error.yml", "workflow"],
    ["children/broken.yml", "workflow"],
    ["tests/bad-shape.test.yml", "test"],
    ["evals/bad-shape.eval.yml", "eval"],
    ["configs/bad/lait.config.yml", "config"],
    ["agents/bad-field.md", "agent"],
    ["agents/broken.md", "agent"]
  ]
  for (const [file, kind] of invalid) {
    test(`rejects ${file} (${kind})`, () => {
      const result = verdict(path.join(CORPUS, file))
      expect(result.kind).toBe(kind)
      expect(result.errors).not.toBeNull()
    })
  }
})

describe("agent frontmatter: the JSON Schema and the parser agree", () => {
  const samples: ReadonlyArray<readonly [string, boolean]> = [
    ["name: a\ndescription: b\nmodel: m\n", true],
    ["reasoning_effort: high\ntemperature: 0\ntop_p: 1\nmax_tokens: 1\nmax_tool_rounds: 3\n", true],
    ["mcp: [a]\nskills: [b]\nsubagents: [c]\ntools: [d]\n", true],
    ["input_schema: {type: object}\noutput_schema: {file: x.json}\nschema_name: my_name\n", true],
    ["temperature: 2.5\n", false],
    ["top_p: -0.1\n", false],
    ["max_tokens: 0\n", false],
    ["max_tool_rounds: 1.5\n", false],
    ["reasoning_effort: extreme\n", false],
    ["tools: word_count\n", false],
    ["mcp: [1]\n", false],
    ["name: [x]\n", false],
    ["output_schema: {type: object}\nschema_name: 'bad name'\n", false],
    ["structured_output: true\n", false]
  ]
  for (const [frontmatter, accepted] of samples) {
    test(`${JSON.stringify(frontmatter)} is ${accepted ? "accepted" : "rejected"} by both`, () => {
      const parsed = Effect.runSyncExit(parseAgentText(`---\n${frontmatter}---\nbody\n`, "/agents/a.md"))
      expect(Exit.isSuccess(parsed)).toBe(accepted)
      expect(validators.agent(parse(frontmatter))).toBe(accepted)
    })
  }
})
