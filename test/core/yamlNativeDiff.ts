// Differential comparison of the native YAML parser with the yaml package (used by the tests).
import { parseNative } from "../../src/core/yamlNative/parse.ts"
import type { YNode } from "../../src/core/yamlNative/nodes.ts"
import { LineIndex, nativeToJS } from "../../src/core/yamlNative/nodes.ts"
import { parsePackageTree } from "../../src/core/yamlDocument.ts"

const same = (a: unknown, b: unknown): boolean => {
  if (Object.is(a, b)) return true
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false
  if (Array.isArray(a) !== Array.isArray(b)) return false
  const ka = Object.keys(a)
  const kb = Object.keys(b)
  if (ka.length !== kb.length || ka.some((k, i) => k !== kb[i])) return false
  return ka.every((k) => same((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]))
}

/** The first difference between two trees, as a path and a description; undefined when equal. */
const diffNodes = (a: YNode | null, b: YNode | null, at: string): string | undefined => {
  if (a === null || b === null) return a === b ? undefined : `${at}: ${a === null ? "null" : a.kind} vs ${b === null ? "null" : b.kind}`
  if (a.kind !== b.kind) return `${at}: kind ${a.kind} vs ${b.kind}`
  if (a.range[0] !== b.range[0] || a.range[1] !== b.range[1]) return `${at}: range ${a.range} vs ${b.range}`
  if (a.kind === "scalar" && b.kind === "scalar") {
    return Object.is(a.value, b.value) ? undefined : `${at}: value ${String(a.value)} vs ${String(b.value)}`
  }
  if (a.kind === "seq" && b.kind === "seq") {
    if (a.items.length !== b.items.length) return `${at}: ${a.items.length} vs ${b.items.length} items`
    for (let i = 0; i < a.items.length; i++) {
      const d = diffNodes(a.items[i]!, b.items[i]!, `${at}[${i}]`)
      if (d !== undefined) return d
    }
    return undefined
  }
  if (a.kind === "map" && b.kind === "map") {
    if (a.items.length !== b.items.length) return `${at}: ${a.items.length} vs ${b.items.length} entries`
    for (let i = 0; i < a.items.length; i++) {
      const d = diffNodes(a.items[i]!.key, b.items[i]!.key, `${at}{key ${i}}`) ??
        diffNodes(a.items[i]!.value, b.items[i]!.value, `${at}{value ${i}}`)
      if (d !== undefined) return d
    }
    return undefined
  }
  return `${at}: unexpected ${a.kind}`
}

export type Verdict = { readonly native: boolean; readonly problem?: string }

/**
 * Parses `text` both ways. When the native parser accepts it, the package must accept it too and
 * agree on every node (kind, range, value), on the toJS value and on the line of every offset.
 */
export const compare = (text: string): Verdict => {
  const native = parseNative(text)
  if (native === undefined) return { native: false }
  const pkg = parsePackageTree(text)
  if (!pkg.ok) return { native: true, problem: `native accepted what the package rejects: ${pkg.message}` }
  const d = diffNodes(native.root, pkg.tree.root, "$")
  if (d !== undefined) return { native: true, problem: d }
  if (!same(nativeToJS(native.root), pkg.tree.toJS(pkg.tree.root, 100))) return { native: true, problem: "toJS differs" }
  const lines = new LineIndex(text)
  for (let offset = 0; offset <= text.length; offset++) {
    if (lines.line(offset) !== pkg.tree.line(offset)) return { native: true, problem: `line of offset ${offset}` }
  }
  return { native: true }
}
