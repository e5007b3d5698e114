// `lait lint PATH...` end to end: the active config, the files (directories walked), one report per
// file in order, then the chosen rendering on stdout. Lint never calls a model and never waits on a
// FIFO. It fails (exit 3, the summary on stderr) when anything had an error; warnings alone pass.
import { Effect } from "effect"
import * as nodePath from "node:path"
import type { ConfigFile } from "../config/schema.ts"
import { renderChain } from "../core/errors.ts"
import { FileLoader } from "../platform/FileLoader.ts"
import { lintAgentText } from "./agent.ts"
import { type ActiveConfig, lintConfigText, loadActiveConfig, type LintOptions } from "./config.ts"
import { display, newFileState, reportSkipped } from "./context.ts"
import { lintEvalText, lintTestText } from "./definitions.ts"
import { collector, type FileReport, type Issue, type LintRun } from "./findings.ts"
import { detectKind } from "../core/fileKind.ts"
import { LintError } from "./lintErrors.ts"
import {
  findings,
  type LintFormat,
  renderGithub,
  renderJson,
  renderText,
  structuredSummary,
  textSummary
} from "./report.ts"
import { expandTargets } from "./targets.ts"
import { lintWorkflowText } from "./workflow.ts"

const LINTABLE_EXTENSIONS = new Set([".yml", ".yaml", ".md"])
const EXPECTED_TYPES = "expected a '.yml'/'.yaml' workflow, test, eval or config file or a '.md' agent file"

/** Lints one file; every problem, including an unreadable file, is an issue of its report. */
export const lintFile = (path: string, active: ActiveConfig): Effect.Effect<FileReport, never, FileLoader> =>
  Effect.gen(function*() {
    const emitter = collector()
    // Named explicitly with another extension (a walk yields only these): the kind is not guessed.
    if (!LINTABLE_EXTENSIONS.has(nodePath.extname(path))) {
      emitter.emit("error", `cannot determine the file type of '${path}'; ${EXPECTED_TYPES}`, undefined)
      return { file: path, issues: emitter.issues }
    }
    const text = yield* Effect.result(FileLoader.use((f) => f.readText(path, { waitForWriter: false })))
    if (text._tag === "Failure") {
      emitter.emit("error", renderChain(text.failure), undefined)
      return { file: path, issues: emitter.issues }
    }
    const state = newFileState(active.env)
    switch (detectKind(path, text.success)) {
      case "workflow":
        yield* lintWorkflowText(path, text.success, state, emitter)
        break
      case "agent":
        yield* lintAgentText(path, text.success, state, emitter)
        break
      case "test":
        yield* lintTestText(path, text.success, emitter)
        break
      case "eval":
        yield* lintEvalText(path, text.success, emitter)
        break
      case "config":
        yield* lintConfigText(path, text.success, active, emitter)
        break
    }
    reportSkipped(state, emitter)
    return { file: path, issues: emitter.issues }
  })

/**
 * The `untrusted-shell` findings of one workflow file, its child workflows' included, as `lait lint`
 * reports them: `lait serve` warns about such workflows and keeps them off the network. A file that
 * does not load has none (serving it fails on its own).
 */
export const untrustedShellFindings = (
  path: string,
  config: ConfigFile | undefined
): Effect.Effect<ReadonlyArray<Issue>, never, FileLoader> =>
  Effect.gen(function*() {
    const text = yield* Effect.result(FileLoader.use((f) => f.readText(path, { waitForWriter: false })))
    if (text._tag === "Failure") return []
    const emitter = collector()
    yield* lintWorkflowText(path, text.success, newFileState({ config, skippedBecause: "" }), emitter)
    return emitter.issues.filter((issue) => issue.rule === "untrusted-shell")
  })

/** Everything lint found, before rendering. */
export const collectLint = (
  paths: ReadonlyArray<string>,
  options: LintOptions
): Effect.Effect<LintRun, LintError, FileLoader> =>
  Effect.gen(function*() {
    const active = yield* loadActiveConfig(options)
    const files = yield* expandTargets(paths)
    const reports = yield* Effect.forEach(files, (file) => lintFile(file, active))
    return { config: active.section, reports }
  }).pipe(
    // Any failure of `lait lint` itself is a validation outcome (exit 3), as upstream.
    Effect.mapError((error) => new LintError({ reason: { _tag: "Aborted", error } }))
  )

export interface Rendered {
  readonly stdout: ReadonlyArray<string>
  /** The summary the command fails with, when something had an error. */
  readonly failure: string | undefined
}

export const render = (run: LintRun, format: LintFormat): Rendered => {
  if (format === "text") return { stdout: renderText(run), failure: textSummary(run) }
  const list = findings(run, format === "json" ? (absolute) => absolute : display)
  return {
    stdout: format === "json" ? [renderJson(list)] : renderGithub(list),
    failure: structuredSummary(run, list)
  }
}

/**
 * What `lait lint` prints on stdout (undefined: nothing) and the error it then exits with, if any.
 * The command prints; failing only after the output keeps a findings list that cannot be written an
 * output error rather than a lint failure.
 */
export const lintReport = (
  paths: ReadonlyArray<string>,
  format: LintFormat,
  options: LintOptions
): Effect.Effect<
  { readonly stdout: string | undefined; readonly failure: LintError | undefined },
  LintError,
  FileLoader
> =>
  Effect.gen(function*() {
    const run = yield* collectLint(paths, options)
    const { stdout, failure } = render(run, format)
    return {
      stdout: stdout.length > 0 ? stdout.join("\n") : undefined,
      failure: failure === undefined ? undefined : new LintError({ reason: { _tag: "Findings", summary: failure } })
    }
  })
