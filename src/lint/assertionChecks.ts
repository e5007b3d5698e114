// Lint of the assertions that check text, JSON, measurements and scripts (docs/testing.md#assertions), what
// would fail only once they run:
// a `regex` that does not compile, a `json_schema` without exactly one of value:/file: or whose schema
// cannot be read or compiled, a `length` without bounds or with min > max, `cost`/`latency` in a test
// file (only `lait eval` measures), a `script` whose command line does not split, whose program is
// neither a file (relative to the definition file's directory, where it starts) nor on PATH, or that
// names a script file that does not exist.
import { Effect } from "effect"
import * as nodePath from "node:path"
import { renderChain } from "../core/errors.ts"
import { isJsonObject } from "../core/json.ts"
import { checkSchemaDocument } from "../lang/jsonschema.ts"
import { parseSchemaFile } from "../lang/schemaRef.ts"
import { FileLoader } from "../platform/FileLoader.ts"
import type { TypedAssertion } from "../testing/assertions.ts"
import { scriptArgv } from "../testing/scriptAssertion.ts"
import { compileRegex } from "../testing/textChecks.ts"
import { display } from "./context.ts"
import { missingProgram } from "./execProgram.ts"

export interface AddedAssertionLint {
  /** Where the assertion is, as messages print it (`assert[2]`). */
  readonly at: string
  /** The line of one of its keys, or of the item. */
  readonly line: (key?: string) => number | undefined
  /** The definition file's directory. */
  readonly base: string
  readonly inTestFile: boolean
  readonly error: (message: string, line: number | undefined) => void
}

/** Arguments that name a script an interpreter runs (`python3 check.py`): they must exist. */
const SCRIPT_FILE = /\.(?:[cm]?js|ts|py|sh|rb|pl|php|lua)$/

const exists = (path: string) =>
  Effect.map(Effect.option(FileLoader.use((files) => files.stat(path))), (stat) => stat._tag === "Some")

const lintScript = (assertion: Extract<TypedAssertion, { type: "script" }>, o: AddedAssertionLint) =>
  Effect.gen(function*() {
    const argv = scriptArgv(assertion.command)
    if (typeof argv === "string") return o.error(`${o.at}.command: ${argv}`, o.line("command"))
    const [program, ...args] = argv
    const missing = yield* missingProgram(program!, o.base)
    if (missing !== undefined) {
      const where = missing === "not-executable"
        ? `'${display(nodePath.resolve(o.base, program!))}' is not an executable file`
        : "is not on PATH"
      return o.error(`${o.at}.command: the program '${program}' ${where}`, o.line("command"))
    }
    for (const arg of args) {
      if (arg.startsWith("-") || !SCRIPT_FILE.test(arg)) continue
      const path = nodePath.resolve(o.base, arg)
      if (!(yield* exists(path))) {
        o.error(`${o.at}.command: the script '${display(path)}' does not exist`, o.line("command"))
      }
    }
  })

const lintJsonSchema = (assertion: Extract<TypedAssertion, { type: "json_schema" }>, o: AddedAssertionLint) =>
  Effect.gen(function*() {
    const inline = assertion.value ?? undefined, file = assertion.file ?? undefined
    if ((inline === undefined) === (file === undefined)) {
      return o.error(`${o.at}: json_schema needs exactly one of 'value' and 'file'`, o.line("type"))
    }
    if (inline !== undefined && isJsonObject(inline)) {
      const invalid = yield* checkSchemaDocument(inline, `${o.at}.value`)
      if (invalid !== undefined) o.error(invalid.message, o.line("value"))
      return
    }
    const path = nodePath.resolve(o.base, file!)
    // Read as the run reads it (JSON or YAML), without waiting on a FIFO: lint never blocks.
    const schema = yield* Effect.result(
      FileLoader.use((files) => files.readText(path, { waitForWriter: false })).pipe(
        Effect.flatMap((text) => parseSchemaFile(text, path, "json_schema"))
      )
    )
    if (schema._tag === "Failure") {
      return o.error(`${o.at}.file: cannot use '${display(path)}': ${renderChain(schema.failure)}`, o.line("file"))
    }
    const invalid = yield* checkSchemaDocument(schema.success, `${o.at}.file`)
    if (invalid !== undefined) o.error(invalid.message, o.line("file"))
  })

export const lintAddedAssertion = (
  assertion: TypedAssertion,
  o: AddedAssertionLint
): Effect.Effect<void, never, FileLoader> =>
  Effect.gen(function*() {
    switch (assertion.type) {
      case "regex": {
        const regex = compileRegex(assertion.value)
        if ("problem" in regex) o.error(`${o.at}.value: ${regex.problem}`, o.line("value"))
        return
      }
      case "length": {
        const min = assertion.min ?? undefined, max = assertion.max ?? undefined
        if (min === undefined && max === undefined) {
          o.error(`${o.at}: length needs 'min' or 'max'`, o.line("type"))
        } else if (min !== undefined && max !== undefined && min > max) {
          o.error(`${o.at}: 'min' (${min}) is greater than 'max' (${max}); the assertion can never pass`, o.line("max"))
        }
        return
      }
      case "cost":
      case "latency":
        if (o.inTestFile) {
          o.error(
            `${o.at}: ${assertion.type} assertions always fail under 'lait test' (nothing is measured there); ` +
              `move this check to an eval file`,
            o.line("type")
          )
        }
        return
      case "script":
        return yield* lintScript(assertion, o)
      case "json_schema":
        return yield* lintJsonSchema(assertion, o)
      default:
        return
    }
  })
