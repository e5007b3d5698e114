// What CI systems read besides reports (docs/ci.md#annotations-and-summaries): GitHub Actions workflow
// commands (`::error file=F,line=N,title=T::message`, one per failure, shown on the pull request's
// diff) and Markdown for job summaries and PR comments. Text from test and eval files, outputs and
// error chains goes into both, so everything here escapes what would break the syntax.
import * as nodePath from "node:path"

export interface Annotation {
  readonly level: "error" | "warning" | "notice"
  /** Omitted when the failure has no file (a merged report whose shards named none). */
  readonly file?: string | undefined
  readonly line?: number | undefined
  /** Shown above the message; without one GitHub names the file. */
  readonly title?: string | undefined
  readonly message: string
}

// GitHub's runner reads a command's message up to the end of the line and its properties up to `,`
// or `::`, so these are percent-encoded exactly as @actions/core's command.ts does.
export const escapeData = (text: string): string =>
  text.replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A")

export const escapeProperty = (text: string): string => escapeData(text).replace(/:/g, "%3A").replace(/,/g, "%2C")

/** One workflow command line. */
export const annotationCommand = (a: Annotation): string => {
  const properties = [
    ...(a.file === undefined ? [] : [`file=${escapeProperty(a.file)}`]),
    ...(a.line === undefined ? [] : [`line=${a.line}`]),
    ...(a.title === undefined ? [] : [`title=${escapeProperty(a.title)}`])
  ]
  return `::${a.level} ${properties.join(",")}::${escapeData(a.message)}`
}

/** A reason of several lines (JSON shown indented under a message) as one line. */
export const oneLine = (text: string): string =>
  text.split(/\r?\n/).map((line) => line.trim()).filter((line) => line !== "").join(" ")

/**
 * GitHub resolves an annotation's `file` against the repository root (GITHUB_WORKSPACE), while lait
 * names files as given, relative to where it runs: a file inside the workspace is renamed relative to
 * it, anything else stays as it was given.
 */
export const workspacePath = (file: string, workspace: string | undefined): string => {
  if (workspace === undefined || workspace === "") return file
  const relative = nodePath.relative(nodePath.resolve(workspace), nodePath.resolve(file))
  return relative === "" || relative.startsWith("..") || nodePath.isAbsolute(relative)
    ? file
    : relative.split(nodePath.sep).join("/")
}

/** Characters of one Markdown table cell: a job summary holds at most 1 MiB per step. */
const CELL_CHARS = 2_000

/**
 * Text as one Markdown table cell: `|` would end the cell and a line break the row, and `<`/`&` would
 * start HTML, which GitHub renders (a cell of model output must not).
 */
export const markdownCell = (text: string): string => {
  const cut = text.length > CELL_CHARS ? `${text.slice(0, CELL_CHARS)}…` : text
  return cut.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/\\/g, "\\\\")
    .replace(/\|/g, "\\|").replace(/\r?\n/g, "<br>")
}

/** A Markdown table; every cell is escaped. */
export const markdownTable = (header: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string>>): string =>
  [header, header.map(() => "---"), ...rows]
    .map((row, i) => `| ${(i === 1 ? row : row.map(markdownCell)).join(" | ")} |`)
    .join("\n")

/** `code` in Markdown that stays code whatever backticks the text holds. */
export const markdownCode = (text: string): string => {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length))
  const fence = "`".repeat(longest + 1)
  return `${fence}${longest > 0 ? " " : ""}${text}${longest > 0 ? " " : ""}${fence}`
}
