// What `lait lint` reports: per-file issues (severity, message, 1-based line when known) and the
// sections about the active configuration. Renderers (report.ts) only read these; they never re-run
// a check, so the text, json and github formats cannot disagree.

export type Severity = "error" | "warning"

/**
 * A finding other commands act on besides reporting it: `untrusted-shell`, a template inside a
 * `sh -c` script (src/lint/untrusted.ts), which `lait serve` warns about and keeps off the network.
 */
export type Rule = "untrusted-shell"

export interface Issue {
  readonly severity: Severity
  readonly message: string
  readonly line: number | undefined
  readonly rule?: Rule
}

export type { FileKind } from "../core/fileKind.ts"

export interface FileReport {
  /** The path as given on the command line or as found by the directory walk. */
  readonly file: string
  readonly issues: ReadonlyArray<Issue>
}

export const hasErrors = (report: FileReport): boolean => report.issues.some((i) => i.severity === "error")

/** One `workflows:` entry of the active configuration. */
export interface RegistryEntry {
  readonly name: string
  /** Absolute. */
  readonly path: string
  readonly exists: boolean
}

/** A config file that failed to load or breaks a rule of its own. */
export interface ConfigProblem {
  /** Absolute. */
  readonly file: string
  readonly message: string
  readonly line: number | undefined
}

export interface ConfigSection {
  /** The active config file the registry findings are about (absolute; the last one merged). */
  readonly path: string
  /** Every problem of the active config files; one never hides another or the registry. */
  readonly problems: ReadonlyArray<ConfigProblem>
  /** The `workflows:` registry, sorted by name (empty when the config sets none). */
  readonly registry: ReadonlyArray<RegistryEntry>
}

export interface LintRun {
  readonly config: ConfigSection
  readonly reports: ReadonlyArray<FileReport>
}

export const registryOk = (run: LintRun): boolean => run.config.registry.every((e) => e.exists)

export const failedFiles = (run: LintRun): number => run.reports.filter(hasErrors).length

export const runHasErrors = (run: LintRun): boolean =>
  failedFiles(run) > 0 || !registryOk(run) || run.config.problems.length > 0

/**
 * Collects issues. A child emitter re-attributes what it receives: problems found inside a child
 * workflow or an agent file are reported against the line of the step that uses it, with a prefix
 * naming the child.
 */
export interface Emitter {
  readonly emit: (severity: Severity, message: string, line: number | undefined, rule?: Rule) => void
}

export const collector = (): Emitter & { readonly issues: Array<Issue> } => {
  const issues: Array<Issue> = []
  return {
    issues,
    emit: (severity, message, line, rule) =>
      issues.push(rule === undefined ? { severity, message, line } : { severity, message, line, rule })
  }
}

export const redirected = (parent: Emitter, prefix: string, line: number | undefined): Emitter => ({
  emit: (severity, message, _line, rule) => parent.emit(severity, `${prefix}${message}`, line, rule)
})
