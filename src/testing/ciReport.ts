// `lait test --format github|markdown` and the job summary (docs/ci.md#annotations-and-summaries): an
// annotation per failure at the line it is about — a failing assertion's item under `assert:`, the
// line an error points at (a test definition or workflow that does not load), else the test file's
// `workflow:` — and the same results as Markdown: totals, then a table of the files that did not pass.
import { type Annotation, markdownCode, markdownTable, oneLine, workspacePath } from "../core/ciText.ts"
import { lineAtPath, parseYaml, type Source } from "../lang/load/yaml.ts"
import { tally } from "./reporters.ts"
import type { TestOutcome } from "./runner.ts"

/** The `k` of an `assertion k: …` reason, the form every assertion failure takes (./outcome.ts). */
const assertionNumber = (reason: string): number | undefined => {
  const match = /^assertion (\d+): /.exec(reason)
  return match === null ? undefined : Number(match[1])
}

const sourceOf = (text: string | undefined): Source | undefined => {
  if (text === undefined) return undefined
  const parsed = parseYaml(text)
  return parsed.ok ? parsed.source : undefined
}

export interface AnnotationContext {
  /** The text of a test file, undefined when it cannot be read (then the annotation has no line). */
  readonly readText: (file: string) => string | undefined
  /** GITHUB_WORKSPACE: annotation paths are relative to it. */
  readonly workspace: string | undefined
}

/** One `::error` per reason of every file that did not pass. */
export const testAnnotations = (
  outcomes: ReadonlyArray<TestOutcome>,
  context: AnnotationContext
): ReadonlyArray<Annotation> =>
  outcomes.flatMap((outcome) => {
    if (outcome.status === "pass") return []
    const file = workspacePath(outcome.file, context.workspace)
    // The text the run read, when it ran: lines then match what was tested even if the file changed.
    const src = sourceOf(outcome.evaluated?.text ?? context.readText(outcome.file))
    const status = outcome.status === "error" ? "ERROR" : "FAIL"
    return outcome.failures.map((reason): Annotation => {
      const k = outcome.evaluated === undefined ? undefined : assertionNumber(reason)
      if (outcome.at !== undefined) {
        return {
          level: "error",
          file: workspacePath(outcome.at.file, context.workspace),
          line: outcome.at.line,
          title: `${outcome.file}: ${status}`,
          message: oneLine(reason)
        }
      }
      const line = src === undefined ? undefined : lineAtPath(src, k === undefined ? ["workflow"] : ["assert", k - 1])
      return {
        level: "error",
        file,
        line,
        title: k === undefined ? `${outcome.file}: ${status}` : `${outcome.file}: assertion ${k}`,
        message: oneLine(reason)
      }
    })
  })

/** The Markdown of a suite's results, for GITHUB_STEP_SUMMARY and `--format markdown`. */
export const testMarkdown = (outcomes: ReadonlyArray<TestOutcome>): string => {
  const t = tally(outcomes)
  const verdict = t.failed === 0 && t.errors === 0 ? "✅ all passed" : "❌ failed"
  const lines = [
    "## lait test",
    "",
    `**${verdict}**: ${t.passed} passed, ${t.failed} failed, ${t.errors} ${t.errors === 1 ? "error" : "errors"}, ` +
    `${t.total} total`
  ]
  const notPassed = outcomes.filter((o) => o.status !== "pass")
  if (notPassed.length > 0) {
    const rows = notPassed.map((o) => [o.file, o.status.toUpperCase(), o.failures.join("\n")])
    lines.push("", markdownTable(["Test file", "Result", "Reason"], rows))
  }
  const traced = notPassed.filter((o) => o.trace !== undefined)
  if (traced.length > 0) {
    lines.push("", "Traces of the files that did not pass:", "")
    for (const o of traced) lines.push(`- ${markdownCode(o.file)}: ${markdownCode(o.trace!)}`)
  }
  return lines.join("\n")
}
