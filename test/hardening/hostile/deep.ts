// Hostile-corpus cases for JSON nested deeper than lait reads (docs/cli.md#limits)
// and for checkpoints that do not say what their file name says (docs/checkpoints.md): each is one
// line and nothing runs or is written. Part of `cases` (./cases.ts).
import * as fs from "node:fs"
import * as path from "node:path"
import type { HostileCase, Workspace } from "./cases.ts"

const put = (ws: Workspace, rel: string, text: string) => {
  const full = path.join(ws.dir, rel)
  fs.mkdirSync(path.dirname(full), { recursive: true })
  fs.writeFileSync(full, text)
}

const nested = (levels: number) => "[".repeat(levels) + "]".repeat(levels)

/** `resume/wf.yml` (its second step would leave `ran`) and `.lait/runs/<name>.json` with `fields` over a valid checkpoint. */
const checkpoint = (name: string, fields: Readonly<Record<string, unknown>>, raw?: string) => (ws: Workspace) => {
  put(ws, "resume/wf.yml", "steps:\n  - jq: '.'\n  - run: [touch, ran]\n")
  const body = {
    format: 2,
    run_id: name,
    workflow_path: "wf.yml",
    initial_input: "x",
    inputs: {},
    top_level_labels: ["step-1", "step-2"],
    completed_index: 1,
    counter: 1,
    current_value: "x",
    steps_outputs: {},
    status: "failed",
    ...fields
  }
  const text = JSON.stringify(body)
  put(ws, `resume/.lait/runs/${name}.json`, raw === undefined ? text : text.replace('"@DEEP@"', raw))
}

export const deepCases: ReadonlyArray<HostileCase> = [
  {
    name: "eval merge: a shard whose case input nests 200,000 levels deep",
    args: ["eval", "merge", "shard.json"],
    setup: (ws) => put(ws, "shard.json", `[{"case":1,"input":${nested(200_000)},"k":1,"not_started":1,"runs":[]}]`),
    exit: 3,
    error: "lait: invalid eval report 'shard.json': nested deeper than 1000 levels (lait's limit for JSON it reads)"
  },
  {
    name: "eval: a JSONL case whose input nests 100,000 levels deep",
    args: ["eval", "deep/e.eval.yml"],
    setup: (ws) => {
      put(ws, "deep/wf.yml", "steps:\n  - jq: '1'\n")
      put(ws, "deep/e.eval.yml", "target:\n  workflow: ./wf.yml\ncases: {file: cases.jsonl}\n")
      put(ws, "deep/cases.jsonl", `{"input": "fine"}\n{"input": ${nested(100_000)}}\n`)
    },
    exit: 3,
    error: "lait: deep/cases.jsonl:2: nested deeper than 1000 levels (lait's limit for JSON it reads)"
  },
  {
    name: "run --resume: a checkpoint holding another run's id (a path) is refused before any step runs",
    args: ["run", "wf.yml", "--resume", "B"],
    cwd: "resume",
    setup: checkpoint("B", { run_id: "../../x" }),
    exit: 1,
    error: "lait: checkpoint file '.lait/runs/B.json' holds run \"../../x\", not 'B'; it cannot be resumed"
  },
  {
    name: "run --resume: completed_index past the recorded steps is refused before any step runs",
    args: ["run", "wf.yml", "--resume", "C"],
    cwd: "resume",
    setup: checkpoint("C", { completed_index: 5 }),
    exit: 1,
    error: "lait: failed to parse checkpoint file '.lait/runs/C.json': `completed_index` 5 is past the 2 top-level " +
      "step(s) recorded"
  },
  {
    name: "run --resume: a checkpoint value nested 100,000 levels deep is refused before any step runs",
    args: ["run", "wf.yml", "--resume", "D"],
    cwd: "resume",
    setup: checkpoint("D", { current_value: "@DEEP@" }, nested(100_000)),
    exit: 1,
    error: "lait: failed to parse checkpoint file '.lait/runs/D.json': a value is nested deeper than 1000 levels " +
      "(lait's limit for JSON it reads)"
  }
]
