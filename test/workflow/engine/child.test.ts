// `workflow:` steps: path and registry references, `with:` → child inputs, the child's input_schema,
// per-file $steps, `stop` ending only the child, cycles, depth, timeouts and inherited placement.
import { afterAll, describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as path from "node:path"
import { Effect, Layer } from "effect"
import type { Json } from "../../../src/core/json.ts"
import { LlmSteps } from "../../../src/workflow/LlmSteps.ts"
import { errorOf, makeDir, runFile, runYaml, valueOf, writeFile } from "./harness.ts"

const dir = fs.realpathSync(makeDir("engine-child"))
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

writeFile(
  dir,
  `
name: greeter
description: makes a greeting
input_schema:
  type: object
  required: [name]
inputs:
  punctuation:
    type: string
    default: "!"
steps:
  - id: greeting
    jq: '"Hello, \\(.name)\\($inputs.punctuation)"'
output: '{greeting: ., saw_parent_steps: $steps.outer}'
`,
  "greeter.yml"
)

describe("calling a child file", () => {
  test("the step input is the child's initial value and with: binds its inputs", async () => {
    const ran = await runYaml(
      dir,
      `
steps:
  - id: outer
    jq: '{name: .}'
  - id: call
    workflow: ./greeter.yml
    with: '{punctuation: "?"}'
  - jq: '{result: ., outer: $steps.outer, child_ids_leak: $steps.greeting}'
`,
      "Ada"
    )
    expect(valueOf(ran)).toEqual({
      result: { greeting: "Hello, Ada?", saw_parent_steps: null },
      outer: { name: "Ada" },
      child_ids_leak: null
    })
    expect(ran.lines).toEqual([
      "[1] outer",
      "[2] call",
      "    -> greeter: makes a greeting",
      "    [1] greeting",
      "[3] step-3 (jq)"
    ])
  })

  test("without with: the child's defaults apply", async () => {
    const ran = await runYaml(dir, "steps:\n  - workflow: greeter.yml\n    input: '{name: .}'\n", "Grace")
    expect(valueOf(ran)).toEqual({ greeting: "Hello, Grace!", saw_parent_steps: null })
  })

  test("with: must produce an object", async () => {
    const ran = await runYaml(dir, "steps:\n  - id: call\n    workflow: ./greeter.yml\n    with: '[1]'\n", { name: "x" })
    expect(errorOf(ran)).toBe("step 'call': 'with' must produce an object, got an array")
  })

  test("the child's inputs and input_schema are checked with the child's path in the message", async () => {
    const unknown = await runYaml(dir, "steps:\n  - id: call\n    workflow: ./greeter.yml\n    with: '{volume: 11}'\n", {
      name: "x"
    })
    expect(errorOf(unknown)).toStartWith(`step 'call': workflow '${dir}/greeter.yml': `)
    expect(errorOf(unknown)).toContain("volume")
    const badInitial = await runYaml(dir, "steps:\n  - id: call\n    workflow: ./greeter.yml\n", "not an object")
    expect(errorOf(badInitial)).toStartWith(`step 'call': workflow '${dir}/greeter.yml': `)
  })

  test("stop inside the child ends only the child", async () => {
    writeFile(dir, "steps:\n  - jq: '\"child stopped\"'\n  - stop: true\n  - jq: '\"not reached\"'\n", "stopper.yml")
    const ran = await runYaml(dir, "steps:\n  - workflow: ./stopper.yml\n  - jq: '{after: .}'\n", null)
    expect(valueOf(ran)).toEqual({ after: "child stopped" })
  })

  test("a registry name resolves through the workflows: registry; an unknown one is an error", async () => {
    const ok = await runYaml(dir, "steps:\n  - workflow: greet\n    input: '{name: .}'\n", "Lin", {
      context: { workflowRegistry: (name) => (name === "greet" ? path.join(dir, "greeter.yml") : undefined) }
    })
    expect(valueOf(ok)).toEqual({ greeting: "Hello, Lin!", saw_parent_steps: null })
    const missing = await runYaml(dir, "steps:\n  - id: call\n    workflow: nowhere\n", null, {
      context: { workflowRegistry: () => undefined }
    })
    expect(errorOf(missing)).toBe(
      "step 'call': workflow 'nowhere' is not registered under 'workflows:' in lait.config.yml; use a path such as './nowhere.yml' for a file"
    )
  })

  test("a missing child file is reported before anything runs", async () => {
    const ran = await runYaml(dir, "steps:\n  - id: call\n    workflow: ./absent.yml\n", null)
    expect(errorOf(ran)).toBe(
      `step 'call': failed to resolve workflow file path '${dir}/absent.yml': No such file or directory (os error 2)`
    )
  })
})

describe("cycles, depth and timeouts", () => {
  test("a file that calls itself is a cycle, found before the child is opened", async () => {
    const file = writeFile(dir, "steps:\n  - id: again\n    workflow: ./self.yml\n", "self.yml")
    const ran = await runFile(file, null)
    expect(errorOf(ran)).toBe(`step 'again': 'workflow: ${file}' would create a cycle ('${file}' is already running)`)
  })

  test("an indirect cycle names the file already running", async () => {
    writeFile(dir, "steps:\n  - id: to_b\n    workflow: ./cycle-b.yml\n", "cycle-a.yml")
    writeFile(dir, "steps:\n  - id: to_a\n    workflow: ./cycle-a.yml\n", "cycle-b.yml")
    const ran = await runFile(path.join(dir, "cycle-a.yml"), null)
    expect(errorOf(ran)).toBe(
      `step 'to_b': step 'to_a': 'workflow: ${dir}/cycle-a.yml' would create a cycle ('${dir}/cycle-a.yml' is already running)`
    )
  })

  test("nesting deeper than 32 files is an error", async () => {
    const chain = path.join(dir, "chain")
    fs.mkdirSync(chain)
    for (let i = 0; i < 40; i++) {
      writeFile(chain, `steps:\n  - id: call_${i + 1}\n    workflow: ./f${i + 1}.yml\n`, `f${i}.yml`)
    }
    const ran = await runFile(path.join(chain, "f0.yml"), null)
    const expected = Array.from({ length: 32 }, (_, i) => `step 'call_${i + 1}'`).join(": ")
    expect(errorOf(ran)).toBe(`${expected}: 'workflow:' nesting exceeded the maximum depth of 32`)
  })

  test("a child's timeout fails the step with a typed interruption", async () => {
    // Left to finish, the child would take 300 s, far past this test's own 60 s bound.
    writeFile(dir, "timeout: 1\nsteps:\n  - run: [sleep, '300']\n", "slow-child.yml")
    const ran = await runYaml(dir, "steps:\n  - id: call\n    workflow: ./slow-child.yml\n", null)
    expect(ran.ok).toBe(false)
    if (ran.ok) return
    expect(ran.error).toBe("step 'call': workflow timed out after 1s ('timeout')")
    expect(ran.code).toBe(5)
  }, 60_000)

  test("a child inherits the concurrency of its call site: no ask inside a parallel branch", async () => {
    writeFile(dir, "steps:\n  - id: question\n    ask: 'Sure?'\n    default: 'yes'\n", "asks.yml")
    const ran = await runYaml(dir, "steps:\n  - parallel:\n      one:\n        - id: call\n          workflow: ./asks.yml\n", null)
    expect(errorOf(ran)).toBe(
      `step 'call': workflow '${dir}/asks.yml': step 'question' cannot 'ask' inside concurrent execution, including a nested workflow`
    )
  })

  test("no fixed-path write in a child called from concurrent for_each items", async () => {
    writeFile(dir, "steps:\n  - write: fixed.txt\n", "writes.yml")
    const ran = await runYaml(
      dir,
      "steps:\n  - for_each: '[1, 2]'\n    max_concurrency: 2\n    steps:\n      - id: call\n        workflow: ./writes.yml\n",
      null
    )
    expect(errorOf(ran)).toBe(
      `step 'call': workflow '${dir}/writes.yml': step 'step-1 (write)' writes a fixed path inside a concurrent 'for_each', including a nested workflow; add a placeholder to the path or move the write after the loop`
    )
  })
})

describe("model settings seen by a child's model steps", () => {
  test("the child's default: overrides the caller's field by field", async () => {
    const seen: Array<Json> = []
    const llm = Layer.succeed(
      LlmSteps,
      LlmSteps.of({
        runPrompt: (_step, _input, ctx) => {
          seen.push({ defaults: ctx.defaults as unknown as Json, models: Object.keys(ctx.models) })
          return Effect.succeed("answer")
        },
        runAgent: () => Effect.succeed("agent answer")
      })
    )
    writeFile(
      dir,
      "default:\n  temperature: 0.1\nmodels:\n  child_alias:\n    - provider: { base_url: 'http://child' }\n      model_id: c\nsteps:\n  - prompt: 'hi'\n",
      "model-child.yml"
    )
    const ran = await runYaml(
      dir,
      "default:\n  model: parent-model\n  temperature: 0.9\nmodels:\n  parent_alias:\n    - provider: { base_url: 'http://parent' }\n      model_id: p\nsteps:\n  - workflow: ./model-child.yml\n",
      null,
      { llm }
    )
    expect(valueOf(ran)).toBe("answer")
    expect(seen).toEqual([{ defaults: { model: "parent-model", temperature: 0.1 }, models: ["parent_alias", "child_alias"] }])
  })
})
