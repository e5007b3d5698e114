// A parser for the jq subset the native evaluator runs. It must never accept a filter jq rejects:
// whatever it is unsure about (jq 1.8 grammar corners, unknown functions, unbound variables) throws
// Unsupported, and the filter goes to jq-wasm unchanged.
import { constant, type Node } from "./ast.ts"
import { hasBuiltin } from "./builtins.ts"
import { Cursor, unsupported } from "./cursor.ts"
import { type Token, tokenize, Unsupported } from "./lexer.ts"

export { type Node, Unsupported }

const KEYWORDS = new Set([
  "def", "if", "then", "elif", "else", "end", "as", "reduce", "foreach", "try", "catch", "label", "import",
  "include", "and", "or", "__loc__"
])
const FORMATS = new Set(["text", "json", "base64", "html", "uri", "csv", "tsv", "sh"])
const COMPARISONS = new Set(["==", "!=", "<", "<=", ">", ">="])
const IDENTITY: Node = { k: "id" }

class Parser extends Cursor {
  /** A term `binding` has read ahead: the next operand. */
  private pending: Node | undefined

  constructor(tokens: ReadonlyArray<Token>, private readonly scope: ReadonlyArray<string>) {
    super(tokens)
  }

  parseAll(): Node {
    const node = this.pipe(false)
    if (this.peek.t !== "eof") unsupported("trailing tokens")
    return node
  }

  private withScope<A>(names: ReadonlyArray<string>, f: (p: Parser) => A): A {
    const inner = new Parser(this.tokens, [...this.scope, ...names])
    inner.at = this.at
    const result = f(inner)
    this.at = inner.at
    return result
  }

  pipe(noComma: boolean): Node {
    const binding = this.binding()
    if (binding !== undefined) return binding
    const left = noComma ? this.alt() : this.comma()
    if (!this.isOp("|")) return left
    this.at++
    return { k: "pipe", left, right: this.pipe(noComma) }
  }

  /** `operand (SEPARATOR operand)*`, grouped to the left: `a, b, c` is `(a, b), c`. */
  private leftChain(k: "comma" | "or" | "and", separator: () => boolean, operand: () => Node): Node {
    let left = operand()
    while (separator()) {
      this.at++
      left = { k, left, right: operand() }
    }
    return left
  }

  private comma(): Node {
    return this.leftChain("comma", () => this.isOp(","), () => this.alt())
  }

  private alt(): Node {
    const left = this.or()
    if (!this.isOp("//")) return left
    this.at++
    return { k: "alt", left, right: this.alt() }
  }

  private or(): Node {
    return this.leftChain("or", () => this.isIdent("or"), () => this.and())
  }

  private and(): Node {
    return this.leftChain("and", () => this.isIdent("and"), () => this.comparison())
  }

  private comparison(): Node {
    const left = this.additive()
    const token = this.peek
    if (token.t !== "op" || !COMPARISONS.has(token.op)) return left
    this.at++
    const node: Node = { k: "bin", op: token.op, left, right: this.additive() }
    const next = this.peek
    if (next.t === "op" && COMPARISONS.has(next.op)) unsupported("chained comparison")
    return node
  }

  private additive(): Node {
    let left = this.additiveOperand()
    for (;;) {
      const token = this.peek
      if (token.t !== "op" || (token.op !== "+" && token.op !== "-")) return left
      this.at++
      left = { k: "bin", op: token.op, left, right: this.additiveOperand() }
    }
  }

  // yacc gives jq's prefix `-` the precedence of binary `-`: it takes in `*`, `/` and `%`, not `+`.
  private additiveOperand(): Node {
    if (this.pending !== undefined || !this.isOp("-")) return this.multiplicative()
    this.at++
    this.notLiteralWord()
    return { k: "neg", body: this.multiplicative() }
  }

  // jq rejects `-true`, `-false` and `-null` when it compiles them (`-(true)` fails only when run).
  private notLiteralWord(): void {
    const token = this.peek
    if (token.t === "ident" && ["true", "false", "null"].includes(token.name)) unsupported("negated literal")
  }

  private multiplicative(): Node {
    let left = this.postfix()
    for (;;) {
      const token = this.peek
      if (token.t !== "op" || (token.op !== "*" && token.op !== "/" && token.op !== "%")) return left
      this.at++
      const right: Node = this.isOp("-")
        ? (this.at++, this.notLiteralWord(), { k: "neg", body: this.multiplicative() })
        : this.postfix()
      left = { k: "bin", op: token.op, left, right }
    }
  }

  private postfix(): Node {
    const pending = this.pending
    if (pending !== undefined) {
      this.pending = undefined
      return pending
    }
    const start = this.peek
    let node = this.primary()
    // Whether `node` is an index just read: a `?` then makes that index optional, not a `try`.
    let fresh = node.k === "index" && start.t === "op" && start.op === "."
    const closed = start.t === "ident" && ["if", "try", "reduce", "foreach"].includes(start.name)
    for (;;) {
      const token = this.peek
      const postfixNext = token.t === "field" || this.isOp("[") || this.isOp("?") ||
        (this.isOp(".") && (this.tokens[this.at + 1]?.t === "str" || this.isOp("[", 1)))
      if (closed && postfixNext) unsupported("postfix after a keyword term")
      if (token.t === "field") {
        this.at++
        node = { k: "index", target: node, key: { k: "lit", v: token.name } }
        fresh = true
      } else if (this.isOp(".") && this.tokens[this.at + 1]?.t === "str") {
        this.at++
        node = { k: "index", target: node, key: this.primary() }
        fresh = true
      } else if (this.isOp("[") || (this.isOp(".") && this.isOp("[", 1))) {
        if (this.isOp(".")) this.at++
        node = this.bracket(node)
        fresh = true
      } else if (this.isOp("?")) {
        this.at++
        if (fresh && (node.k === "index" || node.k === "slice" || node.k === "each")) node = { ...node, opt: true }
        else if (node === IDENTITY || node.k === "index" || node.k === "slice" || node.k === "each") {
          unsupported("? here")
        } else node = { k: "try", body: node, handler: null }
        fresh = false
      } else break
    }
    return node
  }

  // `Term as $x | body`, accepted only where the term starts a pipe: jq 1.8 also binds the result of
  // a larger expression (`1 + . as $x | …` binds `1 + .`), which is left to jq-wasm. Otherwise the
  // term is kept as the first operand of the expression that follows.
  private binding(): Node | undefined {
    if (this.isOp("-")) return undefined
    const source = this.postfix()
    if (!this.isIdent("as")) {
      this.pending = source
      return undefined
    }
    if (!this.asAllowed) unsupported("as in an object value")
    this.at++
    const name = this.bindName()
    this.expectOp("|")
    return this.withScope([name], (p) => ({ k: "as", source, name, body: p.pipe(false) }))
  }

  private bindName(): string {
    const token = this.peek
    if (token.t !== "var" || KEYWORDS.has(token.name)) return unsupported("destructuring")
    this.at++
    return token.name
  }

  private bracket(target: Node): Node {
    this.expectOp("[")
    if (this.isOp("]")) {
      this.at++
      return { k: "each", target }
    }
    return this.nested(() => {
      if (this.isOp(":")) {
        this.at++
        const to = this.pipe(false)
        this.expectOp("]")
        return { k: "slice", target, from: null, to }
      }
      const key = this.pipe(false)
      if (this.isOp(":")) {
        this.at++
        const to = this.isOp("]") ? null : this.pipe(false)
        this.expectOp("]")
        return { k: "slice", target, from: key, to }
      }
      this.expectOp("]")
      return { k: "index", target, key }
    })
  }

  private primary(): Node {
    const token = this.peek
    switch (token.t) {
      case "num":
        this.at++
        return { k: "lit", v: token.value }
      case "str":
        this.at++
        return this.string(token.parts)
      case "field":
        return IDENTITY // the postfix loop reads the field
      case "format":
        this.at++
        if (!FORMATS.has(token.name) || this.peek.t === "str") unsupported("format")
        return { k: "fmt", name: token.name }
      case "var":
        this.at++
        if (!this.scope.includes(token.name)) unsupported(`unbound $${token.name}`)
        return { k: "var", name: token.name }
      case "ident":
        return this.word(token.name)
      case "eof":
        return unsupported("unexpected end")
      case "op":
        break
    }
    if (this.isOp(".")) {
      this.at++
      const next = this.peek
      if (next.t === "str") {
        this.at++
        return { k: "index", target: IDENTITY, key: this.string(next.parts) }
      }
      return IDENTITY // `.[` is read by the postfix loop from here
    }
    if (this.isOp("..")) {
      this.at++
      return { k: "call", name: "recurse", args: [] }
    }
    if (this.isOp("(")) {
      this.at++
      const body = this.nested(() => this.pipe(false))
      this.expectOp(")")
      return body
    }
    if (this.isOp("[")) {
      this.at++
      if (this.isOp("]")) {
        this.at++
        return { k: "array", body: null }
      }
      const body = this.nested(() => this.pipe(false))
      this.expectOp("]")
      return { k: "array", body }
    }
    if (this.isOp("{")) {
      this.at++
      return this.nested(() => this.object())
    }
    return unsupported("unexpected token")
  }

  private string(parts: ReadonlyArray<string | ReadonlyArray<Token>>): Node {
    if (parts.length === 1) return { k: "lit", v: parts[0] as string }
    // As jq compiles it: `"a\(x)b"` is `"a" + (x | tojson-unless-string) + "b"`, so the last
    // interpolation's outputs form the outer loop.
    let node: Node = { k: "lit", v: "" }
    for (const part of parts) {
      const right: Node = typeof part === "string"
        ? { k: "lit", v: part }
        : { k: "interp", body: new Parser(part, this.scope).parseAll() }
      node = { k: "bin", op: "+", left: node, right }
    }
    return node
  }

  private word(name: string): Node {
    this.at++
    switch (name) {
      case "true":
      case "false":
      case "null":
        if (this.isOp("(")) unsupported("call of a literal")
        return { k: "lit", v: name === "null" ? null : name === "true" }
      case "if":
        return this.conditional()
      case "try": {
        const body = this.postfix()
        let handler: Node | null = null
        if (this.isIdent("catch")) {
          this.at++
          handler = this.postfix()
        }
        if (this.isIdent("as")) unsupported("as after try")
        return { k: "try", body, handler }
      }
      case "reduce":
      case "foreach":
        return this.fold(name)
    }
    if (KEYWORDS.has(name)) unsupported(`keyword ${name}`)
    const args: Array<Node> = []
    if (this.isOp("(")) {
      this.at++
      this.nested(() => {
        for (;;) {
          args.push(this.pipe(false))
          if (this.isOp(";")) {
            this.at++
            continue
          }
          this.expectOp(")")
          return
        }
      })
    }
    if (!hasBuiltin(name, args.length)) unsupported(`function ${name}/${args.length}`)
    return { k: "call", name, args }
  }

  private conditional(): Node {
    const cond = this.nested(() => this.pipe(false))
    this.expectIdent("then")
    const then = this.nested(() => this.pipe(false))
    let otherwise: Node = IDENTITY
    if (this.isIdent("elif")) {
      this.at++
      return { k: "if", cond, yes: then, no: this.conditional() }
    }
    if (this.isIdent("else")) {
      this.at++
      otherwise = this.nested(() => this.pipe(false))
    }
    this.expectIdent("end")
    return { k: "if", cond, yes: then, no: otherwise }
  }

  private fold(kind: "reduce" | "foreach"): Node {
    const source = this.postfix()
    this.expectIdent("as")
    const name = this.bindName()
    this.expectOp("(")
    return this.nested(() => {
      const init = this.pipe(false)
      this.expectOp(";")
      return this.withScope([name], (p) => {
        const update = p.pipe(false)
        let extract: Node | null = null
        if (kind === "foreach" && p.isOp(";")) {
          p.at++
          extract = p.pipe(false)
        }
        p.expectOp(")")
        return kind === "reduce"
          ? { k: "reduce", source, name, init, update }
          : { k: "foreach", source, name, init, update, extract }
      })
    })
  }

  private object(): Node {
    const entries: Array<{ key: Node; value: Node }> = []
    if (this.isOp("}")) {
      this.at++
      return { k: "object", entries }
    }
    for (;;) {
      entries.push(this.entry())
      if (this.isOp(",")) {
        this.at++
        continue
      }
      this.expectOp("}")
      return { k: "object", entries }
    }
  }

  private entry(): { key: Node; value: Node } {
    const token = this.peek
    let key: Node
    let shorthand: Node | undefined
    if (token.t === "ident") {
      this.at++
      key = { k: "lit", v: token.name }
      const plainName = !KEYWORDS.has(token.name) && !["true", "false", "null"].includes(token.name)
      if (plainName) shorthand = { k: "index", target: IDENTITY, key }
    } else if (token.t === "var") {
      this.at++
      if (!this.scope.includes(token.name) || this.isOp(":")) unsupported("object variable key")
      return { key: { k: "lit", v: token.name }, value: { k: "var", name: token.name } }
    } else if (token.t === "str") {
      this.at++
      key = this.string(token.parts)
      if (key.k === "lit") shorthand = { k: "index", target: IDENTITY, key }
    } else if (this.isOp("(")) {
      this.at++
      key = this.pipe(false)
      this.expectOp(")")
      if (!this.isOp(":")) unsupported("computed key without value")
      // jq folds a constant key when it compiles, and rejects one that is not a string
      if (constant(key) && !(key.k === "lit" && typeof key.v === "string")) unsupported("constant key")
    } else return unsupported("object key")
    if (!this.isOp(":")) {
      if (shorthand === undefined) unsupported("object shorthand")
      return { key, value: shorthand! }
    }
    this.at++
    this.asAllowed = false
    const value = this.pipe(true)
    this.asAllowed = true
    return { key, value }
  }
}

/** The filter's syntax tree, or Unsupported when it uses anything outside the subset. */
export const parseFilter = (filter: string, globals: ReadonlyArray<string>): Node | Unsupported => {
  try {
    return new Parser(tokenize(filter).tokens, globals).parseAll()
  } catch (e) {
    if (e instanceof Unsupported) return e
    if (e instanceof RangeError) return new Unsupported("too deep") // the call stack, on absurd nesting
    throw e
  }
}
