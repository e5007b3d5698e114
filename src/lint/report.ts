// The three renderings of one LintRun (docs/cli.md#lait-lint):
//   text   — config sections first (`lait.config.yml (workflows:):` with one line per entry, the
//            active config file when it failed to load), then `<file>: OK` or `<file>:` followed by
//            `  error: …` / `  warning: …`; on errors the summary
//            `<n> of <m> file(s) had errors[; lait.config.yml 'workflows:' also has errors]…`;
//   json   — a pretty array of {file, line, severity, message}: file findings, then config findings
//            (which name the config file by its absolute path);
//   github — `::error file=F,line=N::MSG` (or `::warning`), `,line=N` left out without a line; MSG
//            escapes % CR LF, and the file property additionally `,` and `:` as GitHub's workflow
//            command syntax requires; summary `lint found <e> error(s) across <n> finding(s) in <f> file(s)`.
// The summary is the error `lait lint` fails with (stderr, exit 3); warnings never fail a run.
import { annotationCommand } from "../core/ciText.ts"
import { CONFIG_FILE_NAME } from "../config/load.ts"
import { display } from "./context.ts"
import { failedFiles, type LintRun, registryOk, runHasErrors, type Severity } from "./findings.ts"

export type LintFormat = "text" | "json" | "github"

export interface Finding {
  readonly file: string
  readonly line: number | null
  readonly severity: Severity
  readonly message: string
}

export const renderText = (run: LintRun): ReadonlyArray<string> => {
  const out: Array<string> = []
  const { registry, problems } = run.config
  if (registry.length > 0) {
    out.push(`${CONFIG_FILE_NAME} (workflows:):`)
    for (const entry of registry) {
      out.push(
        entry.exists
          ? `  ${entry.name}: OK (${display(entry.path)})`
          : `  ${entry.name}: error: no such file '${display(entry.path)}'`
      )
    }
  }
  for (const problem of problems) {
    out.push(`${display(problem.file)}:`)
    out.push(`  error: ${problem.message}`)
  }
  for (const report of run.reports) {
    if (report.issues.length === 0) {
      out.push(`${report.file}: OK`)
      continue
    }
    out.push(`${report.file}:`)
    for (const issue of report.issues) out.push(`  ${issue.severity}: ${issue.message}`)
  }
  return out
}

/** The error a failed text run ends with, or undefined when nothing had an error. */
export const textSummary = (run: LintRun): string | undefined => {
  if (!runHasErrors(run)) return undefined
  let suffix = ""
  if (!registryOk(run)) suffix += `; ${CONFIG_FILE_NAME} 'workflows:' also has errors`
  if (run.config.problems.length > 0) suffix += `; ${CONFIG_FILE_NAME} also has errors`
  return `${failedFiles(run)} of ${run.reports.length} file(s) had errors${suffix}`
}

/**
 * Every finding, file findings first. `configFile` names the config file in config findings: json
 * gives its absolute path (a consumer need not know lint's working directory), github the path
 * relative to it, which is what an annotation attaches to.
 */
export const findings = (run: LintRun, configFile: (absolute: string) => string): ReadonlyArray<Finding> => {
  const out: Array<Finding> = []
  for (const report of run.reports) {
    for (const issue of report.issues) {
      out.push({ file: report.file, line: issue.line ?? null, severity: issue.severity, message: issue.message })
    }
  }
  for (const entry of run.config.registry) {
    if (entry.exists) continue
    out.push({
      file: configFile(run.config.path),
      line: null,
      severity: "error",
      message: `workflows.${entry.name} resolves to '${display(entry.path)}', which does not exist`
    })
  }
  for (const problem of run.config.problems) {
    out.push({
      file: configFile(problem.file),
      line: problem.line ?? null,
      severity: "error",
      message: problem.message
    })
  }
  return out
}

export const renderJson = (list: ReadonlyArray<Finding>): string =>
  JSON.stringify(list.map((f) => ({ file: f.file, line: f.line, severity: f.severity, message: f.message })), null, 2)

export const renderGithub = (list: ReadonlyArray<Finding>): ReadonlyArray<string> =>
  list.map((f) =>
    annotationCommand({ level: f.severity, file: f.file, line: f.line ?? undefined, message: f.message })
  )

export const structuredSummary = (run: LintRun, list: ReadonlyArray<Finding>): string | undefined => {
  if (!runHasErrors(run)) return undefined
  const errors = list.filter((f) => f.severity === "error").length
  return `lint found ${errors} error(s) across ${list.length} finding(s) in ${run.reports.length} file(s)`
}
