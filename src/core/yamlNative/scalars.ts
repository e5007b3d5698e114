// Scalars for the native YAML parser: the core-schema resolution of plain scalars, one-line quoted
// scalars and block scalars, each giving exactly the value the yaml package gives, or a bail.

/** Thrown (and caught only by parse.ts) when a text leaves the native subset. */
export class Bail {}
const BAIL = new Bail()
export const bail = (): never => {
  throw BAIL
}

const NULL = /^(?:~|[Nn]ull|NULL)?$/
const BOOL = /^(?:[Tt]rue|TRUE|[Ff]alse|FALSE)$/
const INT_OCT = /^0o[0-7]+$/
const INT = /^[-+]?[0-9]+$/
const INT_HEX = /^0x[0-9a-fA-F]+$/
const FLOAT_NAN = /^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/
const FLOAT_EXP = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+$/
const FLOAT = /^[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)$/

/** A plain scalar's value under the YAML 1.2 core schema, tried in the package's order. */
export const resolvePlain = (text: string): unknown => {
  if (NULL.test(text)) return null
  if (BOOL.test(text)) return text[0] === "t" || text[0] === "T"
  if (INT_OCT.test(text)) return parseInt(text.substring(2), 8)
  if (INT.test(text)) return parseInt(text, 10)
  if (INT_HEX.test(text)) return parseInt(text.substring(2), 16)
  if (FLOAT_NAN.test(text)) {
    return text.slice(-3).toLowerCase() === "nan" ? NaN : text[0] === "-" ? -Infinity : Infinity
  }
  if (FLOAT_EXP.test(text) || FLOAT.test(text)) return parseFloat(text)
  return text
}

/**
 * A plain scalar written over several lines, from its first character to its last: the package's
 * line folding (a line break between text becomes a space, each blank line a line break), then the
 * core schema resolution of the folded text.
 */
export const foldPlain = (source: string): unknown => resolvePlain(foldLines(source))

/** The package's folding of the lines of a plain or single-quoted scalar. */
const foldLines = (source: string): string => {
  const first = /(.*?)(?<![ \t])[ \t]*\r?\n/sy
  const line = /[ \t]*(.*?)(?:(?<![ \t])[ \t]*)?\r?\n/sy
  let match = first.exec(source)
  if (match === null) return source
  let out = match[1]!
  let sep = " "
  let pos = first.lastIndex
  line.lastIndex = pos
  while ((match = line.exec(source)) !== null) {
    if (match[1] === "") {
      if (sep === "\n") out += sep
      else sep = "\n"
    } else {
      out += sep + match[1]
      sep = " "
    }
    pos = line.lastIndex
  }
  const last = /[ \t]*(.*)/sy
  last.lastIndex = pos
  return out + sep + (last.exec(source)?.[1] ?? "")
}

const ESCAPES: Readonly<Record<string, string>> = {
  "0": "\0",
  a: "\x07",
  b: "\b",
  e: "\x1b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
  v: "\v",
  N: "\u0085",
  _: "\u00a0",
  L: "\u2028",
  P: "\u2029",
  " ": " ",
  "\"": "\"",
  "/": "/",
  "\\": "\\"
}

const HEX = /^[0-9a-fA-F]+$/

/** A double-quoted scalar closed on its own line; `end` is past the closing quote. */
export const doubleQuoted = (t: string, start: number): { readonly value: string; readonly end: number } => {
  let out = ""
  let i = start + 1
  let from = i
  for (;;) {
    const ch = t[i]
    if (ch === undefined || ch === "\n") return bail()
    if (ch === "\"") break
    if (ch !== "\\") {
      i++
      continue
    }
    out += t.slice(from, i)
    const next = t[i + 1]
    const simple = next === undefined ? undefined : ESCAPES[next]
    if (simple !== undefined) {
      out += simple
      i += 2
    } else if (next === "x" || next === "u" || next === "U") {
      const length = next === "x" ? 2 : next === "u" ? 4 : 8
      const code = t.substr(i + 2, length)
      if (code.length !== length || !HEX.test(code)) return bail()
      const point = parseInt(code, 16)
      if (point > 0x10ffff) return bail()
      out += String.fromCodePoint(point)
      i += 2 + length
    } else {
      return bail()
    }
    from = i
  }
  return { value: out + t.slice(from, i), end: i + 1 }
}

/** A single-quoted scalar closed on its own line (`''` is one quote). */
export const singleQuoted = (t: string, start: number): { readonly value: string; readonly end: number } => {
  let out = ""
  let from = start + 1
  for (let i = from;; i++) {
    const ch = t[i]
    if (ch === undefined || ch === "\n") return bail()
    if (ch !== "'") continue
    out += t.slice(from, i)
    if (t[i + 1] !== "'") return { value: out, end: i + 1 }
    out += "'"
    from = ++i + 1
  }
}

/**
 * A quoted scalar at `start` that may go on over more lines, each indented deeper than
 * `parentIndent` (or blank); `end` is past the closing quote. Folded as the package folds it.
 */
export const multiLineQuoted = (
  t: string,
  start: number,
  parentIndent: number
): { readonly value: string; readonly end: number } => {
  const double = t[start] === "\""
  let close = start + 1
  for (;; close++) {
    const ch = t[close]
    if (ch === undefined) return bail()
    if (double && ch === "\\") close++
    else if (ch === (double ? "\"" : "'")) {
      if (double || t[close + 1] !== "'") break
      close++
    }
  }
  if (t.lastIndexOf("\n", close) < start) return quoted(t, start)
  if (parentIndent < 0) return bail()
  for (let nl = t.indexOf("\n", start); nl !== -1 && nl < close; nl = t.indexOf("\n", nl + 1)) {
    let i = nl + 1
    while (t[i] === " ") i++
    if (t[i] !== "\n" && i - nl - 1 <= parentIndent) return bail()
  }
  const value = double
    ? doubleQuotedValue(t.slice(start, close + 1))
    : foldLines(t.slice(start + 1, close)).replace(/''/g, "'")
  return { value, end: close + 1 }
}

/** The package's reading of a double-quoted scalar's source (quotes included); an error bails. */
const doubleQuotedValue = (source: string): string => {
  let res = ""
  for (let i = 1; i < source.length - 1; ++i) {
    const ch = source[i]!
    if (ch === "\n") {
      let fold = ""
      let next = source[i + 1]
      while (next === " " || next === "\n") {
        if (next === "\n") fold += "\n"
        next = source[++i + 1]
      }
      res += fold === "" ? " " : fold
    } else if (ch === "\\") {
      let next = source[++i]!
      const simple = ESCAPES[next]
      if (simple !== undefined) res += simple
      else if (next === "\n") {
        next = source[i + 1]!
        while (next === " ") next = source[++i + 1]!
      } else if (next === "x" || next === "u" || next === "U") {
        const length = next === "x" ? 2 : next === "u" ? 4 : 8
        const code = source.substr(i + 1, length)
        if (code.length !== length || !HEX.test(code) || parseInt(code, 16) > 0x10ffff) return bail()
        res += String.fromCodePoint(parseInt(code, 16))
        i += length
      } else return bail()
    } else if (ch === " ") {
      const wsStart = i
      let next = source[i + 1]
      while (next === " ") next = source[++i + 1]
      if (next !== "\n") res += i > wsStart ? source.slice(wsStart, i + 1) : ch
    } else res += ch
  }
  return res
}

/** A one-line quoted scalar at `start` (which holds the quote). */
export const quoted = (t: string, start: number): { readonly value: string; readonly end: number } =>
  t[start] === "\"" ? doubleQuoted(t, start) : singleQuoted(t, start)

/**
 * A block scalar whose header (`|` or `>`, optional chomping indicator, optional comment) is at
 * `start`, in a collection indented `parentIndent`. Lines belong to it while blank or indented at
 * least as deep as its first line; its end (past the last line the package counts in) is where
 * parsing resumes. Explicit indentation indicators, more-indented blank lines and empty scalars bail.
 */
export const blockScalar = (
  t: string,
  start: number,
  parentIndent: number
): { readonly value: string; readonly end: number } => {
  const literal = t[start] === "|"
  let i = start + 1
  const chomp = t[i] === "-" || t[i] === "+" ? t[i++]! : ""
  while (t[i] === " ") i++
  if (t[i] === "#" && t[i - 1] === " ") i = t.indexOf("\n", i)
  if (t[i] !== "\n") return bail()
  const bodyStart = i + 1
  // Lines belong to the scalar while blank or indented at least as deep as its first content line.
  let indent = -1
  let contentEnd = bodyStart
  let p = bodyStart
  let leadingBlank = -1
  let deepBlank = false
  while (p < t.length) {
    let s = p
    while (t[s] === " ") s++
    const nl = t.indexOf("\n", s)
    const next = nl < 0 ? t.length : nl + 1
    if (s === (nl < 0 ? t.length : nl)) {
      if (indent < 0) leadingBlank = Math.max(leadingBlank, s - p)
      else if (s - p > indent) deepBlank = true
      p = next
      continue
    }
    if (indent < 0) indent = s - p
    if (s - p < indent || indent <= parentIndent) break
    contentEnd = p = next
  }
  // Deeper blank lines would set or extend the indentation; an empty scalar has none.
  if (deepBlank || leadingBlank > indent || indent <= parentIndent) return bail()
  // With `+` the trailing blank lines are part of the scalar (and must end in a line break).
  const end = chomp === "+" ? p : contentEnd
  if (chomp === "+" && end === t.length && !t.endsWith("\n")) return bail()
  return { value: blockValue(t.slice(bodyStart, end), literal, chomp, indent), end }
}

/** The package's resolution of a block scalar's source lines, for the subset admitted above. */
const blockValue = (source: string, literal: boolean, chomp: string, trimIndent: number): string => {
  const split = source.split(/\n( *)/)
  const first = /^( *)/.exec(split[0]!)![1]!
  const lines: Array<[string, string]> = [[first, split[0]!.slice(first.length)]]
  for (let k = 1; k < split.length; k += 2) lines.push([split[k]!, split[k + 1]!])
  let chompStart = lines.length
  while (chompStart > 0 && lines[chompStart - 1]![1] === "") chompStart--
  let value = ""
  let sep = ""
  let prevMoreIndented = false
  let k = 0
  for (; k < chompStart && lines[k]![1] === ""; k++) value += `${lines[k]![0].slice(trimIndent)}\n`
  for (; k < chompStart; k++) {
    const [indent, content] = lines[k]!
    if (literal) {
      value += sep + indent.slice(trimIndent) + content
      sep = "\n"
    } else if (indent.length > trimIndent) {
      if (sep === " ") sep = "\n"
      else if (!prevMoreIndented && sep === "\n") sep = "\n\n"
      value += sep + indent.slice(trimIndent) + content
      sep = "\n"
      prevMoreIndented = true
    } else if (content === "") {
      if (sep === "\n") value += "\n"
      else sep = "\n"
    } else {
      value += sep + content
      sep = " "
      prevMoreIndented = false
    }
  }
  if (chomp === "+") {
    for (let j = chompStart; j < lines.length; j++) value += `\n${lines[j]![0].slice(trimIndent)}`
    if (!value.endsWith("\n")) value += "\n"
  } else if (chomp === "") value += "\n"
  return value
}
