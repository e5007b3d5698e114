// What `lait schema <kind>` prints for each of lait's file formats (docs/cli.md): a schema's JSON
// Schema document (draft 2020-12), unknown keys rejected, as editors and validators read it.
import { Schema } from "effect"

/** `schema` as a standalone JSON Schema document: `$schema`, the schema, and its `$defs` if any. */
export const jsonSchemaDocument = (schema: Schema.Constraint): { readonly [key: string]: unknown } => {
  const doc = Schema.toJsonSchemaDocument(schema, { onExcessProperty: "error" })
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    ...doc.schema,
    ...(Object.keys(doc.definitions).length > 0 ? { $defs: doc.definitions } : {})
  }
}
