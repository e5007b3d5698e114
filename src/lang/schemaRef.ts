// Resolves a schema reference of a workflow file to its JSON Schema object when a step needs it
// (a child workflow's `input_schema`). `{file:}` paths were made absolute by the loader.
import { Effect } from "effect"
import { LaitError } from "../core/errors.ts"
import { FileLoader } from "../platform/FileLoader.ts"
import { isJsonObject, type Json, type JsonObject } from "../core/json.ts"
import type { SchemaRef } from "./model.ts"

export const loadSchemaRef: (
  ref: SchemaRef | undefined
) => Effect.Effect<JsonObject | undefined, LaitError, FileLoader> = Effect.fnUntraced(function*(
  ref: SchemaRef | undefined
) {
  if (ref === undefined) return undefined
  const source = ref.source
  if (source.kind === "inline") return source.schema
  const loader = yield* FileLoader
  const text = yield* loader.readText(source.path, { waitForWriter: true }).pipe(
    Effect.mapError((cause) => new LaitError({ message: `failed to read JSON schema file '${source.path}'`, cause }))
  )
  const parsed = yield* Effect.try({
    try: () => JSON.parse(text) as Json,
    catch: (e) =>
      new LaitError({
        message: `failed to parse JSON schema file '${source.path}'`,
        cause: e instanceof Error ? e.message : String(e)
      })
  })
  if (!isJsonObject(parsed)) {
    return yield* new LaitError({
      message: `failed to parse JSON schema file '${source.path}'`,
      cause: "a JSON Schema must be an object"
    })
  }
  return parsed
})
