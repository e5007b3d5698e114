// Workflow lint checks beyond one-file-per-check: nesting depth, registered children and agents,
// child findings attributed to the calling step, and what counts as a use.
import { describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as path from "node:path"
import { Effect } from "effect"
import { FileLoader } from "../../src/platform/FileLoader.ts"
import { MAX_WORKFLOW_DEPTH } from "../../src/lang/model.ts"
import { loadActiveConfig } from "../../src/lint/config.ts"
import { lintFile } from "../../src/lint/run.ts"
import { makeTempDir } from "../e2e/util.ts"

const lintIn = async (dir: string, file: string, config = true) => {
  const previous = process.cwd()
  process.chdir(dir)
  try {
    return await Effect.runPromise(
      Effect.gen(function*() {
        const active = yield* loadActiveConfig({
          configPath: config ? "lait.config.yml" : undefined,
          noConfig: !config,
          noEnv: true
        })
        const report = yield* lintFile(file, active)
        return report.issues.map((i) => [i.severity, i.line ?? null, i.message])
      }).pipe(Effect.provide(FileLoader.layer))
    )
  } finally {
    process.chdir(previous)
  }
}

const files = (entries: Record<string, string>) => {
  const dir = makeTempDir("lint-wf")
  for (const [name, text] of Object.entries(entries)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true })
    fs.writeFileSync(path.join(dir, name), text)
  }
  return dir
}

describe("child workflows", () => {
  test(`a chain deeper than ${MAX_WORKFLOW_DEPTH} files is an error at the first step`, async () => {
    const entries: Record<string, string> = { "lait.config.yml": "{}\n" }
    for (let i = 0; i <= MAX_WORKFLOW_DEPTH; i++) entries[`w${i}.yml`] = `steps:\n  - workflow: w${i + 1}.yml\n`
    entries[`w${MAX_WORKFLOW_DEPTH + 1}.yml`] = "steps:\n  - jq: .\n"
    const dir = files(entries)
    const issues = await lintIn(dir, "w0.yml")
    const prefix = Array.from({ length: MAX_WORKFLOW_DEPTH - 1 }, (_, i) => `in 'workflow: w${i + 1}.yml': `).join("")
    expect(issues).toEqual([
      [
        "error",
        2,
        `${prefix}step 1 (workflow) runs workflow 'w${MAX_WORKFLOW_DEPTH}.yml', which exceeds the maximum 'workflow:' nesting depth of ${MAX_WORKFLOW_DEPTH}`
      ]
    ])
  })

  test("a registered child is linted too; its findings point at the calling step, prefixed", async () => {
    const dir = files({
      "lait.config.yml": "workflows:\n  kid: ./kids/kid.yml\n",
      "kids/kid.yml": "schemas:\n  spare: {type: object}\nsteps:\n  - jq: $steps.ghost\n",
      "main.yml": "steps:\n  - jq: .\n  - id: call\n    workflow: kid\n"
    })
    expect(await lintIn(dir, "main.yml")).toEqual([
      ["warning", 4, "in 'workflow: kids/kid.yml': step 1 (jq)'s 'jq' references step 'ghost', but no step in this file has that 'id'"],
      ["warning", 4, "in 'workflow: kids/kid.yml': schema 'spare' is defined in 'schemas:' but never referenced"]
    ])
  })

  test("without a config, registry names are not looked up (and said so)", async () => {
    const dir = files({ "main.yml": "steps:\n  - workflow: kid\n  - agent: helper\n" })
    expect(await lintIn(dir, "main.yml", false)).toEqual([
      [
        "warning",
        2,
        "'mcp'/'skills'/'subagents'/'tools' names were not checked because no lait.config.yml was found (or --no-config was used)"
      ]
    ])
  })
})

describe("agents", () => {
  test("a registered agent file is loaded and checked; problems point at the agent: step", async () => {
    const dir = files({
      "lait.config.yml": "agents:\n  helper: ./agents/helper.md\n  broken: ./agents/broken.md\n",
      "agents/helper.md": "---\ntools: [nope]\ninput_schema: {type: objekt}\n---\nHelp with {{#each input}}\n",
      "agents/broken.md": "no frontmatter\n",
      "main.yml": "steps:\n  - agent: helper\n  - agent: broken\n"
    })
    expect(await lintIn(dir, "main.yml")).toEqual([
      [
        "error",
        2,
        `step 1 (agent)'s agent has an invalid system prompt template: failed to parse template: "Help with {{#each input}}": Parse error on line 1: Expecting 'COMMENT', 'CONTENT', 'OPEN_RAW_BLOCK', 'OPEN_BLOCK', 'OPEN_INVERSE', 'OPEN_INVERSE_CHAIN', 'INVERSE', 'OPEN_ENDBLOCK', 'OPEN', 'OPEN_UNESCAPED', 'OPEN_PARTIAL', 'OPEN_PARTIAL_BLOCK', got 'EOF'`
      ],
      [
        "error",
        2,
        "step 1 (agent)'s agent's 'input_schema': invalid JSON Schema: type must be JSONType or JSONType[]: objekt"
      ],
      ["error", 2, "step 1 (agent)'s agent references unknown tool 'nope'; define it under 'tools:' in lait.config.yml"],
      [
        "error",
        3,
        "step 2 (agent) uses agent 'agents/broken.md', which failed to load: failed to parse agent file 'agents/broken.md': agent file must start with a '---' frontmatter delimiter"
      ]
    ])
  })

  test("a schema named by an inline agent counts as used", async () => {
    const dir = files({
      "lait.config.yml": "{}\n",
      "main.yml":
        "schemas:\n  out: {type: object}\nagents:\n  a:\n    system: hi\n    output_schema: out\nsteps:\n  - agent: a\n"
    })
    expect(await lintIn(dir, "main.yml")).toEqual([])
  })
})
