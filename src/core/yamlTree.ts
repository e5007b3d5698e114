// The one way lait parses a YAML file it reads (workflows, configs, test and eval files, agent
// frontmatter, schema files): the native parser (src/core/yamlNative/) for the subset lait's files are
// written in, else the yaml package, loaded only then. Both give the same node model, lines and values.
import { LineIndex, nativeToJS, type YNode } from "./yamlNative/nodes.ts"
import { parsePackageTree } from "./yamlDocument.ts"
import { parseNative } from "./yamlNative/parse.ts"

export interface YamlTree {
  readonly root: YNode | null
  /** Which parser built it (tests compare the two). */
  readonly native: boolean
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

const nativeTree = (text: string, root: YNode | null): YamlTree => {
  let lines: LineIndex | undefined
  return {
    root,
    native: true,
    line: (offset) => (lines ??= new LineIndex(text)).line(offset),
    toJS: (node) => nativeToJS(node)
  }
}

/** Parses one YAML document; a syntax error (or repeated key) gives the package's message and line. */
export const parseYamlTree = (text: string): YamlParsed => {
  const native = parseNative(text)
  if (native !== undefined) return { ok: true, tree: nativeTree(text, native.root) }
  return parsePackageTree(text)
}

/** One YAML value (agent frontmatter, a schema file); a syntax error throws its one-line message. */
export const parseYamlValue = (text: string): unknown => {
  const parsed = parseYamlTree(text)
  if (!parsed.ok) throw new Error(parsed.message)
  return parsed.tree.toJS(parsed.tree.root, 100)
}
