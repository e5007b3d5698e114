// The yaml package, as every reader of YAML uses it (src/core/yamlTree.ts, lait test --update). A
// repeated key is an error everywhere, and its message names the key as upstream (serde_yaml) does —
// `duplicate entry with key "jq"` — where the yaml package only says `Map keys must be unique`. The
// position suffix the package appends is kept.
import { createRequire } from "node:module"
import type { Document, LineCounter, ParsedNode } from "yaml"
import { rustDebugString } from "./rustFormat.ts"

type YamlPackage = typeof import("yaml")
let loaded: YamlPackage | undefined
/**
 * The package, evaluated on first use, so a command that reads no YAML (help, version) never loads
 * it. A synchronous require of the package itself (Bun's bundler resolves it into the binary; source
 * runs under a loader plugin work too); Deno has no `require` in a module, so there it is made.
 */
export const yamlPackage = (): YamlPackage =>
  (loaded ??= (typeof require === "function" ? require("yaml") : createRequire(import.meta.url)("yaml")) as YamlPackage)

const PACKAGE_WORDING = "Map keys must be unique"

/** serde_yaml's wording for a key seen twice in one mapping. */
const duplicateKeyMessage = (key: ParsedNode | undefined): string => {
  if (key === undefined || !yamlPackage().isScalar(key)) return "duplicate entry in YAML map"
  const value = key.value
  if (value === null) return "duplicate entry with null key"
  if (typeof value === "boolean") return `duplicate entry with key \`${value}\``
  if (typeof value === "string") return `duplicate entry with key ${rustDebugString(value)}`
  return `duplicate entry with key ${String(value)}`
}

/** Parses one document with unique keys enforced; errors keep the package's position suffix. */
export const parseYamlDocument = (text: string, lineCounter?: LineCounter): Document.Parsed => {
  const { isScalar, parseDocument } = yamlPackage()
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
