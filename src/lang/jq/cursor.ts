// The parser's position in the token list, and the checks it makes on the next tokens.
import { type Token, Unsupported } from "./lexer.ts"

export const unsupported = (why: string): never => {
  throw new Unsupported(why)
}

export class Cursor {
  protected at = 0
  /** `as` is not allowed directly in an object's value (jq 1.8 rejects `{a: . as $x | $x}`). */
  protected asAllowed = true

  constructor(protected readonly tokens: ReadonlyArray<Token>) {}

  protected get peek(): Token {
    return this.tokens[this.at]!
  }

  protected isOp(op: string, offset = 0): boolean {
    const token = this.tokens[this.at + offset]
    return token !== undefined && token.t === "op" && token.op === op
  }

  protected isIdent(name: string): boolean {
    const token = this.peek
    return token.t === "ident" && token.name === name
  }

  protected expectOp(op: string): void {
    if (!this.isOp(op)) unsupported(`expected ${op}`)
    this.at++
  }

  protected expectIdent(name: string): void {
    if (!this.isIdent(name)) unsupported(`expected ${name}`)
    this.at++
  }

  /** Runs `f` inside brackets, where `as` is allowed again. */
  protected nested<A>(f: () => A): A {
    const saved = this.asAllowed
    this.asAllowed = true
    try {
      return f()
    } finally {
      this.asAllowed = saved
    }
  }
}
