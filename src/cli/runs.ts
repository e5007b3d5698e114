// `lait runs list` and `lait runs show RUN_ID`: the checkpointed runs under `.lait/runs` in the
// current directory (`lait run --checkpoint`), in upstream's wording. A file there that is not a
// readable checkpoint is skipped with a warning instead of hiding every other run. What the files hold
// (ids, paths, values) is printed with its control characters escaped (core/terminalText.ts); `show`
// keeps newlines and tabs in the values.
import { Console, Effect } from "effect"
import { Argument, Command } from "effect/cli"
import { renderChain } from "../core/errors.ts"
import { textForm } from "../core/json.ts"
import { escapeControls } from "../core/terminalText.ts"
import { printLine } from "./output.ts"

const loadModule = Effect.promise(() => import("../workflow/checkpoint.ts"))

const list = Command.make("list", {}, () =>
  Effect.gen(function*() {
    const { listCheckpoints } = yield* loadModule
    const { checkpoints, skipped } = yield* listCheckpoints
    yield* Effect.forEach(skipped, (e) => Console.error(`warning: ${escapeControls(renderChain(e))} (skipped)`), {
      discard: true
    })
    if (checkpoints.length === 0) {
      return yield* printLine(
        "no checkpointed runs saved yet; start one with `lait run <FILE> <PROMPT> --checkpoint`"
      )
    }
    yield* printLine(
      checkpoints.map((c) =>
        escapeControls(
          `${c.run_id}  (${c.status}, step ${c.completed_index}/${c.top_level_labels.length}, ${c.workflow_path})`
        )
      ).join("\n")
    )
  })).pipe(Command.withDescription("List the checkpointed runs (oldest first): id, status, steps done, workflow"))

const show = Command.make(
  "show",
  { runId: Argument.String("run-id").pipe(Argument.withDescription("A run id from `lait runs list`")) },
  ({ runId }) =>
    Effect.gen(function*() {
      const { loadCheckpoint } = yield* loadModule
      const c = yield* loadCheckpoint(runId)
      const field = (text: string) => escapeControls(text)
      const value = (text: string) => escapeControls(text, { keepLines: true })
      const lines = [
        `run_id: ${field(c.run_id)}`,
        `workflow: ${field(c.workflow_path)}`,
        `status: ${c.status}`,
        `completed: ${c.completed_index}/${c.top_level_labels.length} top-level step(s)`,
        `initial input: ${value(textForm(c.initial_input))}`,
        `current value: ${value(textForm(c.current_value))}`
      ]
      if (Object.keys(c.inputs).length > 0) lines.push(`inputs: ${field(JSON.stringify(c.inputs))}`)
      yield* printLine(lines.join("\n"))
    })
).pipe(Command.withDescription("Show one checkpointed run: workflow, status, progress, initial input, current value"))

export const runsCommand = Command.make("runs").pipe(
  Command.withDescription("List and inspect runs saved by `lait run --checkpoint` (.lait/runs/)"),
  Command.withSubcommands([list, show])
)
