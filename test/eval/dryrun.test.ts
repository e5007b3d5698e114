import { afterEach, describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Effect, Layer } from "effect"
import { FileLoader } from "../../src/platform/FileLoader.ts"
import { LaitConfig } from "../../src/config/LaitConfig.ts"
import type { ConfigFile } from "../../src/config/schema.ts"
import { estimateTokens, formatDryRun, planEval } from "../../src/eval/dryrun.ts"
import { llmJudgePrompt } from "../../src/eval/judge.ts"
import { loadEvalSchema, parseEvalDefinition } from "../../src/eval/schema.ts"
import { loadTarget } from "../../src/eval/target.ts"

// The parsers are synchronous once the schema decoders are loaded, as the commands do first.
await Effect.runPromise(loadEvalSchema)

let dir: string | undefined
afterEach(() => {
  if (dir !== undefined) fs.rmSync(dir, { recursive: true, force: true })
  dir = undefined
})

const priced = { input_per_1m: 1000, output_per_1m: 0 }
const config: ConfigFile = {
  models: {
    m: [{ provider: { base_url: "http://127.0.0.1:9/v1" }, model_id: "mm", pricing: priced }],
    free: [{ provider: { base_url: "http://127.0.0.1:9/v1" }, model_id: "ff" }]
  }
}

const plan = (evalYaml: string, repeat: number, files: Readonly<Record<string, string>> = {}) => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "lait-eval-dry-"))
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text)
  const file = path.join(dir, "e.yml")
  const definition = parseEvalDefinition(evalYaml, file)
  if (definition instanceof Error) throw definition
  return Effect.runPromise(
    Effect.gen(function*() {
      const target = yield* loadTarget(definition.targets[0]!, file)
      return yield* planEval(target, definition.cases, repeat)
    }).pipe(Effect.provide(Layer.mergeAll(LaitConfig.layerTest(config), FileLoader.layer)))
  )
}

describe("eval --dry-run", () => {
  test("model target: one request per run plus one per reachable llm_judge; cost from the rendered prompts", async () => {
    const p = await plan(
      [
        "target: { model: m, prompt: 'Answer: {{input}}' }",
        "cases:",
        "  - input: abcd",
        "    assert:",
        "      - { type: llm_judge, criteria: good }",
        "      - { type: step_output, id: x, assert: [{ type: llm_judge, criteria: nested, model: free }] }",
        "  - input: efghijkl",
        ""
      ].join("\n"),
      3
    )
    const judgeTokens = estimateTokens(llmJudgePrompt("good", "abcd", ""))
    expect(p).toEqual({
      runs: 6,
      targetRequests: 6,
      judgeRequests: 6,
      exact: true,
      costUsd: expect.closeTo(3 * (estimateTokens("Answer: abcd") + estimateTokens("Answer: efghijkl") + judgeTokens) * 1e-3, 12),
      unpricedRequests: 3
    })
    expect(formatDryRun(p, 2, 3)).toBe([
      "dry run: nothing is sent",
      "runs: 2 case(s) x 3 repeat(s) = 6",
      "requests: 12 = 6 to the target + 6 llm_judge",
      `estimated cost: $${p.costUsd!.toFixed(4)} for prompt tokens (about 4 characters per token; completion tokens are not included); 3 request(s) go to models without 'pricing:'`
    ].join("\n"))
  })

  test("workflow target: its model steps per run, approximate when control flow can change the count", async () => {
    const p = await plan(
      "target: { workflow: wf.yml }\ncases:\n  - input: hello\n    assert: [{ type: llm_judge, criteria: c }]\n",
      2,
      {
        "wf.yml": [
          "default: { model: free }",
          "steps:",
          "  - prompt: 'one {{input}}'",
          "  - switch:",
          "      - when: 'true'",
          "        steps:",
          "          - prompt: 'two'",
          "            model: m",
          ""
        ].join("\n")
      }
    )
    expect(p).toMatchObject({ runs: 2, targetRequests: 4, judgeRequests: 2, exact: false, unpricedRequests: 4 })
    expect(p.costUsd).toBeCloseTo(2 * estimateTokens("twohello") * 1e-3, 12)
    expect(formatDryRun(p, 1, 2)).toContain("requests: about 6 = 4 to the target + 2 llm_judge\nnote: ")
  })

  test("no pricing anywhere; a judge without any model makes no request", async () => {
    const p = await plan(
      "target: { workflow: wf.yml }\ncases:\n  - input: x\n    assert: [{ type: llm_judge, criteria: c }]\n",
      1,
      { "wf.yml": "steps:\n  - jq: '.'\n" }
    )
    expect(p).toEqual({ runs: 1, targetRequests: 0, judgeRequests: 0, exact: true, costUsd: undefined, unpricedRequests: 0 })
    expect(formatDryRun(p, 1, 1).split("\n").at(-1)).toBe("estimated cost: unknown (no model involved has 'pricing:')")
  })
})
