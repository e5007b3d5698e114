// `lait run FILE [PROMPT]`: its arguments and flags; what it does is src/cli/runWorkflow.ts.
import { Argument, Command, Flag } from "effect/cli"
import { switchFlag } from "./flags/make.ts"
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
    input: Flag.String("input").pipe(
      Flag.withMetavar("KEY=VALUE"),
      Flag.withDescription("Bind a declared input (repeatable; a later value for the same key wins)"),
      Flag.atLeast(0)
    ),
    ...runFlags,
    dryRun: switchFlag("dry-run", "Print the execution plan and exit; nothing is run"),
    traceSpans: traceSpansFlag(
      "Also write the run and its steps as spans around them (a tree; overrides default.trace_spans)"
    ),
    checkpoint: Flag.Boolean("checkpoint").pipe(
      Flag.withDescription(
        "Save progress to .lait/runs/<run-id>.json after each top-level step; a failed run says how to --resume it"
      ),
      Flag.withDefault(false)
    ),
    resume: Flag.String("resume").pipe(
      Flag.withMetavar("RUN_ID"),
      Flag.withDescription(
        "Continue checkpointed run RUN_ID after its last completed top-level step " +
          "(implies --checkpoint; PROMPT is ignored)"
      ),
      Flag.optional
    )
  },
  runWorkflow
).pipe(
  Command.withDescription("Run a workflow file (version 2)"),
  withRunServices
)
