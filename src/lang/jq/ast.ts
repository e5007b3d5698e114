// The syntax tree of the native jq subset (parse.ts builds it, eval.ts runs it).
import type { Json } from "../../core/json.ts"

export type Node =
  | { readonly k: "id" }
  | { readonly k: "lit"; readonly v: Json }
  | { readonly k: "interp"; readonly body: Node }
  | { readonly k: "fmt"; readonly name: string }
  // `opt` (a `?` right after the index): values the index fails on are skipped, one by one
  | { readonly k: "index"; readonly target: Node; readonly key: Node; readonly opt?: boolean }
  | {
    readonly k: "slice"
    readonly target: Node
    readonly from: Node | null
    readonly to: Node | null
    readonly opt?: boolean
  }
  | { readonly k: "each"; readonly target: Node; readonly opt?: boolean }
  | { readonly k: "try"; readonly body: Node; readonly handler: Node | null }
  | { readonly k: "array"; readonly body: Node | null }
  | { readonly k: "object"; readonly entries: ReadonlyArray<{ readonly key: Node; readonly value: Node }> }
  | { readonly k: "neg"; readonly body: Node }
  | { readonly k: "pipe" | "comma" | "alt" | "and" | "or"; readonly left: Node; readonly right: Node }
  | { readonly k: "bin"; readonly op: string; readonly left: Node; readonly right: Node }
  | { readonly k: "if"; readonly cond: Node; readonly yes: Node; readonly no: Node }
  | { readonly k: "reduce"; readonly source: Node; readonly name: string; readonly init: Node; readonly update: Node }
  | {
    readonly k: "foreach"
    readonly source: Node
    readonly name: string
    readonly init: Node
    readonly update: Node
    readonly extract: Node | null
  }
  | { readonly k: "as"; readonly source: Node; readonly name: string; readonly body: Node }
  | { readonly k: "var"; readonly name: string }
  | { readonly k: "call"; readonly name: string; readonly args: ReadonlyArray<Node> }

/** Whether `node` needs neither input nor variables, so jq may fold it while compiling. */
export const constant = (node: Node): boolean => {
  switch (node.k) {
    case "lit":
      return true
    case "array":
      return node.body === null || constant(node.body)
    case "object":
      return node.entries.every((e) => constant(e.key) && constant(e.value))
    case "neg":
      return constant(node.body)
    case "pipe":
    case "comma":
    case "alt":
    case "and":
    case "or":
    case "bin":
      return constant(node.left) && constant(node.right)
    case "if":
      return constant(node.cond) && constant(node.yes) && constant(node.no)
    default:
      return false
  }
}
