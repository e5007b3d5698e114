// Which program a command line gets once src/cli/fastPath.ts has not answered it: a plain
// `lait run FILE [PROMPT] [FLAGS]` or `lait eval FILE [FLAGS]` skips effect/cli's command tree
// (src/cli/leanArgs.ts reads it with the flags generated from the tree; src/cli/leanRun.ts,
// leanEval.ts); any other goes to the command tree (src/cli/app.ts). Each is loaded with `import()`,
// so that a command line evaluates only its own path. Shared by src/main.ts and the tests' in-process
// runner (src/cli/inProcess.ts).
import { leanArgs } from "./leanArgs.ts"
import type { CommandLineProgram } from "./outcome.ts"

export const commandLineProgram = async (
  args: ReadonlyArray<string>,
  env: Readonly<Record<string, string | undefined>>
): Promise<CommandLineProgram> => {
  const lean = leanArgs(args, env)
  if (lean?.command === "run") return (await import("./leanRun.ts")).leanRun(lean)
  if (lean?.command === "eval") return (await import("./leanEval.ts")).leanEval(lean)
  return (await import("./app.ts")).cliProgram(args)
}
