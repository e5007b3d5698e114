// `lait lint PATH... [--format text|json|github]`: check workflow, test, eval, agent and config files
// without running anything (src/lint/). Results on stdout; the summary of a failed lint on stderr
// with exit 3. Synchronous in spirit: no model, no waiting on FIFOs.
import { Effect } from "effect"
import { Command } from "effect/cli"
import { pathsArgument } from "./flags/make.ts"
import { formatFlag } from "./flags/output.ts"
import { globalOptions } from "./global.ts"
import { printLine } from "./output.ts"

export const lintCommand = Command.make(
  "lint",
  {
    paths: pathsArgument("Files or directories (walked for .yml/.yaml and agent .md files)"),
    format: formatFlag(
      ["text", "json", "github"],
      "Output: text, json (an array of findings) or github (Actions workflow commands)"
    )
  },
  Effect.fn("cli.lint")(function*({ paths, format }) {
    const options = yield* globalOptions
    // Loaded on demand: YAML, jq, Ajv and Handlebars stay out of every other command's start-up.
    const { lintReport } = yield* Effect.promise(() => import("../lint/run.ts"))
    const { stdout, failure } = yield* lintReport(paths, format, options)
    if (stdout !== undefined) yield* printLine(stdout)
    if (failure !== undefined) return yield* failure
  })
).pipe(
  Command.withDescription("Check workflow, test, eval, agent and config files without running them")
)
