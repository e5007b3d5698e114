// What `lait test` and `lait eval` add for CI (docs/ci.md#annotations-and-summaries): `--format github`
// prints the usual text report and then one workflow command per failure on stdout (GitHub's runner
// reads them there and hides them from the log), and when the runner names a job summary file
// (GITHUB_STEP_SUMMARY) both commands append their results to it as Markdown, whatever the format.
import { Console, Effect, Option } from "effect"
import type { Annotation } from "../core/ciText.ts"
import { annotationCommand } from "../core/ciText.ts"
import { redact } from "../core/redaction.ts"
import { processEnv } from "../config/environment.ts"
import { appendWholeSync } from "../platform/append.ts"
import { FileLoader } from "../platform/FileLoader.ts"
import { osErrorText } from "../core/osError.ts"
import { printLine } from "./output.ts"

/**
 * What annotation paths are made relative to: GITHUB_WORKSPACE (the checkout), else the current
 * directory, so that a file lait names by its absolute path (a workflow's step) reads as the others.
 */
export const githubWorkspace = (): string => {
  const workspace = processEnv()["GITHUB_WORKSPACE"]
  return workspace === undefined || workspace === "" ? process.cwd() : workspace
}

/**
 * The workflow commands on stdout, secrets masked as in every report: before the escaping, which
 * would turn a secret holding `%`, `:` or `,` into text the mask no longer finds.
 */
export const printAnnotations = (annotations: ReadonlyArray<Annotation>) =>
  Effect.forEach(annotations, (a) => {
    const masked: Annotation = {
      ...a,
      ...(a.file === undefined ? {} : { file: redact(a.file) }),
      ...(a.title === undefined ? {} : { title: redact(a.title) }),
      message: redact(a.message)
    }
    return printLine(annotationCommand(masked))
  }, { discard: true })

/**
 * Appends the Markdown to the file GITHUB_STEP_SUMMARY names, if any. A summary that cannot be
 * written is a warning: the results are on stdout all the same, and the exit code must stay theirs.
 */
export const appendStepSummary = (markdown: () => string): Effect.Effect<void> =>
  Effect.suspend(() => {
    const path = processEnv()["GITHUB_STEP_SUMMARY"]
    if (path === undefined || path === "") return Effect.void
    return Effect.try({
      // A blank line keeps it apart from what earlier steps or commands appended.
      try: () => appendWholeSync(path, `${redact(markdown())}\n\n`),
      catch: (error) => error
    }).pipe(Effect.catch((error) =>
      Console.error(`warning: could not append to GITHUB_STEP_SUMMARY '${path}': ${osErrorText(error)}`)
    ))
  })

/** A user file's text for locating lines, undefined when it cannot be read now (a FIFO, a file gone). */
export const readIfReadable = (path: string): Effect.Effect<string | undefined, never, FileLoader> =>
  Effect.gen(function*() {
    const loader = yield* FileLoader
    return Option.getOrUndefined(yield* Effect.option(loader.readText(path)))
  })
