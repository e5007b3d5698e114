// `lait schema workflow|config|test|eval|agent`: print the JSON Schema (draft 2020-12) of a lait file
// kind, for editors (`# yaml-language-server: $schema=...`) and CI validators. Generated from the
// Effect Schemas the loaders use (src/lint/schemas.ts).
import { Effect } from "effect"
import { Argument, Command } from "effect/cli"
import type { SchemaKind } from "../lint/schemas.ts"
import { printLine } from "./output.ts"

// Listed here (a type-only import above) so start-up does not load the schemas; the two checks
// below fail to compile if this list and SchemaKind ever differ.
const KINDS = ["workflow", "config", "test", "eval", "agent"] as const satisfies ReadonlyArray<SchemaKind>
type Listed = (typeof KINDS)[number]
const everyKindListed: ReadonlyArray<Listed> = [] as ReadonlyArray<SchemaKind>
void everyKindListed

export const schemaCommand = Command.make(
  "schema",
  {
    kind: Argument.Literals("kind", KINDS).pipe(
      Argument.withDescription("workflow, config (lait.config.yml), test, eval, or agent (Markdown frontmatter)")
    )
  },
  Effect.fn("cli.schema")(function*({ kind }) {
    const { jsonSchemaOf } = yield* Effect.promise(() => import("../lint/schemas.ts"))
    yield* printLine(JSON.stringify(jsonSchemaOf(kind), null, 2))
  })
).pipe(Command.withDescription("Print the JSON Schema (draft 2020-12) of a lait file, for editors and validators"))
