// `lait schema workflow|config|test|eval|agent`: print the JSON Schema (draft 2020-12) of a lait file
// kind, for editors (`# yaml-language-server: $schema=...`) and CI validators; `lait schema --write DIR`
// writes them all to DIR/<kind>.schema.json (only KIND's when one is given), the files `lait init`'s
// starters point at (docs/editors.md). Generated from the Effect Schemas the loaders use (src/lint/schemas.ts).
import { Effect, Option } from "effect"
import { Argument, Command } from "effect/cli"
import { ArgumentError } from "../core/usageErrors.ts"
import type { SchemaKind } from "../lint/schemas.ts"
import { valueFlag } from "./flags/make.ts"
import { printLine } from "./output.ts"
import { writeSchemaFiles } from "./schemaFiles.ts"

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
      Argument.withDescription("workflow, config (lait.config.yml), test, eval, or agent (Markdown frontmatter)"),
      Argument.optional
    ),
    write: valueFlag("write", "DIR", "Write the schemas (every kind, or KIND's) to DIR/<kind>.schema.json")
  },
  Effect.fn("cli.schema")(function*({ kind, write }) {
    if (Option.isSome(write)) {
      const written = yield* writeSchemaFiles(write.value, Option.isSome(kind) ? [kind.value] : KINDS)
      for (const path of written) yield* printLine(`wrote '${path}'`)
      return
    }
    if (Option.isNone(kind)) {
      return yield* new ArgumentError({
        reason: { _tag: "Missing", expected: `a KIND (${KINDS.join(", ")}) or --write DIR` }
      })
    }
    const { jsonSchemaOf } = yield* Effect.promise(() => import("../lint/schemas.ts"))
    yield* printLine(JSON.stringify(jsonSchemaOf(kind.value), null, 2))
  })
).pipe(Command.withDescription("Print the JSON Schema (draft 2020-12) of a lait file, or write them all for editors"))
