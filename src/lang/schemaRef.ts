// Resolves a schema reference of a workflow file to its JSON Schema object when a step needs it
// (a child workflow's `input_schema`), and reads the `{file:}` schema of a step's or a subagent's
// output. `{file:}` paths were made absolute by the loader.
import { Effect } from "effect"
import { renderChain } from "../core/errors.ts"
import { FileLoader } from "../platform/FileLoader.ts"
import { isJsonObject, type Json, type JsonObject } from "../core/json.ts"
import { parseYamlValue } from "../core/yamlTree.ts"
import { SchemaError } from "./languageErrors.ts"
import { WorkflowLoadError } from "./loadErrors.ts"
import type { SchemaRef } from "./model.ts"

export const loadSchemaRef: (
  ref: SchemaRef | undefined
) => Effect.Effect<JsonObject | undefined, WorkflowLoadError, FileLoader> = Effect.fnUntraced(function*(
  ref: SchemaRef | undefined
) {
  if (ref === undefined) return undefined
  const source = ref.source
  if (source.kind === "inline") return source.schema
  const loader = yield* FileLoader
  const text = yield* loader.readText(source.path, { waitForWriter: true }).pipe(
    Effect.mapError((cause) =>
      new WorkflowLoadError({ reason: { _tag: "SchemaFileRead", path: source.path, detail: renderChain(cause) } })
    )
  )
  const parsed = yield* Effect.try({
    try: () => JSON.parse(text) as Json,
    catch: (e) =>
      new WorkflowLoadError({
        reason: { _tag: "SchemaFileParse", path: source.path, detail: e instanceof Error ? e.message : String(e) }
      })
  })
  if (!isJsonObject(parsed)) {
    return yield* new WorkflowLoadError({
      reason: { _tag: "SchemaFileParse", path: source.path, detail: "a JSON Schema must be an object" }
    })
  }
  return parsed
})

/**
 * The text of an output schema's `{file:}` (YAML or JSON) as its JSON Schema object; `label` names
 * the schema's use in the message when it is not an object.
 */
export const parseSchemaFile = (text: string, path: string, label: string): Effect.Effect<JsonObject, SchemaError> =>
  Effect.gen(function*() {
    const parsed = yield* Effect.try({
      try: () => parseYamlValue(text) as Json,
      catch: (e) =>
        new SchemaError({ reason: { _tag: "FileParse", path, detail: e instanceof Error ? e.message : String(e) } })
    })
    if (!isJsonObject(parsed)) return yield* new SchemaError({ reason: { _tag: "FileNotObject", label, path } })
    return parsed
  })
