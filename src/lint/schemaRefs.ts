// Reading the JSON Schema behind a schema reference without waiting on FIFOs (lint never blocks),
// reporting why it cannot be used in the loader's words.
import { Effect } from "effect"
import { renderChain } from "../core/errors.ts"
import { FileLoader } from "../platform/FileLoader.ts"
import { isJsonObject, type Json, type JsonObject } from "../core/json.ts"
import { checkSchemaDocument } from "../lang/jsonschema.ts"
import type { SchemaRef } from "../lang/model.ts"
import { display } from "./context.ts"

export type SchemaResult = { readonly ok: true; readonly schema: JsonObject } | {
  readonly ok: false
  readonly problem: string
}

/** The schema a reference names, checked to compile; `label` starts each problem. */
export const readSchemaRef = (ref: SchemaRef, label: string): Effect.Effect<SchemaResult, never, FileLoader> =>
  Effect.gen(function*() {
    const source = ref.source
    let schema: JsonObject
    if (source.kind === "inline") {
      schema = source.schema
    } else {
      const shown = display(source.path)
      const text = yield* Effect.result(FileLoader.use((f) => f.readText(source.path, { waitForWriter: false })))
      if (text._tag === "Failure") {
        const reason = renderChain(text.failure.cause ?? text.failure)
        return { ok: false, problem: `${label}: failed to read JSON schema file '${shown}': ${reason}` } as const
      }
      let value: Json
      try {
        value = JSON.parse(text.success) as Json
      } catch (e) {
        const reason = e instanceof Error ? e.message : String(e)
        return { ok: false, problem: `${label}: failed to parse JSON schema file '${shown}': ${reason}` } as const
      }
      if (!isJsonObject(value)) {
        return { ok: false, problem: `${label}: JSON schema file '${shown}' must contain a JSON object` } as const
      }
      schema = value
    }
    const invalid = yield* checkSchemaDocument(schema, label)
    return invalid === undefined ? { ok: true, schema } as const : { ok: false, problem: renderChain(invalid) } as const
  })
