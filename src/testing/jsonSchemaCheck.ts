// The `json_schema` assertion (docs/testing.md#assertions): the output must be JSON text valid against a
// JSON Schema, inline (`value:`) or in a JSON/YAML file (`file:`, relative to the definition file), checked
// by the validator `input_schema` uses (src/lang/jsonschema.ts). The file is read through the run's
// FileLoader when there is one (the commands always have it).
import { Effect } from "effect"
import { renderChain } from "../core/errors.ts"
import type { JsonObject } from "../core/json.ts"
import { rustDebugString } from "../core/rustFormat.ts"
import { checkJson } from "../lang/jsonschema.ts"
import { parseSchemaFile } from "../lang/schemaRef.ts"
import { FileLoader } from "../platform/FileLoader.ts"
import type { JsonSchemaAssertion } from "./assertions.ts"
import { joinPath } from "./discovery.ts"
import { outputJson } from "./textChecks.ts"

/** A json_schema assertion: the output must be JSON valid against the inline or `file:` schema. */
export const checkJsonSchema = (
  assertion: JsonSchemaAssertion,
  output: string,
  base: string | undefined
): Effect.Effect<{ readonly message: string } | { readonly broken: string } | undefined> =>
  Effect.gen(function*() {
    const inline = assertion.value ?? undefined, file = assertion.file ?? undefined
    if ((inline === undefined) === (file === undefined)) {
      return { broken: "a json_schema assertion needs exactly one of 'value' and 'file'" }
    }
    let schema: JsonObject
    if (inline !== undefined) schema = inline
    else {
      const loader = yield* Effect.serviceOption(FileLoader)
      if (loader._tag === "None") return { broken: `json_schema file '${file}': no file can be read here` }
      const path = joinPath(base ?? "", file!)
      const read = yield* Effect.result(
        loader.value.readText(path, { waitForWriter: true }).pipe(
          Effect.flatMap((text) => parseSchemaFile(text, path, "json_schema"))
        )
      )
      if (read._tag === "Failure") return { broken: `json_schema file '${file}': ${renderChain(read.failure)}` }
      schema = read.success
    }
    const parsed = outputJson(output)
    if ("problem" in parsed) {
      const got = rustDebugString(output)
      return { message: `expected output to be JSON for json_schema (${parsed.problem}), got ${got}` }
    }
    const invalid = yield* checkJson(schema, parsed.value, "output")
    if (invalid === undefined) return undefined
    return invalid.reason._tag === "Mismatch"
      ? { message: `json_schema: ${invalid.reason.detail}` }
      : { broken: `json_schema: ${renderChain(invalid)}` }
  })
