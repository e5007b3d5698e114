// Paths as a run sees them: a workflow run (or a subagent's) may have a working directory of its own.
import * as nodePath from "node:path"

/** `path` as the run sees it: against its working directory when it has one of its own. */
export const resolveInRun = (cwd: string | undefined, path: string): string =>
  cwd === undefined ? path : nodePath.resolve(cwd, path)
