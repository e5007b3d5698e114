// The decoder of a workflow's `models:` (the config file's model definitions, src/config/modelSchema.ts),
// apart from the loader's other modules: building those schemas costs every `lait run` of a file
// without `models:` time for nothing, so load.ts imports this module only for a file that has one.
import { Cause, Exit, Schema, SchemaIssue } from "effect"
import { ModelMap } from "../../config/modelSchema.ts"
import { namingModelId } from "../../core/schemaPath.ts"
import type { ModelDefinition } from "../model.ts"

export type DecodedModels =
  | { readonly ok: true; readonly value: Readonly<Record<string, ReadonlyArray<ModelDefinition>>> }
  | { readonly ok: false; readonly path: ReadonlyArray<PropertyKey>; readonly message: string }

const decode = Schema.decodeUnknownExit(ModelMap, { onExcessProperty: "error" })
const formatIssue = SchemaIssue.makeFormatterStandardSchemaV1()

/** `models:` decoded, or the first problem: its path in the value and the decoder's wording. */
export const decodeModels = (value: unknown): DecodedModels => {
  const decoded = decode(value)
  if (Exit.isSuccess(decoded)) {
    return { ok: true, value: decoded.value as Readonly<Record<string, ReadonlyArray<ModelDefinition>>> }
  }
  const error = Cause.squash(decoded.cause)
  const issue = Schema.isSchemaError(error) ? formatIssue(error.issue).issues[0] : undefined
  const path = (issue?.path ?? []) as ReadonlyArray<PropertyKey>
  return { ok: false, path, message: namingModelId(value, path, issue?.message ?? String(error)) }
}
