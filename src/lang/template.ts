// Handlebars templates (prompts, system prompts, `run` arguments, `write` paths, `ask` questions,
// agent bodies): strict, no HTML escaping, Handlebars' built-in helpers, plus `text`, `json` and `shq`.
//
// A bare reference prints the value's text form: every `{{path}}` (also `{{{path}}}`, `{{&path}}` and
// `{{~path~}}`) becomes `{{text path}}`, so objects and arrays come out as compact JSON instead of
// `[object Object]`, and strings come out as they are. `{{json x}}` always prints JSON (strings quoted).
// `{{shq x}}` prints the text form in POSIX single quotes, so a value placed in a `sh -c` script
// reaches the shell as one literal word whatever it contains (`'`, `;`, `$(…)`, newlines).
//
// The rewrite works on the parsed template (not on its text), so comments, raw blocks, escaped
// `\{{…}}` and string literals are never touched, and error locations point at the source as written.
//
// Strictness: a bare reference or the argument of `text`/`json` must exist — `{{steps.nope}}` fails
// with `"steps.nope" is not defined`. Handlebars' own strict mode checks only the last segment of a
// path and none of a helper's arguments, so those paths are resolved segment by segment by an internal
// helper instead (also for `shq`). Block helpers keep Handlebars' behaviour on purpose: `{{#if input.optional}}`,
// `{{#each}}`, `{{#with}}`, `{{#unless}}` and `lookup` treat a missing value as empty/false, which is
// how optional fields are tested.
//
// Handlebars is loaded on first need (`loadTemplateEngine`; rendering loads it itself): a workflow
// whose text has no `{{` never pays for evaluating it. The synchronous syntax check needs it loaded.
import { Effect } from "effect"
import type Handlebars from "handlebars"
import { TemplateError } from "./languageErrors.ts"
import { type Json, textForm } from "../core/json.ts"

/** POSIX single-quote quoting: inside '…' nothing is special, and a `'` is closed, escaped, reopened. */
export const shellQuote = (text: string): string => `'${text.replaceAll("'", "'\\''")}'`

/** What workflow templates see. Other callers (named prompts: `{input, steps, vars}`) use renderTemplateWith. */
export interface TemplateData {
  /**
   * Undefined when the run has no initial value (src/workflow/unsetInput.ts): printing it fails as
   * any missing value does, and block helpers see it as missing.
   */
  readonly input: Json | undefined
  readonly steps: Readonly<Record<string, Json>>
  readonly inputs: Readonly<Record<string, Json>>
  readonly loop: Json
  readonly [key: string]: Json | undefined
}

const PATH_HELPER = "__lait_path"
const PRINTED_HELPER = "__lait_printed"
const OPTIONS = { strict: true, noEscape: true } as const

class TemplateFailure extends Error {
  /** The path as written when the failure is a reference to something that does not exist. */
  constructor(message: string, readonly missing?: string) {
    super(message)
  }
}

const locationOf = (options: Handlebars.HelperOptions): string => {
  const start = (options as { loc?: { start?: { line?: number; column?: number } } }).loc?.start
  return start?.line !== undefined && start.column !== undefined
    ? ` at line ${start.line}, column ${start.column + 1}`
    : ""
}

/** Splits `(...params, options)` as Handlebars calls helpers, insisting on exactly one argument. */
const singleArgument = (name: string, args: ReadonlyArray<unknown>): unknown => {
  const options = args[args.length - 1] as Handlebars.HelperOptions
  const params = args.slice(0, -1)
  if (params.length !== 1) {
    throw new TemplateFailure(`{{${name}}} takes exactly one argument, got ${params.length}${locationOf(options)}`)
  }
  if (params[0] === undefined) {
    throw new TemplateFailure(`the argument of {{${name}}} is not defined${locationOf(options)}`)
  }
  return params[0]
}

/** Set while a template renders for `renderTemplateParts`: what each `{{…}}` printed, in order. */
let printed: Array<string> | undefined

const registerHelpers = (env: typeof Handlebars): void => {
  env.registerHelper("text", (...args: Array<unknown>) => textForm(singleArgument("text", args) as Json))
  env.registerHelper("json", (...args: Array<unknown>) => JSON.stringify(singleArgument("json", args)))
  env.registerHelper("shq", (...args: Array<unknown>) => shellQuote(textForm(singleArgument("shq", args) as Json)))
  // Wraps every `{{…}}` when a template is compiled for renderTemplateParts. It returns the value as
  // it is, so the output is what the plain template prints; Handlebars prints null/undefined as "".
  env.registerHelper(PRINTED_HELPER, (value: unknown) => {
    printed?.push(value === null || value === undefined ? "" : String(value))
    return value
  })
  // `(__lait_path <first segment> "<path as written>" "<segment>"…)`: Handlebars resolves the first
  // segment (so `../`, `@data`, `this` and block params keep working), this walks the rest and fails
  // on the first one that does not exist.
  env.registerHelper(PATH_HELPER, pathHelper)
}

const pathHelper = (...args: Array<unknown>) => {
  const options = args[args.length - 1] as Handlebars.HelperOptions
  const [first, written, ...segments] = args.slice(0, -1) as [unknown, string, ...Array<string>]
  const missing = () => new TemplateFailure(`${JSON.stringify(written)} is not defined${locationOf(options)}`, written)
  if (first === undefined) throw missing()
  let current: unknown = first
  for (const segment of segments) {
    if (current === null || current === undefined || !Object.hasOwn(Object(current), segment)) throw missing()
    current = (current as Record<string, unknown>)[segment]
    if (current === undefined) throw missing()
  }
  return current
}

let env: typeof Handlebars | undefined

/** Loads Handlebars (once); needed before `checkTemplateSyntax` sees a templated text. */
export const loadTemplateEngine: Effect.Effect<void> = Effect.suspend(() =>
  env !== undefined ? Effect.void : Effect.promise(() =>
    import("handlebars").then((m) => {
      if (env !== undefined) return
      const created = m.default.create()
      registerHelpers(created)
      env = created
    })
  )
)

export const templateEngineLoaded = (): boolean => env !== undefined

/** Whether `source` is a template at all: without `{{` it is plain text. */
export const isTemplated = (source: string): boolean => source.includes("{{")

/** Loads Handlebars only when `source` needs it for `checkTemplateSyntax`: when it is templated. */
export const loadTemplateEngineFor = (source: string): Effect.Effect<void> =>
  Effect.suspend(() => (isTemplated(source) ? loadTemplateEngine : Effect.void))

const engine = (): typeof Handlebars => {
  if (env === undefined) throw new Error("internal error: the template engine was used before loadTemplateEngine")
  return env
}

// ---------------------------------------------------------------------------------------------------
// Rewriting the parsed template

type Expression = hbs.AST.Expression
type PathExpression = hbs.AST.PathExpression
type Hash = hbs.AST.Hash

const isPath = (node: hbs.AST.Node | undefined): node is PathExpression => node?.type === "PathExpression"

const stringLiteral = (value: string, loc: hbs.AST.SourceLocation): hbs.AST.StringLiteral => ({
  type: "StringLiteral",
  value,
  original: value,
  loc
})

const helperPath = (name: string, loc: hbs.AST.SourceLocation): PathExpression => ({
  type: "PathExpression",
  data: false,
  depth: 0,
  parts: [name],
  original: name,
  loc
})

/** Turns a path argument into a strict lookup; `this`/`.`/`..` (no segments) are the context itself. */
const strictArgument = (param: Expression): Expression => {
  if (!isPath(param) || param.parts.length === 0) return param
  const first: PathExpression = { ...param, parts: param.parts.slice(0, 1) }
  const call: hbs.AST.SubExpression = {
    type: "SubExpression",
    path: helperPath(PATH_HELPER, param.loc),
    params: [
      first,
      stringLiteral(param.original, param.loc),
      ...param.parts.slice(1).map((s) => stringLiteral(s, param.loc))
    ],
    hash: undefined as unknown as Hash,
    loc: param.loc
  }
  return call
}

const isValueHelper = (path: PathExpression): boolean =>
  !path.data && path.depth === 0 && path.parts.length === 1 && !/^(\.|this\b)/.test(path.original) &&
  (path.parts[0] === "text" || path.parts[0] === "json" || path.parts[0] === "shq")

interface Call {
  path: hbs.AST.Node
  params: Array<Expression>
  hash?: Hash | undefined
}

const rewriteArguments = (params: ReadonlyArray<Expression>, hash: Hash | undefined): void => {
  for (const param of params) rewriteExpression(param)
  for (const pair of hash?.pairs ?? []) rewriteExpression(pair.value)
}

const rewriteCall = (call: Call): void => {
  if (isPath(call.path) && isValueHelper(call.path) && call.params[0] !== undefined) {
    call.params = [strictArgument(call.params[0]), ...call.params.slice(1)]
  }
  rewriteArguments(call.params, call.hash)
}

const rewriteExpression = (node: Expression): void => {
  if (node.type === "SubExpression") rewriteCall(node as unknown as Call)
}

const rewriteProgram = (program: hbs.AST.Program | undefined): void => {
  for (const statement of program?.body ?? []) rewriteStatement(statement)
}

const rewriteStatement = (node: hbs.AST.Statement): void => {
  switch (node.type) {
    case "MustacheStatement": {
      const mustache = node as hbs.AST.MustacheStatement
      const bare = isPath(mustache.path) && mustache.params.length === 0 &&
        (mustache.hash === undefined || mustache.hash.pairs.length === 0)
      if (bare) {
        mustache.params = [strictArgument(mustache.path as PathExpression)]
        mustache.path = helperPath("text", mustache.path.loc)
        return
      }
      rewriteCall(mustache as unknown as Call)
      return
    }
    case "BlockStatement":
    case "DecoratorBlock": {
      const block = node as hbs.AST.BlockStatement
      rewriteCall(block as unknown as Call)
      rewriteProgram(block.program)
      rewriteProgram(block.inverse)
      return
    }
    case "PartialStatement": {
      const partial = node as hbs.AST.PartialStatement
      rewriteArguments(partial.params, partial.hash)
      return
    }
    case "PartialBlockStatement": {
      const partial = node as hbs.AST.PartialBlockStatement
      rewriteArguments(partial.params, partial.hash)
      rewriteProgram(partial.program)
      return
    }
    default:
      return
  }
}

/** Routes what every `{{…}}` prints through PRINTED_HELPER (after rewriteProgram). */
const wrapPrinted = (program: hbs.AST.Program | undefined): void => {
  for (const statement of program?.body ?? []) {
    if (statement.type === "MustacheStatement") {
      const mustache = statement as hbs.AST.MustacheStatement
      const call: hbs.AST.SubExpression = {
        type: "SubExpression",
        path: mustache.path as PathExpression,
        params: mustache.params,
        hash: mustache.hash,
        loc: mustache.loc
      }
      mustache.path = helperPath(PRINTED_HELPER, mustache.loc)
      mustache.params = [call]
      mustache.hash = undefined as unknown as Hash
    } else if (statement.type === "BlockStatement" || statement.type === "DecoratorBlock") {
      wrapPrinted((statement as hbs.AST.BlockStatement).program)
      wrapPrinted((statement as hbs.AST.BlockStatement).inverse)
    } else if (statement.type === "PartialBlockStatement") {
      wrapPrinted((statement as hbs.AST.PartialBlockStatement).program)
    }
  }
}

// ---------------------------------------------------------------------------------------------------
// Compiling (cached by source text)

type Compiled =
  | { readonly ok: true; readonly render: (data: unknown) => string }
  | { readonly ok: false; readonly reason: string }

const compiled = new Map<string, Compiled>()
/** The same templates compiled with wrapPrinted, for renderTemplateParts (few: `write` paths). */
const compiledPrinting = new Map<string, Compiled>()

const messageOf = (e: unknown): string => (e instanceof Error ? e.message : String(e))

/**
 * One line from a Handlebars message. Parse errors quote the offending line and put a `---^` pointer
 * under it; both are dropped (they show the rewritten text, and the template is quoted anyway).
 */
const oneLine = (message: string): string => {
  const lines = message.split("\n")
  const kept: Array<string> = []
  for (const line of lines) {
    if (/^-*\^$/.test(line.trim())) {
      kept.pop()
      continue
    }
    kept.push(line.trim())
  }
  return kept.filter((line) => line.length > 0).join(" ")
}

const compile = (source: string, printing = false): Compiled => {
  const cache = printing ? compiledPrinting : compiled
  const hit = cache.get(source)
  if (hit !== undefined) return hit
  let result: Compiled
  try {
    const handlebars = engine()
    const ast = handlebars.parse(source)
    rewriteProgram(ast)
    if (printing) wrapPrinted(ast)
    const template = handlebars.compile(ast, OPTIONS)
    result = { ok: true, render: (data) => template(data) }
  } catch (e) {
    result = { ok: false, reason: oneLine(messageOf(e)) }
  }
  cache.set(source, result)
  return result
}

const quote = (source: string): string => JSON.stringify(source)

/**
 * Undefined when the template parses; else `failed to parse template: "<source>": <reason>` on one
 * line. Missing variables are only found by rendering. Cached with the compiled template.
 */
export const checkTemplateSyntax = (source: string): string | undefined =>
  isTemplated(source) ? engineSyntax(source) : undefined

const engineSyntax = (source: string): string | undefined => {
  const result = compile(source)
  return result.ok ? undefined : `failed to parse template: ${quote(source)}: ${result.reason}`
}

interface Rendered {
  readonly text: string
  /** What each `{{…}}` printed, in output order (only when rendered for renderTemplateParts). */
  readonly printed: ReadonlyArray<string>
}

const render = (source: string, data: unknown, printing: boolean): Effect.Effect<Rendered, TemplateError> =>
  Effect.suspend(() => {
    // Without `{{` Handlebars would return the text unchanged: skip it.
    if (!isTemplated(source)) return Effect.succeed({ text: source, printed: [] })
    return env === undefined
      ? Effect.andThen(loadTemplateEngine, renderLoaded(source, data, printing))
      : renderLoaded(source, data, printing)
  })

const renderLoaded = (source: string, data: unknown, printing: boolean): Effect.Effect<Rendered, TemplateError> =>
  Effect.suspend(() => {
    const result = compile(source, printing)
    if (!result.ok) {
      return Effect.fail(
        new TemplateError({ reason: { _tag: "Parse", source, detail: result.reason } })
      )
    }
    // Rendering is synchronous, so no other template can render while `printed` is set.
    const parts: Array<string> = []
    printed = printing ? parts : undefined
    try {
      return Effect.succeed({ text: result.render(data), printed: parts })
    } catch (e) {
      const missing = e instanceof TemplateFailure ? e.missing : undefined
      return Effect.fail(
        new TemplateError({
          reason: {
            _tag: "Render",
            source,
            detail: oneLine(messageOf(e)),
            ...(missing === undefined ? {} : { missing })
          }
        })
      )
    } finally {
      printed = undefined
    }
  })

/** Renders with any data object (named prompts use `{input, steps, vars}`, dry runs `{input?, inputs}`). */
export const renderTemplateWith = (
  source: string,
  data: Readonly<Record<string, unknown>>
): Effect.Effect<string, TemplateError> => Effect.map(render(source, data, false), (r) => r.text)

/** Renders a workflow template against `{input, steps, inputs, loop}` (plus any extra keys). */
export const renderTemplate = (source: string, data: TemplateData): Effect.Effect<string, TemplateError> =>
  renderTemplateWith(source, data)

/**
 * Renders like renderTemplate and also returns what each `{{…}}` printed, so a caller can tell the
 * values apart from the template's own text (a `write` path's directories are the author's; a value
 * must stay one file name).
 */
export const renderTemplateParts = (source: string, data: TemplateData): Effect.Effect<Rendered, TemplateError> =>
  render(source, data, true)
