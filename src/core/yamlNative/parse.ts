// A parser for the strict subset of YAML that lait's own files are written in: block mappings and
// sequences, comments, plain and quoted scalars (also over several lines), block scalars and
// one-line flow collections. For every text it accepts it builds the tree (values, key order,
// offsets) the yaml package would; anything else (a syntax error, a duplicate key, anchors, tags,
// directives, document markers, complex keys, tabs, flow collections over several lines) makes it
// decline, and the caller parses with the package instead, so every message stays the package's.
import type { YMap, YNode, YPair, YScalar, YSeq } from "./nodes.ts"
import { Bail, bail, blockScalar, foldPlain, multiLineQuoted, quoted, resolvePlain } from "./scalars.ts"

// Characters and line starts the subset never has: checked once over the whole text before any work.
const REJECT = /[\t\r\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\ufeff]|^(?:---|\.\.\.|%)/m

/** Characters a plain scalar may not start with (indicators); `-` is handled by the caller. */
const NOT_PLAIN_START = new Set([..."?:,[]{}#&*!|>'\"%@`"])
const FLOW_STOP = new Set([..."\n,[]{}"])
const MAX_KEY = 1000
// Deeper nesting goes to the package, whose own limit (a stack overflow) gives its message.
const MAX_DEPTH = 64

const scalar = (start: number, end: number, value: unknown): YScalar => ({ kind: "scalar", range: [start, end], value })

/**
 * toJS turns keys into strings: two keys alike as strings (a duplicate for the package, or `1` and
 * `"1"`), a null key and the keys objects treat specially bail.
 */
const admitKey = (key: YScalar, seen: Set<string>): void => {
  const name = key.value === null ? bail() : String(key.value)
  if (seen.has(name) || name === "<<" || name === "__proto__") bail()
  seen.add(name)
}

class Parser {
  pos = 0
  /** Where the last node ended, trailing comment and line break included (the package's node end). */
  lastEnd = 0
  /**
   * What the last value was, for the comment lines after it: a scalar or flow collection (`attach`:
   * the package appends more-indented comments to it), a block scalar, an empty value, a collection.
   */
  private tail: "attach" | "block" | "null" | "collection" = "attach"
  /** Comment lines after a collection's last value that its parent may have to count in (see end()). */
  private gap: { readonly indents: ReadonlyArray<number>; readonly end: number } | undefined
  private depth = 0

  constructor(readonly t: string) {}

  private blank(i: number): boolean {
    const c = this.t[i]
    return c === undefined || c === " " || c === "\n"
  }

  private isDash(p: number): boolean {
    return this.t[p] === "-" && this.blank(p + 1)
  }

  /** From a line start, skips blank and comment-only lines; the next line's indent, or -1 at the end. */
  nextContentLine(): number {
    const t = this.t
    for (;;) {
      let i = this.pos
      while (t[i] === " ") i++
      if (i >= t.length) {
        this.pos = t.length
        return -1
      }
      if (t[i] !== "\n" && t[i] !== "#") return i - this.pos
      const nl = t.indexOf("\n", i)
      this.pos = nl < 0 ? t.length : nl + 1
    }
  }

  /** After a value: spaces, an optional comment (after a space), the line break. Moves to the next line. */
  private finishLine(i: number): void {
    const t = this.t
    while (t[i] === " ") i++
    if (t[i] === "#") {
      if (t[i - 1] !== " ") bail()
      i = t.indexOf("\n", i)
      if (i < 0) i = t.length
    }
    if (i < t.length && t[i] !== "\n") bail()
    this.pos = this.lastEnd = Math.min(i + 1, t.length)
  }

  /** The offset of the `: ` ending a one-line implicit key at `p`, or -1 when `p` starts no key. */
  private keyColon(p: number): number {
    const t = this.t
    const c = t[p]
    if (c === "\"" || c === "'") {
      let end: number
      try {
        end = quoted(t, p).end
      } catch (e) {
        if (e instanceof Bail) return -1
        throw e
      }
      return t[end] === ":" && this.blank(end + 1) ? end : -1
    }
    if (c === undefined || NOT_PLAIN_START.has(c) || (c === "-" && this.blank(p + 1))) return -1
    for (let i = p; i < t.length && t[i] !== "\n"; i++) {
      if (t[i] === ":" && this.blank(i + 1)) return i
      if (t[i] === "#" && t[i - 1] === " ") return -1
    }
    return -1
  }

  /**
   * A node that starts a line (or follows `- `) at column `col`, inside a collection at `parentIndent`.
   * `gap`: where the lines between its `key:` or `-` and it begin (a scalar after a comment line there
   * is read by the package in ways of its own: it bails).
   */
  block(p: number, col: number, parentIndent: number, gap = p): YNode {
    if (this.isDash(p)) return this.seq(p, col)
    if (this.keyColon(p) >= 0) return this.map(p, col)
    if (this.t[p] === "|" || this.t[p] === ">" || /^ *#/m.test(this.t.slice(gap, p))) return bail()
    return this.inline(p, parentIndent)
  }

  private key(p: number, colon: number, seen: Set<string>): YScalar {
    const t = this.t
    if (colon - p > MAX_KEY) bail()
    let key: YScalar
    if (t[p] === "\"" || t[p] === "'") key = scalar(p, colon, quoted(t, p).value)
    else {
      if (t[colon - 1] === " ") bail()
      const text = t.slice(p, colon)
      key = scalar(p, colon, resolvePlain(text))
    }
    admitKey(key, seen)
    return key
  }

  private map(start: number, col: number): YMap {
    const t = this.t
    const items: Array<YPair> = []
    const seen = new Set<string>()
    if (++this.depth > MAX_DEPTH) bail()
    for (let p = start;;) {
      this.gap = undefined
      const colon = this.keyColon(p)
      if (colon < 0) bail()
      const key = this.key(p, colon, seen)
      let q = colon + 1
      while (t[q] === " ") q++
      let value: YNode
      if (q >= t.length || t[q] === "\n" || t[q] === "#") {
        this.finishLine(q)
        const gap = this.pos
        const indent = this.nextContentLine()
        if (indent > col) value = this.block(this.pos + indent, indent, col, gap)
        else if (indent === col && this.isDash(this.pos + indent)) value = this.seq(this.pos + indent, col)
        else {
          // The package's end of an empty value with a comment depends on the lines after it.
          if (t[q] === "#") bail()
          value = scalar(q, q, null)
          this.lastEnd = q
          this.tail = "null"
        }
      } else {
        if (this.isDash(q) || this.keyColon(q) >= 0) bail()
        value = this.inline(q, col)
      }
      items.push({ key, value })
      const indent = this.nextContentLine()
      if (indent < col) break
      if (indent > col) bail()
      p = this.pos + indent
    }
    this.depth--
    return { kind: "map", range: [start, this.end(col)], items }
  }

  private seq(start: number, col: number): YSeq {
    const t = this.t
    const items: Array<YNode> = []
    if (++this.depth > MAX_DEPTH) bail()
    for (let p = start;;) {
      this.gap = undefined
      const after = this.lastEnd
      let q = p + 1
      while (t[q] === " ") q++
      if (q >= t.length || t[q] === "\n" || t[q] === "#") {
        this.finishLine(q)
        const gap = this.pos
        const indent = this.nextContentLine()
        if (indent > col) items.push(this.block(this.pos + indent, indent, col, gap))
        else {
          // Comment lines before an empty item move its end in the package.
          if (t[q] === "#" || (p > start && /^ *#/m.test(t.slice(after, p)))) bail()
          items.push(scalar(q, q, null))
          this.lastEnd = q
          this.tail = "null"
        }
      } else {
        const itemCol = col + (q - p)
        if (this.isDash(q)) items.push(this.seq(q, itemCol))
        else if (this.keyColon(q) >= 0) items.push(this.map(q, itemCol))
        else items.push(this.inline(q, col))
      }
      const indent = this.nextContentLine()
      if (indent === col && this.isDash(this.pos + indent)) p = this.pos + indent
      else if (indent <= col) break
      else bail()
    }
    this.depth--
    return { kind: "seq", range: [start, this.end(col)], items }
  }

  /** A scalar or flow collection written on the current line from `q`. */
  private inline(q: number, parentIndent: number): YNode {
    const t = this.t
    const c = t[q]!
    if (c === "|" || c === ">") {
      if (parentIndent < 0) bail()
      const block = blockScalar(t, q, parentIndent)
      this.pos = this.lastEnd = block.end
      this.tail = "block"
      return scalar(q, block.end, block.value)
    }
    let node: YNode
    let end: number
    if (c === "\"" || c === "'") {
      const s = multiLineQuoted(t, q, parentIndent)
      node = scalar(q, s.end, s.value)
      end = s.end
    } else if (c === "[" || c === "{") {
      node = this.flow(q)
      end = node.range[1]
    } else {
      if (NOT_PLAIN_START.has(c) || (c === "-" && this.blank(q + 1))) bail()
      end = this.plainLine(q)
      // Lines indented deeper than the collection continue the scalar (unless a comment ended it).
      let multi = false
      for (let next = this.continuation(end, parentIndent); next >= 0; next = this.continuation(end, parentIndent)) {
        end = this.plainLine(next)
        multi = true
      }
      node = scalar(q, end, multi ? foldPlain(t.slice(q, end)) : resolvePlain(t.slice(q, end)))
    }
    this.finishLine(end)
    this.tail = "attach"
    return node
  }

  /**
   * Ends the collection at column `col` whose last value has just been parsed (the parser is at the
   * next content line or the end); returns the collection's value end and leaves its node end in
   * `lastEnd`, both as the package computes them from the comment lines in between: a comment
   * indented deeper than `col` right after a scalar is part of that scalar; the others stay in the
   * innermost collection (not at column 0) they are indented at least as deep as, else in none.
   */
  private end(col: number): number {
    const t = this.t
    let end = this.lastEnd
    let gap = this.gap
    if (this.tail !== "collection") {
      const indents: Array<number> = []
      let attaching = this.tail === "attach"
      for (let p = end; p < this.pos;) {
        let i = p
        while (t[i] === " ") i++
        const nl = t.indexOf("\n", i)
        const next = nl < 0 ? t.length : nl + 1
        if (t[i] === "#") {
          if (this.tail === "null") bail()
          if (attaching && i - p > col) end = next
          else {
            attaching = false
            indents.push(i - p)
          }
        }
        p = next
      }
      let contentAt = this.pos
      while (t[contentAt] === " ") contentAt++
      gap = indents.length === 0 ? undefined : { indents, end: contentAt }
    }
    this.tail = "collection"
    this.lastEnd = end
    this.gap = undefined
    if (gap === undefined) return end
    if (col > 0 && gap.indents.some((n) => n >= col)) this.lastEnd = gap.end
    else this.gap = gap
    return end
  }

  /** The end of the plain scalar text on the line from `i` (before a comment or trailing spaces). */
  private plainLine(i: number): number {
    const t = this.t
    let end = i
    for (; i < t.length && t[i] !== "\n"; i++) {
      if (t[i] === "#" && t[i - 1] === " ") break
      if (t[i] === ":" && this.blank(i + 1)) bail()
      if (t[i] !== " ") end = i + 1
    }
    return end
  }

  /**
   * Where a plain scalar ending at `end` continues: the first character of the next non-blank line
   * when that line is indented deeper than `parentIndent`, else -1. A line that could be read as
   * anything but text (an indicator first, a comment on the scalar's last line) bails.
   */
  private continuation(end: number, parentIndent: number): number {
    const t = this.t
    let i = end
    while (t[i] === " ") i++
    if (t[i] !== "\n") return -1
    for (;;) {
      const lineStart = ++i
      while (t[i] === " ") i++
      if (i >= t.length) return -1
      if (t[i] === "\n") continue
      if (i - lineStart <= parentIndent || t[i] === "#") return -1
      if (parentIndent < 0 || NOT_PLAIN_START.has(t[i]!) || t[i] === "-") bail()
      return i
    }
  }

  /** A flow collection closed on the line it opens. */
  private flow(start: number): YMap | YSeq {
    const t = this.t
    const close = t[start] === "[" ? "]" : "}"
    const items: Array<YNode> = []
    const pairs: Array<YPair> = []
    const seen = new Set<string>()
    if (++this.depth > MAX_DEPTH) bail()
    let i = start + 1
    while (t[i] === " ") i++
    if (t[i] !== close) {
      for (;;) {
        if (close === "}") {
          const key = this.flowValue(i)
          if (key.kind !== "scalar") return bail()
          i = key.range[1]
          if (t[i] !== ":" || t[i + 1] !== " ") bail()
          admitKey(key, seen)
          i += 2
          while (t[i] === " ") i++
          if (t[i] === "," || t[i] === "}") bail()
          const value = this.flowValue(i)
          pairs.push({ key, value })
          i = value.range[1]
        } else {
          const item = this.flowValue(i)
          items.push(item)
          i = item.range[1]
        }
        while (t[i] === " ") i++
        if (t[i] === close) break
        if (t[i] !== ",") bail()
        i++
        while (t[i] === " ") i++
        if (t[i] === close) bail()
      }
    }
    this.depth--
    const range = [start, i + 1] as const
    return close === "]" ? { kind: "seq", range, items } : { kind: "map", range, items: pairs }
  }

  private flowValue(i: number): YNode {
    const t = this.t
    const c = t[i]
    if (c === undefined) return bail()
    if (c === "[" || c === "{") return this.flow(i)
    if (c === "\"" || c === "'") {
      const s = quoted(t, i)
      return scalar(i, s.end, s.value)
    }
    if (NOT_PLAIN_START.has(c) || (c === "-" && (this.blank(i + 1) || FLOW_STOP.has(t[i + 1]!)))) bail()
    let end = i
    for (let j = i; j < t.length && !FLOW_STOP.has(t[j]!); j++) {
      if (t[j] === "#" && t[j - 1] === " ") bail()
      if (t[j] === ":" && (this.blank(j + 1) || FLOW_STOP.has(t[j + 1]!))) break
      if (t[j] !== " ") end = j + 1
    }
    return scalar(i, end, resolvePlain(t.slice(i, end)))
  }
}

/**
 * The document's root node (null for an empty document), or undefined when the text is outside the
 * native subset and must go to the package.
 */
export const parseNative = (text: string): { readonly root: YNode | null } | undefined => {
  if (REJECT.test(text)) return undefined
  const parser = new Parser(text)
  try {
    const indent = parser.nextContentLine()
    if (indent < 0) return { root: null }
    const root = parser.block(parser.pos + indent, indent, -1)
    if (parser.nextContentLine() >= 0) return undefined
    return { root }
  } catch {
    // A bail, or anything unforeseen (such as a stack overflow on deep nesting): the package decides.
    return undefined
  }
}
