// The one way lait parses a YAML file it reads (workflows, configs, test and eval files, agent
// frontmatter, schema files): the yaml package's document (./yamlDocument.ts) with its line counter,
// so that every message can point at a 1-based line, and its own `toJS` with its alias-count limit.
import type { Document, Node } from "yaml"
import { parseYamlDocument, yamlPackage } from "./yamlDocument.ts"
import { yamlErrorMessage } from "./yamlErrors.ts"

/** A node of the parsed document (a scalar, mapping, sequence or alias); null for an empty document. */
export type YNode = Node

export interface YamlTree {
  readonly doc: Document.Parsed
  readonly root: YNode | null
  /** The 1-based line of an offset. */
  line(offset: number): number
  /** A node's JavaScript value as the package's `toJS` gives it; the package's errors are thrown. */
  toJS(node: YNode | null, maxAliasCount: number): unknown
}

export type YamlParsed = { readonly ok: true; readonly tree: YamlTree } | {
  readonly ok: false
  /** The package's one-line message (yamlErrorMessage). */
  readonly message: string
  readonly line: number | undefined
}

/** Parses one YAML document; a syntax error (or repeated key) gives the package's message and line. */
export const parseYamlTree = (text: string): YamlParsed => {
  const counter = new (yamlPackage().LineCounter)()
  const doc = parseYamlDocument(text, counter)
  const error = doc.errors[0]
  if (error !== undefined) return { ok: false, message: yamlErrorMessage(error), line: error.linePos?.[0].line }
  const root = (doc.contents ?? null) as YNode | null
  return {
    ok: true,
    tree: {
      doc,
      root,
      line: (offset) => counter.linePos(offset).line,
      toJS: (node, maxAliasCount) => {
        if (node === null) return null
        return node === root ? doc.toJS({ maxAliasCount }) : node.toJS(doc, { maxAliasCount })
      }
    }
  }
}

/** One YAML value (agent frontmatter, a schema file); a syntax error throws its one-line message. */
export const parseYamlValue = (text: string): unknown => {
  const parsed = parseYamlTree(text)
  if (!parsed.ok) throw new Error(parsed.message)
  return parsed.tree.toJS(parsed.tree.root, 100)
}

/**
 * The start of the deepest node on `path` that exists: a mapping key's own offset (so an unknown key
 * points at itself), a sequence item's. Keys compare as `String(value)`; aliases are not followed.
 */
export const offsetAtPath = (root: YNode | null, path: ReadonlyArray<PropertyKey>): number | undefined => {
  const { isMap, isScalar, isSeq } = yamlPackage()
  let node: unknown = root
  let offset = root?.range?.[0]
  for (const segment of path) {
    if (isMap(node)) {
      const pair = node.items.find((p) => (isScalar(p.key) ? String(p.key.value) : String(p.key)) === String(segment))
      if (pair === undefined) break
      const key = pair.key as YNode | null
      if (key?.range) offset = key.range[0]
      node = pair.value
    } else if (isSeq(node) && typeof segment === "number") {
      const item = node.items[segment] as YNode | null | undefined
      if (item === undefined) break
      if (item?.range) offset = item.range[0]
      node = item
    } else break
  }
  return offset
}
