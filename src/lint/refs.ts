// Which declared inputs and step ids a template or a jq filter refers to, for `lait lint`'s
// undeclared-input (error) and unknown-step (warning) checks. Templates are read from Handlebars' own
// parse tree, so comments, raw blocks and string literals never count, and paths inside `#each` /
// `#with` bodies (which resolve against the current item, not the root) are left alone unless they
// climb back to the root with `../` or `@root`. jq has no parse tree here (jq-wasm exposes none), so
// filters are scanned token by token: string literals are skipped except for their `\(...)`
// interpolations, `#` comments are skipped, and only `$inputs` / `$steps` followed by a field access
// count.
import { parseTemplate, positionOffset } from "./templateTree.ts"

export type RefRoot = "inputs" | "steps"

export interface Reference {
  readonly root: RefRoot
  /** The input name or step id. */
  readonly name: string
  /** The reference as written (`inputs.lang`, `$steps["a-b"]`), to find it in the YAML source. */
  readonly text: string
}

const uniqueByRootAndName = (refs: ReadonlyArray<Reference>): ReadonlyArray<Reference> => {
  const seen = new Set<string>()
  return refs.filter((r) => {
    const key = `${r.root}\u0000${r.name}`
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
}

// ---------------------------------------------------------------------------------------------------
// Templates

type Node = hbs.AST.Node

/** Helpers whose block body runs with a new context (`this` is the item / the value). */
const CONTEXT_CHANGING = new Set(["each", "with"])

const rootOf = (first: string | undefined): RefRoot | undefined =>
  first === "inputs" ? "inputs" : first === "steps" ? "steps" : undefined

/**
 * The `inputs.<name>` / `steps.<id>` references of a template, in order of appearance, each name once
 * per root. A template that does not parse has none (the loader reports its syntax).
 */
export const templateReferences = (source: string): ReadonlyArray<Reference> => {
  const program = parseTemplate(source)
  if (program === undefined) return []
  const found: Array<Reference> = []
  const offset = positionOffset(source)
  // As written (`inputs.[my-name]`), which Handlebars' `original` normalises away.
  const written = (p: hbs.AST.PathExpression): string => {
    const from = offset(p.loc.start)
    const to = offset(p.loc.end)
    return to > from ? source.slice(from, to) : p.original
  }

  const path = (p: hbs.AST.PathExpression, scopes: number): void => {
    let parts: ReadonlyArray<string>
    if (p.data) {
      // `@root.inputs.x` is the root whatever the nesting.
      if (p.parts[0] !== "root") return
      parts = p.parts.slice(1)
    } else {
      // `../` counts context-changing blocks only; landing on the root is depth == enclosing scopes.
      if (p.depth !== scopes) return
      parts = p.parts
    }
    const root = rootOf(parts[0])
    const name = parts[1]
    if (root !== undefined && name !== undefined && name !== "") found.push({ root, name, text: written(p) })
  }

  const expression = (node: Node | undefined, scopes: number): void => {
    if (node === undefined || node === null) return
    switch (node.type) {
      case "PathExpression":
        path(node as hbs.AST.PathExpression, scopes)
        return
      case "SubExpression": {
        const sub = node as hbs.AST.SubExpression
        call(sub.path, sub.params, sub.hash, scopes)
        return
      }
      default:
        return
    }
  }

  const call = (
    callee: Node,
    params: ReadonlyArray<Node>,
    hash: hbs.AST.Hash | undefined,
    scopes: number
  ): void => {
    // A bare `{{inputs.x}}` is a path in callee position; `{{json inputs.x}}` has it as a param.
    expression(callee, scopes)
    for (const param of params) expression(param, scopes)
    for (const pair of hash?.pairs ?? []) expression(pair.value, scopes)
  }

  const statements = (body: ReadonlyArray<Node>, scopes: number): void => {
    for (const node of body) statement(node, scopes)
  }

  const statement = (node: Node, scopes: number): void => {
    switch (node.type) {
      case "MustacheStatement": {
        const m = node as hbs.AST.MustacheStatement
        call(m.path, m.params, m.hash, scopes)
        return
      }
      case "BlockStatement": {
        const b = node as hbs.AST.BlockStatement
        call(b.path, b.params, b.hash, scopes)
        const name = b.path.type === "PathExpression" ? (b.path as hbs.AST.PathExpression).original : ""
        const inner = CONTEXT_CHANGING.has(name) ? scopes + 1 : scopes
        if (b.program !== undefined && b.program !== null) statements(b.program.body, inner)
        // `{{else}}` of `#each`/`#with` runs in the enclosing context.
        if (b.inverse !== undefined && b.inverse !== null) statements(b.inverse.body, scopes)
        return
      }
      default:
        return
    }
  }

  statements(program.body, 0)
  return uniqueByRootAndName(found)
}

// ---------------------------------------------------------------------------------------------------
// jq

const IDENT_START = /[A-Za-z_]/
const IDENT = /^[A-Za-z_][A-Za-z0-9_]*/

/** A jq string literal starting at `start` (the opening quote): its value when it has no interpolation. */
const jqStringAt = (s: string, start: number): { readonly value: string | undefined; readonly end: number } => {
  let i = start + 1
  let raw = ""
  let interpolated = false
  while (i < s.length) {
    const c = s[i]!
    if (c === "\\") {
      if (s[i + 1] === "(") {
        // Skip a balanced interpolation; the key is then not a constant.
        interpolated = true
        let depth = 0
        i += 2
        while (i < s.length) {
          if (s[i] === "(") depth++
          else if (s[i] === ")") {
            if (depth === 0) break
            depth--
          }
          i++
        }
        i++
        continue
      }
      raw += s.slice(i, i + 2)
      i += 2
      continue
    }
    if (c === "\"") {
      if (interpolated) return { value: undefined, end: i + 1 }
      try {
        return { value: JSON.parse(`"${raw}"`) as string, end: i + 1 }
      } catch {
        return { value: undefined, end: i + 1 }
      }
    }
    raw += c
    i++
  }
  return { value: undefined, end: s.length }
}

/** The field access right after `$inputs`/`$steps` at `i`: `.name`, `."name"`, `["name"]`, `.["name"]`. */
const fieldAfter = (s: string, i: number): { readonly name: string; readonly end: number } | undefined => {
  let j = i
  if (s[j] === ".") {
    j++
    const ident = IDENT.exec(s.slice(j))
    if (ident !== null) return { name: ident[0], end: j + ident[0].length }
    if (s[j] === "\"") {
      const str = jqStringAt(s, j)
      return str.value === undefined ? undefined : { name: str.value, end: str.end }
    }
  }
  if (s[j] === "[" && s[j + 1] === "\"") {
    const str = jqStringAt(s, j + 1)
    if (str.value !== undefined && s[str.end] === "]") return { name: str.value, end: str.end + 1 }
  }
  return undefined
}

type Frame = { readonly kind: "code"; parens: number; readonly interpolation: boolean } | { readonly kind: "string" }

/** The `$inputs.<name>` / `$steps.<id>` references of a jq filter, in order, each name once per root. */
export const jqReferences = (filter: string): ReadonlyArray<Reference> => {
  const s = filter
  const found: Array<Reference> = []
  const stack: Array<Frame> = [{ kind: "code", parens: 0, interpolation: false }]
  let i = 0
  while (i < s.length) {
    const top = stack[stack.length - 1]!
    const c = s[i]!
    if (top.kind === "string") {
      if (c === "\\") {
        if (s[i + 1] === "(") {
          stack.push({ kind: "code", parens: 0, interpolation: true })
          i += 2
        } else {
          i += 2
        }
        continue
      }
      if (c === "\"") stack.pop()
      i++
      continue
    }
    if (c === "\"") {
      stack.push({ kind: "string" })
      i++
      continue
    }
    if (c === "#") {
      const newline = s.indexOf("\n", i)
      i = newline < 0 ? s.length : newline + 1
      continue
    }
    if (c === "(") {
      top.parens++
      i++
      continue
    }
    if (c === ")") {
      if (top.interpolation && top.parens === 0) stack.pop()
      else top.parens = Math.max(0, top.parens - 1)
      i++
      continue
    }
    if (c === "$" && IDENT_START.test(s[i + 1] ?? "")) {
      const ident = IDENT.exec(s.slice(i + 1))![0]
      const after = i + 1 + ident.length
      const root = rootOf(ident)
      // `$inputs::x` would be a module variable, not our global.
      if (root !== undefined && s[after] !== ":") {
        const field = fieldAfter(s, after)
        if (field !== undefined) {
          found.push({ root, name: field.name, text: s.slice(i, field.end) })
          i = field.end
          continue
        }
      }
      i = after
      continue
    }
    i++
  }
  return uniqueByRootAndName(found)
}
