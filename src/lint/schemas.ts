// The JSON Schemas `lait schema KIND` prints. Each comes from the Effect Schema the matching loader
// decodes with (or, for workflows, that is generated from the loader's own key tables), so the
// published schema and what lait accepts cannot drift apart.
import { configJsonSchema } from "../config/schema.ts"
import { evalFileJsonSchema } from "../eval/evalSchema.ts"
import { agentJsonSchema, workflowJsonSchema } from "../lang/fileSchema.ts"
import { testFileJsonSchema } from "../testing/testFile.ts"

export const SCHEMA_KINDS = ["workflow", "config", "test", "eval", "agent"] as const
export type SchemaKind = (typeof SCHEMA_KINDS)[number]

export const jsonSchemaOf = (kind: SchemaKind): { readonly [key: string]: unknown } => {
  switch (kind) {
    case "workflow":
      return workflowJsonSchema()
    case "config":
      return configJsonSchema()
    case "test":
      return testFileJsonSchema()
    case "eval":
      return evalFileJsonSchema()
    case "agent":
      return agentJsonSchema()
  }
}
