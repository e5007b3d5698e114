// The JSON Schema files editors read (docs/editors.md): `lait schema --write DIR` writes them, and the
// starters of `lait init` point their `# yaml-language-server: $schema=...` line at them, in
// SCHEMA_DIR unless told otherwise. Generated from the loaders' own schemas (src/lint/schemas.ts).
import { Effect } from "effect"
import * as nodePath from "node:path"
import type { SchemaKind } from "../lint/schemas.ts"
import { FileLoader } from "../platform/FileLoader.ts"

/** Where `lait init` keeps the schemas its starters point at: beside them, to be committed with them. */
export const SCHEMA_DIR = ".lait-schemas"

export const schemaFileName = (kind: SchemaKind): string => `${kind}.schema.json`

/** The modeline of a YAML file at `file` whose schema is `kind`'s in `dir` (both relative to `cwd`). */
export const schemaModeline = (kind: SchemaKind, file: string, dir: string, cwd: string): string => {
  const from = nodePath.dirname(nodePath.resolve(cwd, file))
  const relative = nodePath.relative(from, nodePath.resolve(cwd, dir, schemaFileName(kind)))
  return `# yaml-language-server: $schema=${relative.split(nodePath.sep).join("/")}`
}

/**
 * Writes the schemas of `kinds` into `dir` (made when missing) and returns the paths written. With
 * `keep`, a file already there is left as it is (`lait init` never overwrites anything).
 */
export const writeSchemaFiles = (
  dir: string,
  kinds: ReadonlyArray<SchemaKind>,
  options: { readonly keep?: boolean } = {}
) =>
  Effect.gen(function*() {
    const { jsonSchemaOf } = yield* Effect.promise(() => import("../lint/schemas.ts"))
    const files = yield* FileLoader
    const written: Array<string> = []
    for (const kind of kinds) {
      const path = nodePath.join(dir, schemaFileName(kind))
      if (options.keep === true && (yield* files.exists(path))) continue
      yield* files.writeAtomic(path, `${JSON.stringify(jsonSchemaOf(kind), null, 2)}\n`)
      written.push(path)
    }
    return written
  })
