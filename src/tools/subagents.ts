// Subagents (docs/workflows.md#subagents): `agents:` entries of lait.config.yml offered to the model as
// `agent__<name>` tools. A call runs the agent with its own frontmatter settings and the config's
// `default:` only (not the calling step's or workflow's), through the same tool loop, so a subagent
// may have tools and subagents of its own. The chain of running agent files is carried along: calling
// one that is already running is a cycle, and more than 16 nested agents is an error.
import { Effect } from "effect"
import { type LaitConfigService, modelRequired } from "../config/LaitConfig.ts"
import { type AnyLaitError, withContext } from "../core/errors.ts"
import { FileLoader } from "../platform/FileLoader.ts"
import { isJsonObject, type Json, type JsonObject, textForm } from "../core/json.ts"
import { SubagentError } from "./subagentErrors.ts"
import { ToolError } from "./toolErrors.ts"
import { loadAgentFile } from "../lang/agentFile.ts"
import { checkJson } from "../lang/jsonschema.ts"
import { parseSchemaFile } from "../lang/schemaRef.ts"
import type { AgentDefinition, LlmSettings, SchemaRef } from "../lang/model.ts"
import { renderTemplate } from "../lang/template.ts"
import type { ChatMessage, ResponseFormat } from "../model/types.ts"
import { qualifyToolName } from "./names.ts"
import { toolDefinition, type ToolEntry } from "./types.ts"
import { parseJsonText } from "../core/jsonDepth.ts"

export const MAX_SUBAGENT_DEPTH = 16
export const DEFAULT_SCHEMA_NAME = "structured_output"

/** The generic parameters of a subagent without `input_schema`. */
export const GENERIC_SUBAGENT_PARAMETERS: JsonObject = {
  type: "object",
  properties: {
    input: {
      description: "The task or input to pass to the subagent. A string for a plain-text task, or a JSON " +
        "object/array if the subagent expects structured input."
    }
  },
  required: ["input"]
}

export interface LoadedSubagent {
  readonly name: string
  readonly definition: AgentDefinition
  /** The agent file's real path: the identity used for cycle detection. */
  readonly canonicalPath: string
  /** `input_schema`, loaded. */
  readonly inputSchema: JsonObject | undefined
  readonly parameters: JsonObject
}

/** One model request of a subagent, as the tool loop runs it. */
export interface SubagentRequest {
  readonly name: string
  readonly label: string
  readonly model: string
  readonly settings: ReadonlyArray<LlmSettings | undefined>
  readonly messages: ReadonlyArray<ChatMessage>
  readonly responseFormat: ResponseFormat | null
  readonly activeAgentPaths: ReadonlyArray<string>
}

export const loadSchemaRef = (ref: SchemaRef, label: string): Effect.Effect<JsonObject, AnyLaitError, FileLoader> => {
  const source = ref.source
  if (source.kind === "inline") return Effect.succeed(source.schema)
  return FileLoader.use((f) => f.readText(source.path)).pipe(
    Effect.flatMap((text) => parseSchemaFile(text, source.path, label))
  )
}

/** The run's subagent registry: agent files are read once per run. */
export class Subagents {
  private readonly cache = new Map<string, LoadedSubagent>()

  constructor(private readonly config: LaitConfigService) {}

  load(name: string): Effect.Effect<LoadedSubagent, AnyLaitError, FileLoader> {
    return Effect.gen({ self: this }, function*() {
      const path = this.config.config.agents?.[name]
      if (path === undefined) {
        return yield* new SubagentError({ reason: { _tag: "Unknown", name } })
      }
      const cached = this.cache.get(path)
      if (cached !== undefined) return cached
      const loaded = yield* Effect.gen(function*() {
        const definition = yield* loadAgentFile(path)
        const canonicalPath = yield* FileLoader.use((files) => files.realPath(path)).pipe(
          // The OS error's own words, as they have always been reported.
          Effect.mapError((e) =>
            new SubagentError({ reason: { _tag: "ResolvePathFailed", path, detail: e.os.message } })
          )
        )
        const inputSchema = definition.inputSchema === undefined
          ? undefined
          : yield* loadSchemaRef(definition.inputSchema, "input_schema")
        return {
          name,
          definition,
          canonicalPath,
          inputSchema,
          parameters: inputSchema ?? GENERIC_SUBAGENT_PARAMETERS
        } satisfies LoadedSubagent
      }).pipe(Effect.mapError(withContext(`subagent '${name}'`)))
      this.cache.set(path, loaded)
      return loaded
    })
  }

  /** Entries for a `subagents:` list; `run` performs one call. */
  entries(
    names: ReadonlyArray<string>,
    run: (agent: LoadedSubagent, args: string) => Effect.Effect<string, AnyLaitError>
  ): Effect.Effect<ReadonlyArray<ToolEntry>, AnyLaitError, FileLoader> {
    return Effect.gen({ self: this }, function*() {
      const loaded = yield* Effect.forEach(names, (name) => this.load(name), { concurrency: "unbounded" })
      const entries: Array<ToolEntry> = []
      const seen = new Set<string>()
      for (const agent of loaded) {
        const qualified = qualifyToolName("subagent tool", "agent", agent.name)
        if (qualified instanceof ToolError) return yield* qualified
        if (seen.has(qualified)) {
          return yield* new SubagentError({ reason: { _tag: "Duplicate", name: agent.name } })
        }
        seen.add(qualified)
        const description = agent.definition.description ?? `Runs the '${agent.name}' subagent for a delegated task.`
        entries.push({
          name: qualified,
          source: "subagent",
          definition: toolDefinition(qualified, description, agent.parameters),
          call: (args) => run(agent, args)
        })
      }
      return entries
    })
  }

  /**
   * Turns one call into the subagent's first request: checks nesting, reads the arguments (the whole
   * object with an `input_schema`, else its `input` field), validates them, renders the system prompt.
   */
  request(
    agent: LoadedSubagent,
    args: string,
    activeAgentPaths: ReadonlyArray<string>
  ): Effect.Effect<SubagentRequest, AnyLaitError, FileLoader> {
    const { name, definition } = agent
    const service = this.config
    const config = service.config
    return Effect.gen(function*() {
      if (activeAgentPaths.includes(agent.canonicalPath)) {
        return yield* new SubagentError({ reason: { _tag: "Cycle", name, path: agent.canonicalPath } })
      }
      if (activeAgentPaths.length >= MAX_SUBAGENT_DEPTH) {
        return yield* new SubagentError({ reason: { _tag: "TooDeep", name, max: MAX_SUBAGENT_DEPTH } })
      }
      const built = yield* Effect.gen(function*() {
        let parsed: Json
        try {
          parsed = args.trim() === "" ? {} : (parseJsonText(args) as Json)
        } catch (e) {
          const detail = e instanceof Error ? e.message : String(e)
          return yield* new SubagentError({ reason: { _tag: "ArgumentsNotJson", detail } })
        }
        let input: Json
        if (agent.inputSchema !== undefined) {
          input = parsed
          const invalid = yield* checkJson(agent.inputSchema, input, "input")
          if (invalid !== undefined) return yield* invalid
        } else {
          if (!isJsonObject(parsed) || !Object.hasOwn(parsed, "input")) {
            return yield* new SubagentError({ reason: { _tag: "MissingInput" } })
          }
          input = parsed["input"]!
        }
        const model = definition.model ?? config.default?.model
        if (model === undefined) {
          return yield* modelRequired(`subagent '${name}'`, ["it in its frontmatter"], service)
        }
        const system = yield* renderTemplate(definition.system, { input, steps: {}, inputs: {}, loop: null })
        const responseFormat: ResponseFormat | null = definition.outputSchema === undefined ? null : {
          type: "json_schema",
          json_schema: {
            name: definition.schemaName ?? definition.outputSchema.name ?? DEFAULT_SCHEMA_NAME,
            schema: yield* loadSchemaRef(definition.outputSchema, "output_schema"),
            strict: true
          }
        }
        const messages: Array<ChatMessage> = [
          ...(system.length > 0 ? [{ role: "system" as const, content: system }] : []),
          { role: "user", content: textForm(input) }
        ]
        return {
          name,
          label: `subagent '${name}'`,
          model,
          settings: [definition, config.default],
          messages,
          responseFormat,
          activeAgentPaths: [...activeAgentPaths, agent.canonicalPath]
        } satisfies SubagentRequest
      }).pipe(Effect.mapError(withContext(`subagent '${name}'`)))
      return built
    })
  }
}
