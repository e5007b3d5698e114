// Tokens of the jq subset the native evaluator handles. Anything the lexer does not know (comments,
// `?//`, `..`, `::`, escapes jq rejects, number spellings JavaScript would not print back) makes the
// whole filter unsupported: jq-wasm then checks and runs it as before.

export class Unsupported {
  constructor(readonly why: string) {}
}

export type Token =
  | { readonly t: "field"; readonly name: string } // `.name`
  | { readonly t: "ident"; readonly name: string }
  | { readonly t: "var"; readonly name: string } // `$name`
  | { readonly t: "format"; readonly name: string } // `@name`
  | { readonly t: "num"; readonly value: number }
  | { readonly t: "str"; readonly parts: ReadonlyArray<string | ReadonlyArray<Token>> }
  | { readonly t: "op"; readonly op: string }
  | { readonly t: "eof" }

const OPS = ["!=", "==", "<=", ">=", "//", "|=", "+=", "-=", "*=", "/=", "%=", "//=", "?//"]
  .sort((a, b) => b.length - a.length)
const SINGLE = "|,.[](){}:;<>+-*/%?="
const ASSIGN = new Set(["|=", "+=", "-=", "*=", "/=", "%=", "//=", "=", "?//"])

const isIdentStart = (c: string) => /[A-Za-z_]/.test(c)
const isIdentChar = (c: string) => /[A-Za-z_0-9]/.test(c)

const NUMBER = /^(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?/

const unsupported = (why: string): never => {
  throw new Unsupported(why)
}

const hex4 = (text: string, at: number): number => {
  const digits = text.slice(at, at + 4)
  if (!/^[0-9A-Fa-f]{4}$/.test(digits)) unsupported("bad \\u escape")
  return parseInt(digits, 16)
}

const ESCAPES: Readonly<Record<string, string>> = {
  "\"": "\"",
  "\\": "\\",
  "/": "/",
  b: "\b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t"
}

/** Lexes from `start` (just after an opening quote); returns the token and the index after the closing quote. */
const lexString = (text: string, start: number): { readonly token: Token; readonly end: number } => {
  const parts: Array<string | ReadonlyArray<Token>> = []
  let current = ""
  let i = start
  for (;;) {
    if (i >= text.length) unsupported("unterminated string")
    const c = text[i]!
    if (c === "\"") break
    if (c !== "\\") {
      const code = c.charCodeAt(0)
      if (code >= 0xd800 && code <= 0xdfff) {
        const next = text.charCodeAt(i + 1)
        if (code > 0xdbff || !(next >= 0xdc00 && next <= 0xdfff)) unsupported("lone surrogate")
        current += text.slice(i, i + 2)
        i += 2
        continue
      }
      current += c
      i++
      continue
    }
    const e = text[i + 1]
    if (e === "(") {
      const inner = tokenize(text, i + 2, true)
      parts.push(current, inner.tokens)
      current = ""
      i = inner.end
      continue
    }
    if (e === "u") {
      const code = hex4(text, i + 2)
      if (code >= 0xdc00 && code <= 0xdfff) unsupported("lone surrogate")
      if (code >= 0xd800 && code <= 0xdbff) {
        if (text.slice(i + 6, i + 8) !== "\\u") unsupported("lone surrogate")
        const low = hex4(text, i + 8)
        if (low < 0xdc00 || low > 0xdfff) unsupported("lone surrogate")
        current += String.fromCharCode(code, low)
        i += 12
        continue
      }
      current += String.fromCharCode(code)
      i += 6
      continue
    }
    const plain = e === undefined ? undefined : ESCAPES[e]
    if (plain === undefined) unsupported("escape")
    current += plain
    i += 2
  }
  parts.push(current)
  return { token: { t: "str", parts }, end: i + 1 }
}

/**
 * Tokens from `start`; inside an interpolation (`nested`) it stops at the `)` that closes it and
 * returns the index after it.
 */
export const tokenize = (
  text: string,
  start = 0,
  nested = false
): { readonly tokens: ReadonlyArray<Token>; readonly end: number } => {
  const tokens: Array<Token> = []
  let depth = 0
  let i = start
  while (i < text.length) {
    const c = text[i]!
    if (c === " " || c === "\t" || c === "\n" || c === "\r") {
      i++
      continue
    }
    if (c === "#") {
      // jq 1.8 continues a comment after a backslash at the end of its line: left to jq-wasm
      const end = text.indexOf("\n", i)
      const comment = text.slice(i, end < 0 ? text.length : end)
      if (comment.includes("\\") || comment.includes("\r")) unsupported("comment with a backslash")
      i += comment.length
      continue
    }
    if (c === "\"") {
      const lexed = lexString(text, i + 1)
      tokens.push(lexed.token)
      i = lexed.end
      continue
    }
    if (c === "." && isIdentStart(text[i + 1] ?? "")) {
      let j = i + 1
      while (j < text.length && isIdentChar(text[j]!)) j++
      if (text.startsWith("::", j)) unsupported("module path")
      tokens.push({ t: "field", name: text.slice(i + 1, j) })
      i = j
      continue
    }
    if (c === "$" || c === "@" || isIdentStart(c)) {
      const sigil = c === "$" || c === "@"
      const from = sigil ? i + 1 : i
      if (!isIdentStart(text[from] ?? "")) unsupported("sigil")
      let j = from + 1
      while (j < text.length && isIdentChar(text[j]!)) j++
      if (text.startsWith("::", j)) unsupported("module path")
      const name = text.slice(from, j)
      tokens.push(c === "$" ? { t: "var", name } : c === "@" ? { t: "format", name } : { t: "ident", name })
      i = j
      continue
    }
    const number = NUMBER.exec(text.slice(i, i + 400))
    if (number !== null && (c !== "." || /[0-9]/.test(text[i + 1] ?? ""))) {
      const spelled = number[0]
      const value = Number(spelled)
      // jq keeps a literal's decimal digits: only spellings that are exactly JavaScript's own are safe.
      if (!Number.isFinite(value) || String(value) !== spelled) unsupported("number literal")
      if (isIdentChar(text[i + spelled.length] ?? "")) unsupported("number followed by a name")
      tokens.push({ t: "num", value })
      i += spelled.length
      continue
    }
    const op = OPS.find((o) => text.startsWith(o, i))
    if (op !== undefined) {
      if (ASSIGN.has(op)) unsupported(`operator ${op}`)
      tokens.push({ t: "op", op })
      i += op.length
      continue
    }
    if (c === "." && text[i + 1] === ".") {
      tokens.push({ t: "op", op: ".." })
      i += 2
      continue
    }
    if (!SINGLE.includes(c)) unsupported(`character ${c}`)
    if (c === "=") unsupported("assignment")
    if (nested) {
      if (c === "(") depth++
      if (c === ")") {
        if (depth === 0) {
          tokens.push({ t: "eof" })
          return { tokens, end: i + 1 }
        }
        depth--
      }
    }
    tokens.push({ t: "op", op: c })
    i++
  }
  if (nested) unsupported("unterminated interpolation")
  tokens.push({ t: "eof" })
  return { tokens, end: i }
}
