// `lait lint` of an `exec:` target (docs/apps.md#exec-targets): whether its program can be found where
// the run will look for it — a path relative to the directory the app runs in, a bare name on PATH.
// A warning, not an error: the machine that runs the tests (CI) may have what this one lacks.
import * as fs from "node:fs"
import * as nodePath from "node:path"

const runnable = (file: string): boolean => {
  try {
    fs.accessSync(file, fs.constants.X_OK)
    return fs.statSync(file).isFile()
  } catch {
    return false
  }
}

/** Why `program` would not start when run in `cwd` with `pathVariable`, or undefined when it would. */
export const missingProgram = (program: string, cwd: string, pathVariable: string | undefined): string | undefined => {
  if (program.includes("/")) {
    const file = nodePath.resolve(cwd, program)
    return runnable(file) ? undefined : `'${program}' is not an executable file where the app runs`
  }
  const dirs = (pathVariable ?? "").split(nodePath.delimiter).filter((dir) => dir !== "")
  return dirs.some((dir) => runnable(nodePath.join(dir, program))) ? undefined : `'${program}' is not found on PATH`
}
