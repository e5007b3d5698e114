// Loading a workflow file: read it (FileLoader), parse the YAML keeping line numbers, run every
// static check of the version-2 format, then read and check the `{file:}` schemas it references.
// Nothing runs before all of that passed. Errors read
//   failed to load workflow '<path>': <specific message>
// and, when the file is invalid as written, exit 3 carrying the file and, when known, the 1-based line.
import { Effect } from "effect"
import * as nodePath from "node:path"
import { errorClassOf, renderChain } from "../core/errors.ts"
import { FileLoader, type ReadOptions } from "../platform/FileLoader.ts"
import { yamlPackage } from "../core/yamlDocument.ts"
import type { FileError } from "../core/fileErrors.ts"
import { isJsonObject, type Json } from "../core/json.ts"
import { checkJqSyntax, withJqSyntax } from "./jq.ts"
import type { JqError } from "./languageErrors.ts"
import {
  checkSchemaDocument,
  loadSchemaValidator,
  schemaValidatorLoaded,
  validateJson,
  validateSchemaDocument
} from "./jsonschema.ts"
import { type ParsedDocument, parseDocumentStatic } from "./load/document.ts"
import { type FileSchemaUse, type Syntax, toLoadError } from "./load/fields.ts"
import type { DecodedModels } from "./load/models.ts"
import { parseYaml, runStatic, type Source } from "./load/yaml.ts"
import { WorkflowLoadError } from "./loadErrors.ts"
import type { Workflow } from "./model.ts"
import { checkTemplateSyntax, isTemplated, loadTemplateEngine, templateEngineLoaded } from "./template.ts"

export { checkPlacement, checkUniqueIds, type Placement, topLevelPlacement } from "./load/checks.ts"

export interface LoadOptions {
  /** Wait (cancellably) for a writer when a file is a FIFO; default true. Synchronous commands pass false. */
  readonly waitForWriter?: boolean
}

// Set once ./load/models.ts is loaded: only for a file that has `models:`.
let modelsDecoder: ((value: Json) => DecodedModels) | undefined

const loadModelsDecoder = Effect.promise(() => import("./load/models.ts")).pipe(
  Effect.map(({ decodeModels }) => {
    modelsDecoder = decodeModels
  })
)

const syntax: Syntax = {
  jq: checkJqSyntax,
  template: checkTemplateSyntax,
  schemaDocument: validateSchemaDocument,
  validate: validateJson,
  // Only the second pass gets here for a file with `models:`, once the decoder is loaded.
  models: (value) => {
    if (modelsDecoder === undefined) throw new Error("the 'models:' decoder was not loaded")
    return modelsDecoder(value)
  }
}

/** Whether the document is a mapping with `key` at its top level, set to anything but null. */
const hasTopLevelKey = (source: Source, key: string): boolean => {
  const { isMap, isScalar } = yamlPackage()
  const root = source.tree.root
  return isMap(root) && root.items.some(({ key: k, value: v }) =>
    isScalar(k) && k.value === key && v !== null && !(isScalar(v) && v.value === null)
  )
}

// The static checks are synchronous, and Handlebars, Ajv and the `models:` decoder are loaded only when
// the file needs them: a first pass notes whether any field is templated, the file has any schema or
// `models:`, and only then are they loaded. The template and schema checks the first pass could not
// make are then made in the order it met them; the file is checked again, whole, only to report the
// first problem in its place (a template, schema or `models:` error may come before the one the first
// pass reported) or to decode `models:`. Most files that need a library are so parsed once.
const checkStatic = Effect.fnUntraced(function*(source: Source, path: string) {
  let templates = false
  let schemas = false
  let models = false
  const deferred: Array<() => unknown> = []
  const deferring: Syntax = {
    ...syntax,
    template: (text) => {
      if (templateEngineLoaded() || !isTemplated(text)) return checkTemplateSyntax(text)
      templates = true
      deferred.push(() => checkTemplateSyntax(text))
      return undefined
    },
    schemaDocument: (schema, label) => {
      if (schemaValidatorLoaded()) return validateSchemaDocument(schema, label)
      schemas = true
      deferred.push(() => validateSchemaDocument(schema, label))
      return undefined
    },
    validate: (schema, value, label) => {
      if (schemaValidatorLoaded()) return validateJson(schema, value, label)
      schemas = true
      deferred.push(() => validateJson(schema, value, label))
      return undefined
    },
    models: (value) => {
      if (modelsDecoder !== undefined) return modelsDecoder(value)
      models = true
      return undefined
    }
  }
  // Decoded `models:` are part of the workflow the pass builds: their decoder comes first when the
  // file's top level has the key.
  if (modelsDecoder === undefined && hasTopLevelKey(source, "models")) yield* loadModelsDecoder
  const first = yield* withJqSyntax(() => runStatic(() => parseDocumentStatic(source, path, deferring)))
  if (!templates && !schemas && !models) return first
  if (templates) yield* loadTemplateEngine
  if (schemas) yield* loadSchemaValidator
  if (models) yield* loadModelsDecoder
  if (first.ok && !models && deferred.every((check) => check() === undefined)) return first
  return yield* withJqSyntax(() => runStatic(() => parseDocumentStatic(source, path, syntax)))
})

const readOptions = (options: LoadOptions | undefined): ReadOptions => ({
  waitForWriter: options?.waitForWriter ?? true
})

/** Wraps a failure under `failed to load workflow '<path>'`, keeping its class, file and line. */
type LoadFailure = JqError | FileError | WorkflowLoadError

const inWorkflow = (path: string) => (error: LoadFailure): WorkflowLoadError => {
  if (error._tag !== "WorkflowLoadError" || errorClassOf(error) !== "ValidationError") {
    return new WorkflowLoadError({ reason: { _tag: "LoadFailed", path, cause: error } })
  }
  // Point at the line, unless the YAML parser's own message already does (`at line L, column C`); a
  // jq or template message's `line 1` is about the expression, not the file.
  const shown = error.line !== undefined && !/\bat line \d+, column \d+/.test(renderChain(error))
  return new WorkflowLoadError({
    reason: {
      _tag: "Rejected",
      path,
      cause: error,
      ...(shown ? { shownLine: error.line } : {}),
      ...(error.file !== undefined ? { file: error.file } : {}),
      ...(error.line !== undefined ? { line: error.line } : {})
    }
  })
}

const loadFileSchema = Effect.fn("loadWorkflow.fileSchema")(
  function*(file: string, path: string, use: FileSchemaUse, options: LoadOptions | undefined) {
    const at = { file, ...(use.line !== undefined ? { line: use.line } : {}) }
    const unusable = (problem: "read" | "parse" | "not-object", cause?: unknown) =>
      new WorkflowLoadError({
        reason: {
          _tag: "SchemaFileUnusable",
          where: use.where,
          path,
          problem,
          ...at,
          ...(cause !== undefined ? { cause } : {})
        }
      })
    const text = yield* FileLoader.use((loader) => loader.readText(path, readOptions(options))).pipe(
      Effect.mapError((e) => unusable("read", e.cause ?? e.message))
    )
    const value = yield* Effect.try({
      try: () => JSON.parse(text) as Json,
      catch: (e) => unusable("parse", e instanceof Error ? e.message : String(e))
    })
    if (!isJsonObject(value)) return yield* unusable("not-object")
    const invalid = yield* checkSchemaDocument(value, `${use.where}: JSON schema file '${path}'`)
    if (invalid !== undefined) {
      return yield* new WorkflowLoadError({ reason: { _tag: "Invalid", detail: invalid.message, ...at } })
    }
  }
)

// `lait test` and `lait eval` load the same few workflows for every file and run: the same text at
// the same path parses to the same (immutable) workflow, so the YAML parse and the static checks run
// once. The `{file:}` schemas are still read and checked on every load. Bounded, so a process that
// loads many distinct workflows keeps only the last ones.
const parsedCache = new Map<string, ParsedDocument>()
const PARSED_CACHE_SIZE = 32

const parseChecked = Effect.fn("loadWorkflow.parse")(
  function*(text: string, path: string, options: LoadOptions | undefined) {
    const file = nodePath.resolve(path)
    const key = `${file}\0${path}\0${text}`
    const cached = parsedCache.get(key)
    if (cached !== undefined) {
      for (const [schemaPath, use] of cached.fileSchemas) yield* loadFileSchema(file, schemaPath, use, options)
      return cached.workflow
    }
    const parsed = parseYaml(text)
    if (!parsed.ok) {
      const reason = { _tag: "YamlSyntax", file, detail: parsed.message } as const
      const line = parsed.line !== undefined ? { line: parsed.line } : {}
      return yield* new WorkflowLoadError({ reason: { ...reason, ...line } })
    }
    const result = yield* checkStatic(parsed.source, path)
    if (!result.ok) return yield* toLoadError(result.error, file)
    for (const [schemaPath, use] of result.value.fileSchemas) {
      yield* loadFileSchema(file, schemaPath, use, options)
    }
    if (parsedCache.size >= PARSED_CACHE_SIZE) parsedCache.delete(parsedCache.keys().next().value!)
    parsedCache.set(key, result.value)
    return result.value.workflow
  }
)

/**
 * Parses and checks workflow text as if read from `path` (which decides the directory that
 * `{file:}` schemas and `agent:`/`workflow:` paths are relative to).
 */
export const parseWorkflowText = (
  text: string,
  path: string,
  options?: LoadOptions
): Effect.Effect<Workflow, WorkflowLoadError, FileLoader> =>
  parseChecked(text, path, options).pipe(Effect.mapError(inWorkflow(path)))

/** Reads, parses and checks a workflow file. */
export const loadWorkflow = (
  path: string,
  options?: LoadOptions
): Effect.Effect<Workflow, WorkflowLoadError, FileLoader> =>
  Effect.gen(function*() {
    const text = yield* FileLoader.use((loader) => loader.readText(path, readOptions(options)))
    return yield* parseChecked(text, path, options)
  }).pipe(Effect.mapError(inWorkflow(path)))
