// How a command lait runs (`runCommand`: a `run:` step's, a shell tool's) fails, as the process layer
// sees it. The workflow reports it as a StepError with the same reason (src/workflow/stepErrors.ts),
// a shell tool as its call's result text; neither lets a CommandFailure itself reach the user, so it
// has no row in core/errors.ts's table.
import { excerpt } from "../core/excerpt.ts"
import { ReasonError, type TaggedUnion } from "../core/reasonError.ts"

interface Reasons {
  /** A command could not be started (`spawn`) or waited for (`wait`); `detail` is the OS's reason. */
  CommandFailed: { program: string; stage: "spawn" | "wait"; detail: string }
  CommandOutputTooLarge: { stream: string; detail: string }
  /**
   * `status` as shown (`exit status: 2`); `stderr` is its tail (`[last N of M bytes of stderr; -v shows
   * all] ...` when cut, and -v logs the whole of it), shown on one line.
   */
  CommandExited: { program: string; status: string; stderr: string }
  CommandNotUtf8: { program: string }
}
export type CommandFailureReason = TaggedUnion<Reasons>

export const describeCommandFailure = (reason: CommandFailureReason): string => {
  switch (reason._tag) {
    case "CommandFailed":
      return reason.stage === "spawn"
        ? `failed to run command '${reason.program}'`
        : `failed to wait for command '${reason.program}'`
    case "CommandOutputTooLarge":
      return `failed to read ${reason.stream} from command`
    case "CommandExited":
      return `command '${reason.program}' exited with ${reason.status}: ${excerpt(reason.stderr, Infinity)}`
    case "CommandNotUtf8":
      return `command '${reason.program}' produced non-UTF-8 output on stdout; binary output is not supported`
  }
}

export class CommandFailure extends ReasonError("CommandFailure", { describe: describeCommandFailure }) {}
