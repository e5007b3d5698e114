// Linting an agent Markdown file (named directly, or used by an `agent:` step): the parser's checks
// (frontmatter shape and values, against the same table as `lait schema agent`), then what the parser
// leaves to run time: the body's template syntax, its `input_schema`/`output_schema` (a `{file:}` that
// exists and parses, a schema Ajv compiles) and its registered names.
import { Effect } from "effect"
import { renderChain } from "../core/errors.ts"
import { FileLoader } from "../platform/FileLoader.ts"
import type { FileError } from "../core/fileErrors.ts"
import { parseAgentText, splitFrontmatter } from "../lang/agentFile.ts"
import type { WorkflowLoadError } from "../lang/loadErrors.ts"
import { parseYaml, type Source } from "../lang/load/yaml.ts"
import type { AgentDefinition } from "../lang/model.ts"
import { checkTemplateSyntax, loadTemplateEngine } from "../lang/template.ts"
import { type FileLint, type FileState, keyLine, lineOfY, type Where } from "./context.ts"
import type { Emitter } from "./findings.ts"
import { checkCapabilities } from "./names.ts"
import { readSchemaRef } from "./schemaRefs.ts"

export const loadAgentForLint = (
  path: string
): Effect.Effect<{ readonly agent: AgentDefinition }, FileError | WorkflowLoadError, FileLoader> =>
  Effect.gen(function*() {
    const text = yield* FileLoader.use((f) => f.readText(path, { waitForWriter: false }))
    return { agent: yield* parseAgentText(text, path) }
  })

/**
 * The checks the agent parser leaves to run time. `holder` is the frontmatter mapping when the agent
 * is the linted file itself (for lines); `where.fixedLine` is set when it is used by a step.
 */
export const lintAgentFileContents = (
  context: string,
  agent: AgentDefinition,
  frontmatter: Source | undefined,
  where: Where,
  state: FileState,
  emitter: Emitter
): Effect.Effect<void, never, FileLoader> =>
  Effect.gen(function*() {
    const holder = frontmatter === undefined ? undefined : frontmatter.top(1)
    yield* loadTemplateEngine
    const templateProblem = checkTemplateSyntax(agent.system)
    if (templateProblem !== undefined) {
      emitter.emit(
        "error",
        `${context} has an invalid system prompt template: ${templateProblem}`,
        where.fixedLine ?? bodyLine(where)
      )
    }
    for (const [field, ref] of [["input_schema", agent.inputSchema], ["output_schema", agent.outputSchema]] as const) {
      if (ref === undefined) continue
      const result = yield* readSchemaRef(ref, `${context}'s '${field}'`)
      if (!result.ok) emitter.emit("error", result.problem, keyLine(where, holder, field) ?? lineOfY(where, holder))
    }
    checkCapabilities(context, agent, holder, where, state, emitter)
  })

const bodyLine = (where: Where): number | undefined => {
  if (where.src === undefined) return undefined
  // The frontmatter source is parsed with one blank line standing in for the opening `---`, so the
  // line just past its end is the closing `---`; the body (where a template error is) follows it.
  return where.src.tree.line(where.src.text.length) + 1
}

/** The frontmatter parsed so that its lines are the file's lines (a blank line stands in for `---`). */
const frontmatterSource = (text: string): { readonly src: Source | undefined; readonly yamlError?: number } => {
  const split = splitFrontmatter(text)
  if (typeof split === "string") return { src: undefined }
  const parsed = parseYaml(`\n${split.frontmatter}`)
  if (!parsed.ok) return { src: undefined, ...(parsed.line !== undefined ? { yamlError: parsed.line } : {}) }
  return { src: parsed.source }
}

/** The first single-quoted name in the innermost message, when it is a top-level frontmatter key. */
const lineOfNamedKey = (error: unknown, src: Source | undefined): number | undefined => {
  if (src === undefined) return undefined
  const message = renderChain(error)
  const holder = src.top(1)
  for (const match of message.matchAll(/'([A-Za-z_][A-Za-z0-9_.]*)'/g)) {
    const key = match[1]!.split(".")[0]!
    const line = keyLine({ src }, holder, key)
    if (line !== undefined && line !== holder.line) return line
  }
  return undefined
}

/** An agent Markdown file named on the command line or found by the walk. */
export const lintAgentText: FileLint = (path, text, state, emitter) =>
  Effect.gen(function*() {
    const { src, yamlError } = frontmatterSource(text)
    const parsed = yield* Effect.result(parseAgentText(text, path))
    if (parsed._tag === "Failure") {
      const structural = typeof splitFrontmatter(text) === "string"
      emitter.emit(
        "error",
        renderChain(parsed.failure),
        yamlError ?? (structural ? 1 : lineOfNamedKey(parsed.failure, src))
      )
      return
    }
    yield* lintAgentFileContents("the agent", parsed.success, src, { src }, state, emitter)
  })
