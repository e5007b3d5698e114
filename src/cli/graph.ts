// `lait graph FILE [--format mermaid|dot]`: load and check a workflow, then print its control
// structure. The graph text already ends with a newline and is written as-is (nothing appended), so
// `lait graph wf.yml > wf.mmd` is byte-for-byte the rendered document.
import { Effect } from "effect"
import { Argument, Command } from "effect/cli"
import * as nodePath from "node:path"
import { formatFlag } from "./flags/output.ts"
import { writeStdout } from "./output.ts"

/** Paths in labels as the user would type them from here: relative to the current directory. */
const fromCwd = (absolute: string): string => {
  const relative = nodePath.relative(process.cwd(), absolute)
  return relative === "" || nodePath.isAbsolute(relative) ? absolute : relative
}

export const graphCommand = Command.make(
  "graph",
  {
    file: Argument.String("file").pipe(Argument.withDescription("Workflow file (version 2)")),
    format: formatFlag(["mermaid", "dot"], "Output format: a Mermaid flowchart or a Graphviz DOT digraph")
  },
  Effect.fn("cli.graph")(function*({ file, format }) {
    // Loaded on demand: other commands (and --version) never pay for YAML, jq or Ajv.
    const [{ loadWorkflow }, { renderGraph }] = yield* Effect.promise(() =>
      Promise.all([import("../lang/load.ts"), import("../lang/graph.ts")])
    )
    // Drawing never calls a model, so like lint it does not wait for a FIFO writer.
    const workflow = yield* loadWorkflow(file, { waitForWriter: false })
    yield* writeStdout(renderGraph(workflow, format, { displayPath: fromCwd }))
  })
).pipe(
  Command.withDescription("Print a workflow's control structure as a Mermaid flowchart or a DOT graph")
)
