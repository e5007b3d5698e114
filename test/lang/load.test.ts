// The workflow loader: every static error of the version-2 format with its exact message and line,
// and what a valid file turns into (locators, lines, resolved references, inputs, defaults).
import { beforeAll, describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Effect, Exit } from "effect"
import { errorClassOf, exitCodeOf, renderChain } from "../../src/core/errors.ts"
import { WorkflowLoadError } from "../../src/lang/loadErrors.ts"
import { FileLoader, READ_LIMIT } from "../../src/platform/FileLoader.ts"
import { checkJqSyntax, loadJq } from "../../src/lang/jq.ts"
import { loadSchemaValidator, validateJson, validateSchemaDocument } from "../../src/lang/jsonschema.ts"
import { loadWorkflow, parseWorkflowText } from "../../src/lang/load.ts"
import type { Step, StepKind, Workflow } from "../../src/lang/model.ts"
import { checkTemplateSyntax, loadTemplateEngine } from "../../src/lang/template.ts"

beforeAll(() => Effect.runPromise(Effect.andThen(loadTemplateEngine, loadSchemaValidator)))

const invalidDir = path.resolve(import.meta.dir, "../fixtures/workflows/invalid")
const validDir = path.resolve(import.meta.dir, "load/fixtures")

const run = <A, E>(effect: Effect.Effect<A, E, FileLoader>) =>
  Effect.runPromiseExit(effect.pipe(Effect.provide(FileLoader.layer)))

const load = async (file: string): Promise<Workflow> => {
  const exit = await run(loadWorkflow(file))
  if (Exit.isFailure(exit)) throw new Error(`expected ${file} to load, got a failure: ${String(exit.cause)}`)
  return exit.value
}

const failure = async (effect: Effect.Effect<unknown, unknown, FileLoader>): Promise<unknown> => {
  const exit = await run(Effect.flip(effect))
  if (Exit.isFailure(exit)) throw new Error(`expected a typed failure, got ${String(exit.cause)}`)
  return exit.value
}

await Effect.runPromise(loadJq)

/** The message a syntax checker gives, asserting that it does reject the source. */
const rejected = (problem: string | undefined): string => {
  if (problem === undefined) throw new Error("the fixture's syntax error was accepted by the checker")
  return problem
}
const jqProblem = (filter: string) => rejected(checkJqSyntax(filter))
const templateProblem = (source: string) => rejected(checkTemplateSyntax(source))
const abs = (relative: string) => path.join(invalidDir, relative)

const ACCEPTS = "version, name, description, inputs, input_schema, output, timeout, default, models, schemas, agents, steps"
const KINDS = "prompt, agent, run, workflow, jq, ask, write, group, switch, parallel, for_each, while, until, stop, break"
const V1 = "this is a version 1 workflow ('nodes:'/'use:'), which this build of lait no longer runs; " +
  "rewrite it for version 2 (see the migration guide in docs/workflows.md#migrating-from-version-1)"
const NAME_RULE = "use a letter or '_' followed by letters, digits, '_' or '-'"

// [fixture, line, message after "failed to load workflow '<path>': "]
const invalid: ReadonlyArray<readonly [string, number | undefined, () => string]> = [
  ["not-a-mapping.yml", 1, () => "a workflow file must be a YAML mapping"],
  ["yaml-duplicate-key.yml", 2, () => "duplicate entry with key \"name\" at line 2, column 1"],
  [
    "yaml-syntax.yml",
    4,
    () => "Flow sequence in block collection must be sufficiently indented and end with a ] at line 4, column 1"
  ],
  ["v1-nodes.yml", 2, () => V1],
  ["v1-version.yml", 1, () => V1],
  [
    "version-3.yml",
    1,
    () => "unsupported workflow 'version: 3'; this build of lait supports version 2 (omit 'version:' to use it)"
  ],
  ["unknown-top-level-key.yml", 2, () => `unknown field 'stpes'; workflow files accept: ${ACCEPTS}`],
  ["missing-steps.yml", 1, () => "a workflow file requires 'steps'"],
  ["empty-steps.yml", 1, () => "steps: must contain at least one step"],
  ["steps-not-a-list.yml", 2, () => "steps: expected a list of steps, got a mapping"],
  ["step-not-a-mapping.yml", 3, () => "steps[1]: a step must be a mapping"],
  ["no-kind.yml", 2, () => `steps[0]: a step needs exactly one of: ${KINDS}`],
  [
    "use-hint.yml",
    2,
    () => `steps[0]: a step needs exactly one of: ${KINDS} ('use:' is version 1 syntax; see the migration guide)`
  ],
  ["several-kinds.yml", 2, () => "steps[0]: a step must have exactly one kind, found run and jq"],
  [
    "decide.yml",
    2,
    () =>
      "steps[0] (id 'judge'): 'decide' steps are not supported by this build of lait (it has no Jev decision API " +
      "client); use a 'prompt' step with an 'output_schema' instead"
  ],
  [
    "unknown-field.yml",
    3,
    () => "steps[0]: unknown field 'modle'; 'jq' steps accept: jq, id, when, input, output, retry, timeout, on_error"
  ],
  [
    "stop-with-retry.yml",
    3,
    () => "steps[0]: unknown field 'retry'; 'stop' steps accept: stop, id, when, input, output"
  ],
  ["step-field-type.yml", 3, () => "steps[0]: invalid 'when': expected a string, got a number"],
  ["invalid-step-id.yml", 2, () => `steps[0] (id '1st'): invalid step id "1st": ${NAME_RULE}`],
  [
    "duplicate-id.yml",
    6,
    () => "step id 'same' is used more than once; ids must be unique within a workflow file"
  ],
  ["invalid-input-name.yml", 2, () => `invalid input "my topic": ${NAME_RULE}`],
  ["invalid-schema-name.yml", 2, () => `invalid schema "bad.name": ${NAME_RULE}`],
  ["invalid-agent-name.yml", 2, () => `invalid agent "-x": ${NAME_RULE}`],
  ["invalid-branch-name.yml", 4, () => `steps[0]: invalid branch name "not ok": ${NAME_RULE}`],
  ["run-without-program.yml", 2, () => "steps[0]: 'run' must start with the program to execute"],
  ["run-not-a-list.yml", 2, () => "steps[0]: invalid 'run': expected a list of strings, got a string"],
  [
    "run-env-not-a-string.yml",
    4,
    () => "steps[0]: invalid 'env': the value of 'PORT' must be a string, got a number"
  ],
  ["run-empty-cwd.yml", 3, () => "steps[0]: 'cwd' must not be empty"],
  ["ask-empty-question.yml", 2, () => "steps[0]: 'ask' needs a non-empty question"],
  ["ask-empty-choices.yml", 3, () => "steps[0]: 'choices' must be a non-empty list of non-empty strings"],
  ["ask-default-not-a-choice.yml", 4, () => `steps[0]: 'default' ("maybe") must be one of 'choices'`],
  ["write-empty-path.yml", 2, () => "steps[0]: 'write' needs a path"],
  ["workflow-empty.yml", 2, () => "steps[0]: 'workflow' must not be empty"],
  ["agent-empty.yml", 2, () => "steps[0]: 'agent' must not be empty"],
  ["group-empty.yml", 3, () => "steps[0] (id 'g').group: must contain at least one step"],
  ["on-error-not-a-list.yml", 3, () => "steps[0].on_error: expected a list of steps, got a mapping"],
  ["switch-not-a-list.yml", 2, () => "steps[0]: 'switch' must be a list of cases"],
  ["switch-empty.yml", 2, () => "steps[0]: 'switch' must contain at least one case"],
  ["switch-case-without-steps.yml", 3, () => "steps[0].switch[0]: a case requires 'steps'"],
  [
    "switch-case-unknown-field.yml",
    5,
    () => "steps[0].switch[0]: unknown field 'otherwise'; switch cases accept: when, steps"
  ],
  ["parallel-not-a-mapping.yml", 2, () => "steps[0]: 'parallel' must map branch names to step lists"],
  ["parallel-empty.yml", 2, () => "steps[0]: 'parallel' must contain at least one branch"],
  ["for-each-without-steps.yml", 2, () => "steps[0]: a 'for_each' step requires 'steps'"],
  ["for-each-zero-concurrency.yml", 3, () => "steps[0]: 'max_concurrency' must be at least 1"],
  ["while-without-max-iterations.yml", 2, () => "steps[0]: a 'while' step requires 'max_iterations'"],
  ["until-zero-iterations.yml", 3, () => "steps[0]: 'max_iterations' must be at least 1"],
  ["stop-false.yml", 2, () => "steps[0]: 'stop' only accepts 'true'"],
  ["break-not-boolean.yml", 4, () => "steps[0].steps[0]: invalid 'break': expected a boolean, got a string"],
  ["retry-zero-attempts.yml", 3, () => "steps[0]: 'retry': 'max_attempts' must be at least 1"],
  ["retry-negative-backoff.yml", 3, () => "steps[0]: 'retry': 'backoff' must be a finite, non-negative number"],
  [
    "retry-unknown-field.yml",
    5,
    () => "steps[0]: 'retry': unknown field 'jitter'; retry policies accept: max_attempts, delay_seconds, backoff"
  ],
  ["retry-without-max-attempts.yml", 3, () => "steps[0]: 'retry': a retry policy requires 'max_attempts'"],
  ["step-timeout-zero.yml", 3, () => "steps[0]: 'timeout': must be at least 1 second"],
  ["workflow-timeout-zero.yml", 1, () => "'timeout': must be at least 1 second"],
  ["default-timeout-zero.yml", 2, () => "'default.timeout': must be at least 1 second"],
  ["default-retry-zero-attempts.yml", 2, () => "'default.retry': 'max_attempts' must be at least 1"],
  [
    "default-unknown-field.yml",
    3,
    () =>
      "default: unknown field 'cache'; 'default' blocks accept: model, reasoning_effort, temperature, top_p, " +
      "max_tokens, system, mcp, max_tool_rounds, skills, subagents, tools, retry, timeout"
  ],
  ["temperature-out-of-range.yml", 3, () => "steps[0] has 'temperature: 2.5'; it must be between 0.0 and 2.0"],
  [
    "default-top-p-out-of-range.yml",
    2,
    () => "the workflow's 'default' has 'top_p: 1.5'; it must be between 0.0 and 1.0"
  ],
  [
    "agent-max-tokens-zero.yml",
    4,
    () => "agents.writer: the agent definition has 'max_tokens: 0'; it must be at least 1"
  ],
  ["max-tool-rounds-zero.yml", 3, () => "steps[0] has 'max_tool_rounds: 0'; it must be at least 1"],
  [
    "reasoning-effort-unknown.yml",
    3,
    () =>
      `steps[0]: invalid 'reasoning_effort': expected one of none, minimal, low, medium, high, xhigh, got "extreme"`
  ],
  ["schema-name-without-output-schema.yml", 3, () => "steps[0]: 'schema_name' requires 'output_schema'"],
  [
    "schema-name-invalid.yml",
    4,
    () => `steps[0]: JSON schema name must contain only ASCII letters, digits, underscores, or hyphens: "my answer"`
  ],
  [
    "output-schema-undefined-name.yml",
    6,
    () => "steps[0] (id 'ask_model'): 'output_schema' refers to schema 'persn', which is not defined in 'schemas:'"
  ],
  [
    "input-schema-undefined-name.yml",
    1,
    () => "the workflow: 'input_schema' refers to schema 'request', which is not defined in 'schemas:'"
  ],
  [
    "schema-inline-invalid.yml",
    4,
    () =>
      renderChain(validateSchemaDocument({ type: 5 }, "steps[0]: 'output_schema'"))
  ],
  [
    "schema-file-missing.yml",
    4,
    () =>
      `steps[0]: 'output_schema': failed to read JSON schema file '${abs("schemas/missing.json")}': ` +
      "no such file or directory"
  ],
  [
    "schema-file-not-json.yml",
    3,
    () => {
      let parseError = ""
      try {
        JSON.parse(fs.readFileSync(abs("schemas/not-json.txt"), "utf8"))
      } catch (e) {
        parseError = (e as Error).message
      }
      return `schemas.broken: failed to parse JSON schema file '${abs("schemas/not-json.txt")}': ${parseError}`
    }
  ],
  [
    "schema-file-not-object.yml",
    2,
    () => `the workflow: 'input_schema': JSON schema file '${abs("schemas/list.json")}' must contain a JSON object`
  ],
  ["inline-agent-without-system.yml", 2, () => "agents.writer: an inline agent requires 'system'"],
  [
    "input-default-mismatch.yml",
    2,
    () =>
      renderChain(validateJson({ type: "integer", default: "many" }, "many", "inputs.count.default"))
  ],
  ["input-not-a-schema.yml", 2, () => "inputs.tags: expected a JSON Schema mapping or a type name such as 'string'"],
  ["models-unknown-field.yml", 5, () => "models.fast[0]: unknown field 'temprature'"],
  ["jq-syntax-when.yml", 3, () => `steps[0]: 'when': ${jqProblem(". ==")}`],
  ["jq-syntax-output.yml", 1, () => `'output': ${jqProblem("{a:")}`],
  ["template-syntax-prompt.yml", 2, () => `steps[0]: 'prompt': ${templateProblem("Hello {{#if input}}")}`],
  ["template-syntax-default-system.yml", 2, () => `'default.system': ${templateProblem("{{#each}}")}`],
  [
    "break-outside-loop.yml",
    3,
    () =>
      "'break' (break) must be inside a 'for_each'/'while'/'until' body " +
      "(and cannot cross a 'parallel' branch or a concurrent 'for_each')"
  ],
  [
    "break-across-parallel.yml",
    7,
    () =>
      "'break' (leave) must be inside a 'for_each'/'while'/'until' body " +
      "(and cannot cross a 'parallel' branch or a concurrent 'for_each')"
  ],
  [
    "stop-in-concurrent-for-each.yml",
    5,
    () => "'stop' (stop) cannot be used inside a 'parallel' branch or a concurrent 'for_each' body"
  ],
  [
    "ask-in-parallel.yml",
    4,
    () =>
      "'ask' (question) cannot run inside a 'parallel' branch or a concurrent 'for_each' body, " +
      "where several prompts would compete for stdin"
  ],
  [
    "fixed-write-in-concurrent-for-each.yml",
    5,
    () =>
      "'write' (save) with a fixed path cannot run inside a concurrent 'for_each'; include a placeholder such as " +
      "'{{ loop.index }}' in the path or move the write after the loop"
  ]
]

describe("static errors (one fixture each)", () => {
  test("every fixture in test/fixtures/workflows/invalid is covered by the table", () => {
    const files = fs.readdirSync(invalidDir).filter((f) => f.endsWith(".yml")).sort()
    expect(files).toEqual(invalid.map(([file]) => file).sort())
  })

  for (const [file, line, message] of invalid) {
    test(file, async () => {
      const fixture = path.join(invalidDir, file)
      const error = await failure(loadWorkflow(fixture))
      // The line is shown after the path unless the YAML parser's message already names it (`at line L,
      // column C`); a jq or template message's own `line 1` is about the expression, not the file.
      const at = line !== undefined && !/\bat line \d+, column \d+/.test(message()) ? ` (line ${line})` : ""
      expect(renderChain(error)).toBe(`failed to load workflow '${fixture}'${at}: ${message()}`)
      expect(error).toBeInstanceOf(WorkflowLoadError)
      expect(exitCodeOf(error)).toBe(3)
      expect(errorClassOf(error as WorkflowLoadError)).toBe("ValidationError")
      const e = error as WorkflowLoadError
      // The cause is the loader's own WorkflowLoadError: a static check, or YAML that does not parse.
      expect(exitCodeOf(e.cause)).toBe(3)
      expect(e.file).toBe(fixture)
      expect(e.line).toBe(line)
      expect((e.cause as { readonly line?: number }).line).toBe(line)
    })
  }
})

describe("reading the file", () => {
  test("a missing workflow file is a read error (exit 1), not a validation error", async () => {
    const missing = path.join(validDir, "does-not-exist.yml")
    const error = await failure(loadWorkflow(missing))
    expect(renderChain(error)).toBe(
      `failed to load workflow '${missing}': failed to read '${missing}': no such file or directory`
    )
    expect(exitCodeOf(error)).toBe(1)
  })

  test("the 16 MiB read cap applies to workflows and to the schema files they reference", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "lait-load-"))
    try {
      const big = path.join(dir, "big.yml")
      fs.writeFileSync(big, `steps:\n  - jq: .\n#${"x".repeat(READ_LIMIT)}\n`)
      const error = await failure(loadWorkflow(big))
      expect(renderChain(error)).toBe(
        `failed to load workflow '${big}': failed to read '${big}': ` +
          `file contents exceed the configured read limit of ${READ_LIMIT} bytes`
      )

      const schema = path.join(dir, "huge.json")
      fs.writeFileSync(schema, `{"type": "object", "description": "${"x".repeat(READ_LIMIT)}"}`)
      const wf = path.join(dir, "wf.yml")
      fs.writeFileSync(wf, "schemas:\n  huge: {file: huge.json}\nsteps:\n  - jq: .\n")
      const schemaError = await failure(loadWorkflow(wf))
      expect(renderChain(schemaError)).toBe(
        `failed to load workflow '${wf}' (line 2): schemas.huge: failed to read JSON schema file '${schema}': ` +
          `file contents exceed the configured read limit of ${READ_LIMIT} bytes`
      )
      expect(exitCodeOf(schemaError)).toBe(3)
      expect((schemaError as WorkflowLoadError).line).toBe(2)
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })

  test("a file of exactly 16 MiB is accepted", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "lait-load-"))
    try {
      const file = path.join(dir, "exact.yml")
      const head = "steps:\n  - jq: .\n#"
      fs.writeFileSync(file, `${head}${"x".repeat(READ_LIMIT - head.length - 1)}\n`)
      expect(fs.statSync(file).size).toBe(READ_LIMIT)
      const workflow = await load(file)
      expect(workflow.steps).toHaveLength(1)
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })
})

const kindOf = <T extends StepKind["type"]>(step: Step | undefined, type: T): StepKind & { type: T } => {
  expect(step?.kind.type).toBe(type)
  return step?.kind as StepKind & { type: T }
}

describe("a valid workflow with every step kind", async () => {
  const file = path.join(validDir, "every-kind.yml")
  const wf = await load(file)
  const byId = (id: string) => wf.steps.find((s) => s.id === id)

  test("top-level fields", () => {
    expect(wf.path).toBe(file)
    expect(wf.dir).toBe(validDir)
    expect(wf.name).toBe("every-kind")
    expect(wf.description).toBe("one step of every kind")
    expect(wf.output).toBe("{last: ., topic: $inputs.topic}")
    expect(wf.timeout).toBe(600)
    expect(wf.inputSchema).toEqual({ name: "request", source: { kind: "inline", schema: { type: "string" } } })
  })

  test("inputs: shorthand type, null and a schema with a default, in declaration order", () => {
    expect(wf.inputs).toEqual([
      { name: "topic", schema: { type: "string" } },
      { name: "notes", schema: {} },
      {
        name: "count",
        schema: { type: "integer", default: 3, description: "how many items" },
        default: 3,
        description: "how many items"
      }
    ])
  })

  test("default:, models: (values left unexpanded), schemas: and inline agents", () => {
    expect(wf.defaults).toEqual({
      model: "fast",
      temperature: 0.2,
      system: "You help with {{inputs.topic}}.",
      retry: { maxAttempts: 3, delaySeconds: 1, backoff: 2 },
      timeout: 60
    })
    expect(wf.models).toEqual({
      fast: [{ provider: { base_url: "http://localhost:8080/v1", api_key: "${LOCAL_KEY}" }, model_id: "small-model" }]
    })
    expect(wf.schemas["from_file"]).toEqual({ kind: "file", path: path.join(validDir, "schemas/answer.json") })
    expect(wf.schemas["person"]?.kind).toBe("inline")
    expect(wf.agents["critic"]).toEqual({
      description: "reviews drafts",
      model: "fast",
      outputSchema: { name: "person", source: wf.schemas["person"]! },
      system: "Review {{input}} about {{inputs.topic}}.",
      dir: validDir
    })
  })

  test("prompt steps keep their settings, attachments and schema references", () => {
    const draft = byId("draft")!
    expect(draft.retry).toEqual({ maxAttempts: 2, delaySeconds: 0, backoff: 1 })
    expect(draft.timeout).toBe(30)
    expect(draft.onError?.[0]?.at).toBe("steps[0] (id 'draft').on_error[0]")
    const prompt = kindOf(draft, "prompt")
    expect(prompt.system).toBe("Be brief.")
    expect(prompt.llm).toEqual({ temperature: 0.7 })
    expect(prompt.files).toEqual(["notes/{{inputs.topic}}.md"])
    expect(prompt.images).toEqual([])
    expect(prompt.outputSchema?.name).toBe("person")

    const finished = kindOf(byId("finished"), "prompt")
    expect(finished.inputSchema).toEqual({ source: { kind: "inline", schema: { type: "object" } } })
    expect(finished.outputSchema).toEqual({
      source: { kind: "file", path: path.join(validDir, "schemas/answer.json") }
    })
    expect(finished.schemaName).toBe("final_answer")
  })

  test("agent references: inline name, .md path relative to the file, registry name", () => {
    const review = kindOf(byId("review"), "agent")
    expect(review.agent).toEqual({ kind: "inline", name: "critic", definition: wf.agents["critic"]! })
    const polish = kindOf(byId("polish"), "agent")
    expect(polish.agent).toEqual({ kind: "path", path: path.join(validDir, "agents/polisher.md") })
    expect(polish.llm).toEqual({ max_tool_rounds: 4 })
    expect(kindOf(wf.steps[3], "agent").agent).toEqual({ kind: "registry", name: "registered-helper" })
  })

  test("run keeps argv, env and cwd unexpanded", () => {
    expect(kindOf(byId("shell"), "run")).toEqual({
      type: "run",
      argv: ["printf", "%s", "{{input}}"],
      env: { LANG: "C", HOME: "${HOME}" },
      cwd: "/tmp"
    })
  })

  test("workflow references: a .yml path relative to the file, else a registry name", () => {
    expect(kindOf(byId("child"), "workflow")).toEqual({
      type: "workflow",
      workflow: { kind: "path", path: path.join(validDir, "child.yml"), written: "child.yml" },
      with: "{topic: $inputs.topic}"
    })
    expect(kindOf(wf.steps[6], "workflow")).toEqual({ type: "workflow", workflow: { kind: "registry", name: "summarize" } })
  })

  test("jq, ask and write", () => {
    const shape = byId("shape")!
    expect([shape.when, shape.input, shape.output]).toEqual([". != null", ".", ".text"])
    expect(kindOf(shape, "jq").filter).toBe("{text: .}")
    expect(kindOf(byId("confirm"), "ask")).toEqual({
      type: "ask",
      prompt: "Keep {{input}}?",
      choices: ["yes", "no"],
      default: "yes",
      multiline: false
    })
    expect(kindOf(wf.steps[9], "write").path).toBe("out/{{inputs.topic}}.txt")
  })

  test("control steps and their bodies", () => {
    expect(kindOf(byId("block"), "group").steps).toHaveLength(1)
    const route = kindOf(byId("route"), "switch")
    expect(route.cases.map((c) => c.when)).toEqual(['. == "a"', '. == "b"'])
    expect(kindOf(route.cases[1]?.steps[0], "stop")).toEqual({ type: "stop" })
    expect(route.else?.[0]?.at).toBe("steps[11] (id 'route').else[0]")
    const fan = kindOf(byId("fan"), "parallel")
    expect(fan.branches.map((b) => b.name)).toEqual(["left", "right_side"])
    expect(fan.branches[1]?.steps[0]?.at).toBe("steps[12] (id 'fan').parallel.right_side[0]")
    const each = kindOf(byId("each"), "for_each")
    expect([each.items, each.maxConcurrency]).toEqual(["[1, 2, 3]", 2])
    const again = kindOf(byId("again"), "while")
    expect([again.condition, again.maxIterations]).toEqual([". < 3", 5])
    expect(again.steps[1]?.when).toBe(". > 2")
    expect(kindOf(again.steps[1], "break")).toEqual({ type: "break" })
    const until = kindOf(byId("until_done"), "until")
    expect([until.condition, until.maxIterations]).toEqual([". >= 3", 4])
    expect(kindOf(wf.steps.at(-1), "stop")).toEqual({ type: "stop" })
  })

  test("the for_each default concurrency is 1", async () => {
    const parsed = await run(parseWorkflowText("steps:\n  - for_each: .\n    steps: [{jq: .}]\n", "/virtual/wf.yml"))
    if (Exit.isFailure(parsed)) throw new Error(String(parsed.cause))
    expect(kindOf(parsed.value.steps[0], "for_each").maxConcurrency).toBe(1)
  })
})

describe("locators and lines", async () => {
  const wf = await load(path.join(validDir, "locators.yml"))
  const all: Array<Step> = []
  const walk = (steps: ReadonlyArray<Step>) => {
    for (const step of steps) {
      all.push(step)
      walk(step.onError ?? [])
      const k = step.kind
      if (k.type === "group") walk(k.steps)
      if (k.type === "switch") for (const c of k.cases) walk(c.steps)
      if (k.type === "parallel") for (const b of k.branches) walk(b.steps)
    }
  }
  walk(wf.steps)

  test("every step knows where it is", () => {
    expect(all.map((s) => [s.at, s.line])).toEqual([
      ["steps[0]", 2],
      ["steps[0].on_error[0]", 4],
      ["steps[0].on_error[1]", 5],
      ["steps[0].on_error[1].switch[0].steps[0]", 8],
      ["steps[0].on_error[1].switch[0].steps[1]", 9],
      ["steps[0].on_error[1].switch[0].steps[2] (id 'x')", 10],
      ["steps[1]", 12],
      ["steps[1].parallel.a[0]", 14],
      ["steps[1].parallel.b[0] (id 'deep')", 16],
      ["steps[1].parallel.b[0] (id 'deep').group[0]", 18]
    ])
  })

  test("errors deep in the tree use the same locators", async () => {
    const text = fs.readFileSync(path.join(validDir, "locators.yml"), "utf8").replace("id: x\n", "id: x\n                bogus: 1\n")
    const error = await failure(parseWorkflowText(text, "/virtual/locators.yml"))
    expect(renderChain(error)).toBe(
      "failed to load workflow '/virtual/locators.yml' (line 11): steps[0].on_error[1].switch[0].steps[2] (id 'x'): " +
        "unknown field 'bogus'; 'jq' steps accept: jq, id, when, input, output, retry, timeout, on_error"
    )
    expect((error as WorkflowLoadError).line).toBe(11)
  })

  test("aliases resolve to their anchors, located where they are used", async () => {
    const text = "steps:\n  - &twice {jq: \". * 2\"}\n  - *twice\n"
    const parsed = await run(parseWorkflowText(text, "/virtual/alias.yml"))
    if (Exit.isFailure(parsed)) throw new Error(String(parsed.cause))
    expect(parsed.value.steps.map((s) => [s.at, s.line, s.kind])).toEqual([
      ["steps[0]", 2, { type: "jq", filter: ". * 2" }],
      ["steps[1]", 3, { type: "jq", filter: ". * 2" }]
    ])
  })
})

describe("parseWorkflowText", () => {
  test("aliases that expand exponentially are refused instead of exhausting memory", async () => {
    const ten = (alias: string) => `[${Array.from({ length: 10 }, () => `{group: *${alias}}`).join(", ")}]`
    const text = [
      "steps:",
      `  - group: &l1 [${Array.from({ length: 10 }, () => "{jq: .}").join(", ")}]`,
      ...[2, 3, 4, 5, 6].map((n) => `  - group: &l${n} ${ten(`l${n - 1}`)}`)
    ].join("\n")
    const error = await failure(parseWorkflowText(`${text}\n`, "/virtual/bomb.yml"))
    expect(renderChain(error)).toBe(
      "failed to load workflow '/virtual/bomb.yml' (line 3): Excessive alias count indicates a resource exhaustion attack"
    )
    expect(exitCodeOf(error)).toBe(3)
  }, 60_000)

  test("resolves {file:} schemas against the directory of the given path and checks them", async () => {
    const text = "schemas:\n  answer: {file: schemas/answer.json}\nsteps:\n  - jq: .\n"
    const parsed = await run(parseWorkflowText(text, path.join(validDir, "virtual.yml")))
    if (Exit.isFailure(parsed)) throw new Error(String(parsed.cause))
    expect(parsed.value.schemas).toEqual({ answer: { kind: "file", path: path.join(validDir, "schemas/answer.json") } })
    const missing = await failure(parseWorkflowText(text, "/nowhere/virtual.yml"))
    expect(renderChain(missing)).toBe(
      "failed to load workflow '/nowhere/virtual.yml' (line 2): schemas.answer: failed to read JSON schema file " +
        "'/nowhere/schemas/answer.json': no such file or directory"
    )
  })

  test("an input default is checked against its own schema, a valid one passes", async () => {
    const ok = await run(parseWorkflowText(
      "inputs:\n  n: {type: integer, minimum: 1, default: 2}\nsteps:\n  - jq: .\n",
      "/virtual/wf.yml"
    ))
    expect(Exit.isSuccess(ok)).toBe(true)
    const error = await failure(parseWorkflowText(
      "inputs:\n  n: {type: integer, minimum: 1, default: 0}\nsteps:\n  - jq: .\n",
      "/virtual/wf.yml"
    ))
    expect(renderChain(error)).toBe(
      `failed to load workflow '/virtual/wf.yml' (line 2): ${
        renderChain(validateJson({ type: "integer", minimum: 1, default: 0 }, 0, "inputs.n.default"))
      }`
    )
  })

  test("placement: break may reach its loop through switch, group and on_error", async () => {
    const text = `steps:
  - for_each: .
    steps:
      - group:
          - switch:
              - when: .
                steps:
                  - jq: .
                    on_error:
                      - break: true
`
    const parsed = await run(parseWorkflowText(text, "/virtual/wf.yml"))
    expect(Exit.isSuccess(parsed)).toBe(true)
  })

  test("placement: a concurrent for_each inside a parallel branch still rejects a fixed-path write", async () => {
    const text = `steps:
  - parallel:
      a:
        - for_each: .
          max_concurrency: 2
          steps:
            - write: fixed.txt
`
    const error = await failure(parseWorkflowText(text, "/virtual/wf.yml"))
    expect(renderChain(error)).toContain("'write' (write) with a fixed path cannot run inside a concurrent 'for_each'")
  })
})

describe("the same workflow loaded again (lait test, lait eval)", () => {
  test("is parsed once: the same text at the same path gives the same workflow; changed text, a new one", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "lait-load-cache-"))
    try {
      const file = path.join(dir, "wf.yml")
      fs.writeFileSync(file, "steps:\n  - jq: '. + 1'\n")
      const first = await load(file)
      expect(await load(file)).toBe(first)
      fs.writeFileSync(file, "steps:\n  - jq: '. + 2'\n")
      const changed = await load(file)
      expect(changed).not.toBe(first)
      expect(JSON.stringify(changed)).toContain(". + 2")
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })

  test("still reads its {file:} schemas every time: a schema file removed since fails the load", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "lait-load-cache-"))
    try {
      const file = path.join(dir, "wf.yml")
      fs.writeFileSync(path.join(dir, "in.json"), JSON.stringify({ type: "object" }))
      fs.writeFileSync(file, "input_schema: { file: in.json }\nsteps:\n  - jq: '.'\n")
      await load(file)
      fs.rmSync(path.join(dir, "in.json"))
      expect(renderChain(await failure(loadWorkflow(file)))).toContain("in.json")
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })
})
