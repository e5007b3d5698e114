// The YAML node model every reader of lait's files walks, whichever parser produced it: the native
// parser (./parse.ts) builds it directly; the yaml package's document is adapted to it
// (src/core/yamlPackage.ts) when the native parser declines a text. `range` is [start, value end] as
// the package reports them, so lines and quoted source text do not depend on the parser.

export type YNode = YScalar | YMap | YSeq | YAlias

export interface YScalar {
  readonly kind: "scalar"
  readonly range: readonly [number, number]
  /** The core-schema value: string, number, boolean or null (the package's tags may give others). */
  readonly value: unknown
}

export interface YPair {
  readonly key: YNode | null
  readonly value: YNode | null
  /** The package's text of a key that is not a scalar (a complex key), as `String(node)` gives it. */
  readonly keyText?: string
}

export interface YMap {
  readonly kind: "map"
  readonly range: readonly [number, number]
  readonly items: ReadonlyArray<YPair>
}

export interface YSeq {
  readonly kind: "seq"
  readonly range: readonly [number, number]
  readonly items: ReadonlyArray<YNode | null>
}

/** Only the package path has aliases; `target` is the anchored node (undefined: unresolved). */
export interface YAlias {
  readonly kind: "alias"
  readonly range: readonly [number, number]
  readonly source: string
  readonly target: YNode | undefined
}

/** 1-based line numbers of offsets, as the package's LineCounter gives them. */
export class LineIndex {
  private readonly starts: Array<number> = [0]

  constructor(text: string) {
    for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) this.starts.push(i + 1)
  }

  line(offset: number): number {
    const starts = this.starts
    let lo = 0
    let hi = starts.length - 1
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1
      if (starts[mid]! <= offset) lo = mid
      else hi = mid - 1
    }
    return lo + 1
  }
}

/**
 * The plain JavaScript value of a native node, built as the package's `toJS` builds it: mappings
 * become objects whose keys are `String(key)` (the native parser admits no null, collection or
 * repeated keys, so nothing else can happen), sequences arrays.
 */
export const nativeToJS = (node: YNode | null): unknown => {
  if (node === null) return null
  switch (node.kind) {
    case "scalar":
      return node.value
    case "seq":
      return node.items.map(nativeToJS)
    case "map": {
      const out: Record<string, unknown> = {}
      for (const pair of node.items) out[String((pair.key as YScalar).value)] = nativeToJS(pair.value)
      return out
    }
    case "alias":
      throw new Error("a native YAML tree has no aliases")
  }
}

/**
 * The start of the deepest node on `path` that exists: a mapping key's own offset (so an unknown key
 * points at itself), a sequence item's. Keys compare as `String(value)`.
 */
export const offsetAtPath = (root: YNode | null, path: ReadonlyArray<PropertyKey>): number | undefined => {
  let node = root
  let offset = root?.range[0]
  for (const segment of path) {
    if (node?.kind === "map") {
      const pair = node.items.find((p) =>
        (p.keyText ?? (p.key?.kind === "scalar" ? String(p.key.value) : String(p.key))) === String(segment)
      )
      if (pair === undefined) break
      if (pair.key !== null) offset = pair.key.range[0]
      node = pair.value
    } else if (node?.kind === "seq" && typeof segment === "number") {
      const item = node.items[segment]
      if (item === undefined) break
      if (item !== null) offset = item.range[0]
      node = item
    } else break
  }
  return offset
}
