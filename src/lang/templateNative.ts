// A native renderer for the templates most workflows use, so that they do not pay for loading Handlebars
// and compiling each template to JavaScript. It accepts a strict subset and renders it exactly as the
// Handlebars path of template.ts would; for anything else it answers `undefined` and Handlebars decides:
//
// - text without `\{{` (escapes) or NUL characters;
// - `{{path}}`, `{{text path}}`, `{{json path}}`, `{{shq path}}` with spaces only around the parts;
// - `{{#if path}}`, `{{#unless path}}`, `{{#each path}}` with an optional `{{else}}`, closed by name;
// - a path is `this`, `this.a.b`, `a.b` (identifiers) or one of `@index`, `@key`, `@first`, `@last`.
//
// Partials, comments, `~`, `{{{`, `{{&`, `../`, `@root`, `[…]`, literals, hashes, subexpressions,
// block parameters, other helpers, tabs or newlines inside `{{…}}` are all left to Handlebars.
//
// Rendering falls back too (returns undefined) whenever the native walk meets anything it is not sure
// to treat as Handlebars would: a missing value where one is required (so the error message is
// Handlebars' own), a lookup on anything but a plain object, a name on Object.prototype, a value
// that is not JSON-like. Standalone lines (a block tag alone on its line loses the line) follow
// Handlebars' WhitespaceControl step by step, on the same node structure.
import { type Json, textForm } from "../core/json.ts"

type DataName = "index" | "key" | "first" | "last"

/** `data` set: `@name`; else segments after an optional `this` (none: the context itself). */
interface Path {
  readonly data?: DataName
  readonly segments: ReadonlyArray<string>
}

interface Content {
  readonly kind: "content"
  readonly original: string
  value: string
  leftStripped: boolean
  rightStripped: boolean
}

interface Value {
  readonly kind: "value"
  readonly helper: "text" | "json" | "shq"
  readonly path: Path
}

interface Block {
  readonly kind: "block"
  readonly helper: "if" | "unless" | "each"
  readonly path: Path
  readonly program: Array<Node>
  inverse: Array<Node> | undefined
}

type Node = Content | Value | Block

// ---------------------------------------------------------------------------------------------------
// Parsing

const SEGMENT = /[A-Za-z_][A-Za-z0-9_-]*/y
const RESERVED = new Set(["true", "false", "null", "undefined", "else", "this", "as"])
const DATA_NAMES = new Set<string>(["index", "key", "first", "last"])
const VALUE_HELPERS = new Set<string>(["text", "json", "shq"])
const BLOCK_HELPERS = new Set<string>(["if", "unless", "each"])

class Cursor {
  index = 0
  constructor(readonly source: string) {}

  spaces(): number {
    const start = this.index
    while (this.source.charCodeAt(this.index) === 32) this.index++
    return this.index - start
  }

  literal(text: string): boolean {
    if (!this.source.startsWith(text, this.index)) return false
    this.index += text.length
    return true
  }

  segment(): string | undefined {
    SEGMENT.lastIndex = this.index
    const match = SEGMENT.exec(this.source)
    if (match === null) return undefined
    this.index += match[0].length
    return match[0]
  }

  /** A path, ending before a space or `}}`; undefined when it is not one of the subset's. */
  path(): { readonly path: Path; readonly bare: string | undefined } | undefined {
    if (this.literal("@")) {
      const name = this.segment()
      return name !== undefined && DATA_NAMES.has(name) && this.pathEnds()
        ? { path: { data: name as DataName, segments: [] }, bare: undefined }
        : undefined
    }
    const first = this.segment()
    if (first === undefined) return undefined
    const segments: Array<string> = []
    const scoped = first === "this"
    if (!scoped) {
      if (RESERVED.has(first)) return undefined
      segments.push(first)
    }
    while (this.literal(".")) {
      const next = this.segment()
      if (next === undefined || RESERVED.has(next)) return undefined
      segments.push(next)
    }
    if (!this.pathEnds()) return undefined
    return { path: { segments }, bare: scoped || segments.length !== 1 ? undefined : first }
  }

  private pathEnds(): boolean {
    const next = this.source.charCodeAt(this.index)
    return next === 32 || this.source.startsWith("}}", this.index)
  }

  /** Spaces then `}}`, not followed by a third `}` (Handlebars would read `}}}`). */
  close(): boolean {
    this.spaces()
    return this.literal("}}") && this.source.charCodeAt(this.index) !== 125
  }
}

interface Open {
  readonly block: Block
  inElse: boolean
}

const content = (text: string): Content => ({
  kind: "content",
  original: text,
  value: text,
  leftStripped: false,
  rightStripped: false
})

/** The template's nodes, whitespace control applied; undefined when it is outside the subset. */
const parse = (source: string): Array<Node> | undefined => {
  if (source.includes("\0")) return undefined
  const root: Array<Node> = []
  const open: Array<Open> = []
  const body = (): Array<Node> => {
    const top = open[open.length - 1]
    if (top === undefined) return root
    return top.inElse ? top.block.inverse! : top.block.program
  }
  const cursor = new Cursor(source)
  while (cursor.index < source.length) {
    const at = source.indexOf("{{", cursor.index)
    const end = at === -1 ? source.length : at
    if (end > cursor.index) {
      const text = source.slice(cursor.index, end)
      if (at !== -1 && text.endsWith("\\")) return undefined
      body().push(content(text))
    }
    if (at === -1) break
    cursor.index = at + 2
    if (cursor.literal("#")) {
      cursor.spaces()
      const helper = cursor.segment()
      if (helper === undefined || !BLOCK_HELPERS.has(helper) || cursor.spaces() === 0) return undefined
      const parsed = cursor.path()
      if (parsed === undefined || !cursor.close()) return undefined
      const block: Block = {
        kind: "block",
        helper: helper as Block["helper"],
        path: parsed.path,
        program: [],
        inverse: undefined
      }
      body().push(block)
      open.push({ block, inElse: false })
    } else if (cursor.literal("/")) {
      cursor.spaces()
      const name = cursor.segment()
      const top = open.pop()
      if (top === undefined || name !== top.block.helper || !cursor.close()) return undefined
    } else {
      cursor.spaces()
      const start = cursor.index
      if (cursor.literal("else") && cursor.close()) {
        const top = open[open.length - 1]
        if (top === undefined || top.inElse) return undefined
        top.inElse = true
        top.block.inverse = []
        continue
      }
      cursor.index = start
      const first = cursor.path()
      if (first === undefined) return undefined
      const afterPath = cursor.index
      if (cursor.close()) {
        body().push({ kind: "value", helper: "text", path: first.path })
        continue
      }
      cursor.index = afterPath
      if (first.bare === undefined || !VALUE_HELPERS.has(first.bare) || cursor.spaces() === 0) return undefined
      const argument = cursor.path()
      if (argument === undefined || !cursor.close()) return undefined
      body().push({ kind: "value", helper: first.bare as Value["helper"], path: argument.path })
    }
  }
  if (open.length > 0) return undefined
  whitespaceProgram(root, true)
  return root
}

// ---------------------------------------------------------------------------------------------------
// Standalone lines: Handlebars' WhitespaceControl without `~` (never accepted here) and without
// partials and comments. The regular expressions are Handlebars' own.

const isPrevWhitespace = (body: ReadonlyArray<Node>, i: number = body.length, isRoot?: boolean): boolean => {
  const prev = body[i - 1]
  const sibling = body[i - 2]
  if (prev === undefined) return isRoot === true
  if (prev.kind !== "content") return false
  return (sibling !== undefined || !isRoot ? /(?:^|\S)[^\S\n]*\n\s*$/ : /^\s*$|(?:^|\S)[^\S\n]*\n\s*$/).test(
    prev.original
  )
}

const isNextWhitespace = (body: ReadonlyArray<Node>, i: number = -1, isRoot?: boolean): boolean => {
  const next = body[i + 1]
  const sibling = body[i + 2]
  if (next === undefined) return isRoot === true
  if (next.kind !== "content") return false
  return (sibling !== undefined || !isRoot ? /^\s*?\r?\n/ : /^\s*?(\r?\n|$)/).test(next.original)
}

/** Strips the next node's leading spaces and first line break (i undefined: the first node). */
const omitRight = (body: ReadonlyArray<Node>, i?: number): void => {
  const current = body[i === undefined ? 0 : i + 1]
  if (current === undefined || current.kind !== "content" || current.rightStripped) return
  const original = current.value
  current.value = current.value.replace(/^[ \t]*\r?\n?/, "")
  current.rightStripped = current.value !== original
}

/** Strips the previous node's trailing spaces and tabs (i undefined: the last node). */
const omitLeft = (body: ReadonlyArray<Node>, i?: number): void => {
  const current = body[i === undefined ? body.length - 1 : i - 1]
  if (current === undefined || current.kind !== "content" || current.leftStripped) return
  const original = current.value
  current.value = current.value.replace(/(^|[^ \t])[ \t]+$/, "$1")
  current.leftStripped = current.value !== original
}

const whitespaceProgram = (body: Array<Node>, isRoot: boolean): void => {
  for (let i = 0; i < body.length; i++) {
    const current = body[i]!
    if (current.kind !== "block") continue
    const strip = whitespaceBlock(current)
    const openStandalone = strip.openStandalone && isPrevWhitespace(body, i, isRoot)
    const closeStandalone = strip.closeStandalone && isNextWhitespace(body, i, isRoot)
    if (openStandalone) {
      omitRight(current.program)
      omitLeft(body, i)
    }
    if (closeStandalone) {
      omitRight(body, i)
      omitLeft(current.inverse ?? current.program)
    }
  }
}

const whitespaceBlock = (block: Block): { readonly openStandalone: boolean; readonly closeStandalone: boolean } => {
  whitespaceProgram(block.program, false)
  if (block.inverse !== undefined) whitespaceProgram(block.inverse, false)
  const strip = {
    openStandalone: isNextWhitespace(block.program),
    closeStandalone: isPrevWhitespace(block.inverse ?? block.program)
  }
  if (block.inverse !== undefined && isPrevWhitespace(block.program) && isNextWhitespace(block.inverse)) {
    omitLeft(block.program)
    omitRight(block.inverse)
  }
  return strip
}

// ---------------------------------------------------------------------------------------------------
// Rendering

/** Thrown inside a native render that must be left to Handlebars; caught in renderNative. */
class Unsure {}
const unsure = new Unsure()

interface Frame {
  readonly index: number
  readonly key: string | number
  readonly first: boolean
  readonly last: boolean
}

const isPlainObject = (value: unknown): value is Record<string, unknown> => {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false
  const prototype = Object.getPrototypeOf(value)
  return prototype === Object.prototype || prototype === null
}

const member = (value: unknown, name: string): unknown => {
  if (!isPlainObject(value) || name in Object.prototype) throw unsure
  return Object.hasOwn(value, name) ? value[name] : undefined
}

/** What Handlebars' own lookups give (block arguments): a missing last member is undefined. */
const lookup = (path: Path, context: unknown, frame: Frame | undefined): unknown => {
  if (path.data !== undefined) return frame?.[path.data]
  let current = context
  for (const segment of path.segments) current = member(current, segment)
  if (typeof current === "function") throw unsure
  return current
}

const printValue = (node: Value, context: unknown, frame: Frame | undefined): string => {
  const value = lookup(node.path, context, frame)
  if (value === undefined) throw unsure
  const printed = node.helper === "json" ? JSON.stringify(value) : textForm(value as Json)
  if (typeof printed !== "string") throw unsure
  return node.helper === "shq" ? shellQuote(printed) : printed
}

/** Handlebars' `if`: falsy values and empty arrays are false (an empty object is true). */
const truthy = (value: unknown): boolean => !(!value || (Array.isArray(value) && value.length === 0))

interface Output {
  text: string
  readonly printed: Array<string> | undefined
}

const renderNodes = (
  nodes: ReadonlyArray<Node> | undefined,
  context: unknown,
  frame: Frame | undefined,
  out: Output
): void => {
  for (const node of nodes ?? []) {
    if (node.kind === "content") {
      out.text += node.value
    } else if (node.kind === "value") {
      const printed = printValue(node, context, frame)
      out.printed?.push(printed)
      out.text += printed
    } else if (node.helper === "each") {
      renderEach(node, lookup(node.path, context, frame), context, frame, out)
    } else {
      const chosen = truthy(lookup(node.path, context, frame)) === (node.helper === "if")
      renderNodes(chosen ? node.program : node.inverse, context, frame, out)
    }
  }
}

const renderEach = (node: Block, value: unknown, context: unknown, frame: Frame | undefined, out: Output) => {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      if (!(i in value)) throw unsure
      renderNodes(node.program, value[i], { index: i, key: i, first: i === 0, last: i === value.length - 1 }, out)
    }
    if (value.length > 0) return
  } else if (typeof value === "object" && value !== null) {
    if (!isPlainObject(value)) throw unsure
    const keys = Object.keys(value)
    keys.forEach((key, i) => {
      renderNodes(node.program, value[key], { index: i, key, first: i === 0, last: i === keys.length - 1 }, out)
    })
    if (keys.length > 0) return
  }
  renderNodes(node.inverse, context, frame, out)
}

/** POSIX single-quote quoting: inside '…' nothing is special, and a `'` is closed, escaped, reopened. */
export const shellQuote = (text: string): string => `'${text.replaceAll("'", "'\\''")}'`

const parsed = new Map<string, Array<Node> | null>()

const parsedTemplate = (source: string): Array<Node> | undefined => {
  let nodes = parsed.get(source)
  if (nodes === undefined) {
    nodes = parse(source) ?? null
    parsed.set(source, nodes)
  }
  return nodes ?? undefined
}

/** Whether the native renderer takes this template (then it also parses for Handlebars). */
export const nativeTemplate = (source: string): boolean => parsedTemplate(source) !== undefined

/**
 * The template rendered natively, with what each `{{…}}` printed when `printing`; undefined when the
 * template or this render is not certain to come out as Handlebars' would (Handlebars then renders).
 */
export const renderNative = (
  source: string,
  data: unknown,
  printing: boolean
): { readonly text: string; readonly printed: ReadonlyArray<string> } | undefined => {
  const nodes = parsedTemplate(source)
  if (nodes === undefined) return undefined
  const out: Output = { text: "", printed: printing ? [] : undefined }
  try {
    renderNodes(nodes, data, undefined, out)
  } catch {
    return undefined
  }
  return { text: out.text, printed: out.printed ?? [] }
}
