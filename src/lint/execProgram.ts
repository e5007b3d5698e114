// Whether a program lait would start can be found where the run will look for it
// (docs/apps.md#exec-targets, docs/testing.md#script): a path (it has a `/`) relative to the directory
// it runs in, a bare name on PATH. `lait lint` says so for an `exec:` target (a warning: the machine
// that runs the tests, CI, may have what this one lacks) and for a `script` assertion's command.
import { Effect } from "effect"
import * as nodePath from "node:path"
import { processEnv } from "../config/environment.ts"
import { FileLoader } from "../platform/FileLoader.ts"

/** An executable regular file (following links); any failure to look counts as not there. */
const runnable = (file: string) =>
  Effect.map(
    Effect.option(FileLoader.use((files) => files.stat(file))),
    (stat) => stat._tag === "Some" && stat.value.isFile() && (stat.value.mode & 0o111) !== 0
  )

/**
 * Why `program` would not start when run in `cwd` (a path that is no executable file there, a name
 * not on PATH), or undefined when it would.
 */
export const missingProgram = (program: string, cwd: string) =>
  Effect.gen(function*() {
    if (program.includes("/")) return (yield* runnable(nodePath.resolve(cwd, program))) ? undefined : "not-executable"
    for (const dir of (processEnv()["PATH"] ?? "").split(nodePath.delimiter)) {
      if (dir !== "" && (yield* runnable(nodePath.join(dir, program)))) return undefined
    }
    return "not-on-path"
  })
