// The workflow file's JSON Schema (for `lait schema workflow`): produced as draft 2020-12, accepts the
// valid fixtures, rejects shape errors, and lists exactly the keys the loader accepts.
import { describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as path from "node:path"
import Ajv2020 from "ajv/dist/2020.js"
import { Effect, Exit } from "effect"
import { parse } from "yaml"
import { renderChain } from "../../../src/core/errors.ts"
import { FileLoader } from "../../../src/platform/FileLoader.ts"
import {
  KIND_KEYS,
  type KindKey,
  stepAcceptedKeys,
  TOP_LEVEL_KEYS,
  workflowJsonSchema
} from "../../../src/lang/fileSchema.ts"
import { parseWorkflowText } from "../../../src/lang/load.ts"

const fixtures = path.join(import.meta.dir, "fixtures")
const invalidDir = path.resolve(import.meta.dir, "../../fixtures/workflows/invalid")
const schema = workflowJsonSchema()
const validate = new Ajv2020({ allErrors: true }).compile(schema)
const yamlFile = (file: string): unknown => parse(fs.readFileSync(file, "utf8"))

describe("workflowJsonSchema", () => {
  test("is a draft 2020-12 document with a recursive Step definition", () => {
    expect(schema["$schema"]).toBe("https://json-schema.org/draft/2020-12/schema")
    expect(schema["type"]).toBe("object")
    expect(schema["required"]).toEqual(["steps"])
    expect(schema["additionalProperties"]).toBe(false)
    expect(Object.keys(schema["properties"] as object)).toEqual([...TOP_LEVEL_KEYS])
    expect(Object.keys(schema["$defs"] as object)).toContain("Step")
  })

  test("accepts the valid fixtures", () => {
    for (const file of ["every-kind.yml", "locators.yml", "minimal.yml"]) {
      const ok = validate(yamlFile(path.join(fixtures, file)))
      expect({ file, errors: ok ? null : validate.errors }).toEqual({ file, errors: null })
    }
  })

  test("rejects shape errors the loader also rejects", () => {
    for (
      const file of [
        "unknown-top-level-key.yml",
        "missing-steps.yml",
        "empty-steps.yml",
        "no-kind.yml",
        "several-kinds.yml",
        "unknown-field.yml",
        "stop-with-retry.yml",
        "stop-false.yml",
        "invalid-step-id.yml",
        "invalid-branch-name.yml",
        "for-each-zero-concurrency.yml",
        "while-without-max-iterations.yml",
        "temperature-out-of-range.yml",
        "retry-unknown-field.yml",
        "default-unknown-field.yml",
        "models-unknown-field.yml",
        "switch-case-unknown-field.yml",
        "v1-nodes.yml",
        "version-3.yml"
      ]
    ) {
      expect({ file, valid: validate(yamlFile(path.join(invalidDir, file))) }).toEqual({ file, valid: false })
    }
  })
})

/** A smallest valid step of each kind, to which the test adds an unknown field. */
const minimalStep: { readonly [K in KindKey]: string } = {
  prompt: "prompt: hi",
  agent: "agent: helper",
  run: "run: [echo]",
  workflow: "workflow: child.yml",
  jq: "jq: .",
  ask: "ask: why?",
  write: "write: out.txt",
  group: "group: [{jq: .}]",
  switch: "switch: [{when: ., steps: [{jq: .}]}]",
  parallel: "parallel: {a: [{jq: .}]}",
  for_each: "for_each: .\n    steps: [{break: true}]",
  while: "while: .\n    max_iterations: 1\n    steps: [{jq: .}]",
  until: "until: .\n    max_iterations: 1\n    steps: [{jq: .}]",
  stop: "stop: true",
  break: "break: true"
}

const kindDefinition = (kind: KindKey): { properties: object } => {
  const step = (schema["$defs"] as Record<string, { anyOf: Array<{ properties: object; required: Array<string> }> }>)[
    "Step"
  ]!
  const member = step.anyOf.find((m) => m.required.includes(kind))
  if (member === undefined) throw new Error(`no Step member for '${kind}'`)
  return member
}

describe("the loader and the schema accept the same keys", () => {
  for (const kind of KIND_KEYS) {
    test(`'${kind}' steps`, async () => {
      expect(Object.keys(kindDefinition(kind).properties)).toEqual([...stepAcceptedKeys(kind)])

      const text = `steps:\n  - ${minimalStep[kind]}\n    extra_key: 1\n`
      const wrapped = kind === "break" ? `steps:\n  - for_each: .\n    steps:\n      - break: true\n        extra_key: 1\n` : text
      const exit = await Effect.runPromiseExit(
        Effect.flip(parseWorkflowText(wrapped, "/virtual/wf.yml")).pipe(Effect.provide(FileLoader.layer))
      )
      if (Exit.isFailure(exit)) throw new Error(`'${kind}' with an extra key was accepted`)
      expect(renderChain(exit.value)).toEndWith(
        `unknown field 'extra_key'; '${kind}' steps accept: ${stepAcceptedKeys(kind).join(", ")}`
      )
      expect({ kind, errors: validate(parse(text.replace("    extra_key: 1\n", ""))) ? null : validate.errors })
        .toEqual({ kind, errors: null })
      expect(validate(parse(text))).toBe(false)
    })
  }
})
