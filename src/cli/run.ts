// `lait run FILE [PROMPT]`: its arguments and flags; what it does is src/cli/runWorkflow.ts.
import { Argument, Command } from "effect/cli"
import { repeatedFlag, switchFlag, valueFlag } from "./flags/make.ts"
import { traceSpansFlag } from "./flags/trace.ts"
import { runFlags, withRunServices } from "./runFlags.ts"
import { runWorkflow } from "./runWorkflow.ts"

export const runCommand = Command.make(
  "run",
  {
    file: Argument.String("file").pipe(
      Argument.withDescription("Workflow file (version 2), or a 'workflows:' name from lait.config.yml")
    ),
    prompt: Argument.String("prompt").pipe(
      Argument.withDescription("The initial value; '-' reads stdin (piped stdin is appended to PROMPT)"),
      Argument.optional
    ),
    input: repeatedFlag(
      "input",
      "KEY=VALUE",
      "Bind a declared input (repeatable; a later value for the same key wins)"
    ),
    ...runFlags,
    dryRun: switchFlag("dry-run", "Print the execution plan and exit; nothing is run"),
    traceSpans: traceSpansFlag(
      "Also write the run and its steps as spans around them (a tree; overrides default.trace_spans)"
    ),
    checkpoint: switchFlag(
      "checkpoint",
      "Save progress to .lait/runs/<run-id>.json after each top-level step; a failed run says how to --resume it"
    ),
    resume: valueFlag(
      "resume",
      "RUN_ID",
      "Continue checkpointed run RUN_ID after its last completed top-level step " +
        "(implies --checkpoint; PROMPT is ignored)"
    )
  },
  runWorkflow
).pipe(
  Command.withDescription("Run a workflow file (version 2)"),
  withRunServices
)
