// How `lait test` shows what an assertion saw (docs/testing.md#assertions): an output that is a JSON
// object or array as indented JSON under the message rather than one escaped string, and the
// arguments of the calls a `tool_called` `args_jq` did not match. Both are cut to a screenful, with a
// note of how much was left out: a test report is read in a terminal or a CI log.

/** Most lines of a JSON output shown; the rest is cut. */
export const SHOWN_LINES = 40
/** Most calls whose arguments are shown. */
export const SHOWN_CALLS = 10
/** Longest line shown; the rest of it is cut. */
export const SHOWN_LINE_CHARS = 200

const INDENT = "  "

const cutLine = (line: string): string =>
  line.length <= SHOWN_LINE_CHARS
    ? line
    : `${line.slice(0, SHOWN_LINE_CHARS)}… (${line.length - SHOWN_LINE_CHARS} more characters cut)`

/**
 * `text` (valid JSON) re-indented by two spaces a level. Done on the text rather than by parsing
 * and printing, so that every number and string is shown exactly as the output spells it.
 */
const reindent = (text: string): Array<string> => {
  const lines: Array<string> = []
  let line = ""
  let depth = 0
  const newline = (level: number) => {
    lines.push(line)
    line = INDENT.repeat(level)
  }
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!
    if (ch === "\"") {
      let end = i + 1
      while (text[end] !== "\"") end += text[end] === "\\" ? 2 : 1
      line += text.slice(i, end + 1)
      i = end
    } else if (ch === "{" || ch === "[") {
      const next = text.slice(i + 1).trimStart()[0]
      if (next === "}" || next === "]") {
        line += ch + next
        i = text.indexOf(next, i + 1)
      } else {
        line += ch
        newline(++depth)
      }
    } else if (ch === "}" || ch === "]") {
      newline(--depth)
      line += ch
    } else if (ch === ",") {
      line += ch
      newline(depth)
    } else if (ch === ":") {
      line += ": "
    } else if (!/\s/.test(ch)) {
      line += ch
    }
  }
  lines.push(line)
  return lines
}

/** The output as indented lines when it is a JSON object or array; undefined for anything else. */
const jsonLines = (output: string): Array<string> | undefined => {
  const start = output.trimStart()[0]
  if (start !== "{" && start !== "[") return undefined
  try {
    JSON.parse(output)
  } catch {
    return undefined
  }
  return reindent(output.trim())
}

/** `lines` under a message: indented, at most `max` of them, then a note of how many were cut. */
const block = (lines: ReadonlyArray<string>, max: number, what: string): string => {
  const shown = lines.slice(0, max).map((l) => `\n${INDENT}${cutLine(l)}`).join("")
  return lines.length <= max ? shown : `${shown}\n${INDENT}… (${lines.length - max} more ${what} cut)`
}

/**
 * The block that shows a JSON object or array output (after a message ending in `:`), or undefined
 * when the output is anything else and its quoted form says it well enough.
 */
export const jsonOutputBlock = (output: string): string | undefined => {
  const lines = jsonLines(output)
  return lines === undefined ? undefined : block(lines, SHOWN_LINES, "lines")
}

/** The arguments of each call, as recorded, one line each. */
export const callArgumentsBlock = (args: ReadonlyArray<string | undefined>): string =>
  block(
    args.map((a) => (a === undefined ? "(no arguments recorded)" : a.trim().replace(/\s*\n\s*/g, " "))),
    SHOWN_CALLS,
    "calls"
  )
