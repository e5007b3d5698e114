// The yaml package's side of reading YAML: src/core/yamlTree.ts tries the native parser first and
// comes here only for a text it declines (the package itself is loaded then). A repeated key is an
// error everywhere, and its message names the key as upstream (serde_yaml) does — `duplicate entry
// with key "jq"` — where the yaml package only says `Map keys must be unique`. The position suffix
// the package appends is kept.
import type { Document, LineCounter, Node, ParsedNode } from "yaml"
import { rustDebugString } from "./rustFormat.ts"
import { yamlErrorMessage } from "./yamlErrors.ts"
import type { YNode, YPair } from "./yamlNative/nodes.ts"
import type { YamlParsed } from "./yamlTree.ts"

type YamlPackage = typeof import("yaml")
let loaded: YamlPackage | undefined
/** The package, evaluated on first use: a run whose YAML the native parser reads never loads it. */
const yaml = (): YamlPackage => (loaded ??= require("yaml") as YamlPackage)

const PACKAGE_WORDING = "Map keys must be unique"

/** serde_yaml's wording for a key seen twice in one mapping. */
const duplicateKeyMessage = (key: ParsedNode | undefined): string => {
  if (key === undefined || !yaml().isScalar(key)) return "duplicate entry in YAML map"
  const value = key.value
  if (value === null) return "duplicate entry with null key"
  if (typeof value === "boolean") return `duplicate entry with key \`${value}\``
  if (typeof value === "string") return `duplicate entry with key ${rustDebugString(value)}`
  return `duplicate entry with key ${String(value)}`
}

/** Parses one document with unique keys enforced; errors keep the package's position suffix. */
export const parseYamlDocument = (text: string, lineCounter?: LineCounter): Document.Parsed => {
  const { isScalar, parseDocument } = yaml()
  // The package's own equality, recording each key it finds repeated: it reports one error per
  // repeat, in the same order, but the error carries only an offset, not the key.
  const repeated: Array<ParsedNode> = []
  const doc = parseDocument(text, {
    ...(lineCounter === undefined ? {} : { lineCounter }),
    prettyErrors: true,
    uniqueKeys: (a, b) => {
      const same = a === b || (isScalar(a) && isScalar(b) && a.value === b.value)
      if (same) repeated.push(b)
      return same
    }
  })
  let next = 0
  for (const error of doc.errors) {
    if (error.code !== "DUPLICATE_KEY") continue
    error.message = error.message.replace(PACKAGE_WORDING, duplicateKeyMessage(repeated[next++]))
  }
  return doc
}

/**
 * The package's document as lait's node model. Nodes are adapted once each (an alias's target is
 * the adapted anchor node, so a repeated alias costs nothing here); `toJS` stays the package's own,
 * with its alias-count limit.
 */
export const parsePackageTree = (text: string): YamlParsed => {
  const { isAlias, isMap, isScalar, isSeq, LineCounter } = yaml()
  const counter = new LineCounter()
  const doc = parseYamlDocument(text, counter)
  const error = doc.errors[0]
  if (error !== undefined) return { ok: false, message: yamlErrorMessage(error), line: error.linePos?.[0].line }
  const raw = new WeakMap<YNode, Node>()
  const adapted = new Map<Node, YNode>()
  const adapt = (n: unknown): YNode | null => {
    if (n === null || n === undefined) return null
    const node = n as Node
    const known = adapted.get(node)
    if (known !== undefined) return known
    const range = [node.range?.[0] ?? 0, node.range?.[1] ?? 0] as const
    let out: YNode
    if (isMap(node)) {
      const items: Array<YPair> = []
      out = { kind: "map", range, items }
      adapted.set(node, out)
      for (const pair of node.items) {
        const keyText = isScalar(pair.key) ? undefined : String(pair.key)
        items.push({ key: adapt(pair.key), value: adapt(pair.value), ...(keyText === undefined ? {} : { keyText }) })
      }
    } else if (isSeq(node)) {
      const items: Array<YNode | null> = []
      out = { kind: "seq", range, items }
      adapted.set(node, out)
      for (const item of node.items) items.push(adapt(item))
    } else if (isAlias(node)) {
      const alias = { kind: "alias" as const, range, source: node.source, target: undefined as YNode | undefined }
      out = alias
      adapted.set(node, out)
      alias.target = adapt(node.resolve(doc)) ?? undefined
    } else {
      out = { kind: "scalar", range, value: isScalar(node) ? node.value : null }
      adapted.set(node, out)
    }
    raw.set(out, node)
    return out
  }
  const root = adapt(doc.contents)
  return {
    ok: true,
    tree: {
      root,
      native: false,
      line: (offset) => counter.linePos(offset).line,
      toJS: (node, maxAliasCount) => {
        if (node === null) return null
        if (node === root) return doc.toJS({ maxAliasCount })
        return raw.get(node)!.toJS(doc, { maxAliasCount })
      }
    }
  }
}
