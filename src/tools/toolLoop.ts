// The tool loop of ToolRuntime.ts (whose header says what it does), with the MCP servers, subagents,
// shell tools, skills and tool cassettes it needs: loaded and built by a run's first request that
// names tools or skills, so that a workflow of plain prompts loads none of it.
import { Effect, Exit } from "effect"
import type { Endpoints } from "../config/endpoints.ts"
import { LaitConfig } from "../config/LaitConfig.ts"
import { DEFAULT_MAX_TOOL_ROUNDS } from "../config/schema.ts"
import { type AnyLaitError, InterruptedError, withContext } from "../core/errors.ts"
import { FileLoader } from "../platform/FileLoader.ts"
import type { Json } from "../core/json.ts"
import { Attr, errorAttributesOf, TraceContent } from "../core/tracing.ts"
import { ToolError } from "./toolErrors.ts"
import { pickSetting, pickToolNames } from "../lang/model.ts"
import { toolContent } from "../model/chatContent.ts"
import { ModelClient, type ModelResult } from "../model/ModelClient.ts"
import { RunUsage } from "../model/RunUsage.ts"
import { StreamSink, UsageWanted } from "../model/streamSink.ts"
import type { ChatMessage, ChatRequest, ToolCall } from "../model/types.ts"
import { RunTracer } from "../trace/RunTracer.ts"
import { approve, type Decision } from "./approval.ts"
import { makeToolTape } from "./cassette/ToolCassettes.ts"
import { makeCompactor } from "./compaction.ts"
import { makeMcpRegistry, type McpRegistryOptions } from "./mcp/registry.ts"
import { findCollision } from "./names.ts"
import { POLICY_DENIAL, policyAllows } from "./policy.ts"
import { shellToolEntries } from "./shell.ts"
import { Skills, skillSection, skillToolEntries, skillToolName, withSkillText } from "./skills.ts"
import { type LoadedSubagent, Subagents } from "./subagents.ts"
import {
  type ToolNames,
  type ToolRequest,
  type ToolRuntimeContext,
  type ToolRuntimeOptions,
  type ToolRuntimeService,
  usesTools
} from "./request.ts"
import type { ToolEntry } from "./types.ts"
import { JsonTooDeep, parseJsonText } from "../core/jsonDepth.ts"

/** Tool calls of one reply run at most this many at a time. */
export const MAX_CONCURRENT_TOOL_CALLS = 8

export const maxToolRoundsError = (max: number) => new ToolError({ reason: { _tag: "MaxRounds", max } })

/** What the tool loop decided about one call: run it, refuse it (policy, approval), or answer that it is malformed. */
type Verdict =
  | { readonly allowed: true; readonly entry: ToolEntry }
  | Exclude<Decision, { readonly allowed: true }>
  | { readonly allowed: false; readonly error: string }

/** The answer to a call of a tool that was not offered. */
export const unknownToolAnswer = (name: string, offered: ReadonlyArray<string>): string =>
  offered.length === 0
    ? `unknown tool '${name}'; no tools are available`
    : `unknown tool '${name}'; available: ${offered.join(", ")}`

/** Why a call's raw arguments cannot be used (blank and `null` mean none), or undefined when they can. */
export const argumentsProblem = (raw: string): string | undefined => {
  if (raw.trim() === "") return undefined
  let value: unknown
  try {
    value = parseJsonText(raw)
  } catch (e) {
    if (e instanceof JsonTooDeep) return `arguments are ${e.message}`
    return `arguments are not valid JSON: ${e instanceof Error ? e.message : String(e)}`
  }
  if (value !== null && (typeof value !== "object" || Array.isArray(value))) {
    const text = raw.trim()
    return `arguments must be a JSON object, got ${text.length > 200 ? `${text.slice(0, 200)}…` : text}`
  }
  return undefined
}

const assistantMessage = (result: ModelResult): ChatMessage => ({
  role: "assistant",
  ...(result.content !== null ? { content: result.content } : {}),
  tool_calls: result.toolCalls
})

/** The runtime of ToolRuntime.ts for requests that take the loop (or name skills): built on the first. */
export const makeToolLoop = (
  options: ToolRuntimeOptions
): Effect.Effect<ToolRuntimeService, never, ToolRuntimeContext> =>
  Effect.gen(function*() {
    const config = yield* LaitConfig
    const client = yield* ModelClient
    const files = yield* FileLoader
    const usage = yield* RunUsage
    const tracer = yield* RunTracer
    const tape = yield* makeToolTape
    const registryOptions: McpRegistryOptions = {
      tape,
      servers: config.config.mcp_servers,
      env: config.env,
      cwd: options.cwd ?? config.cwd,
      ...(options.cwd !== undefined ? { defaultCwd: options.cwd } : {}),
      ...(options.mcpTimeoutMs !== undefined ? { timeoutMs: options.mcpTimeoutMs } : {})
    }
    const mcp = yield* makeMcpRegistry(registryOptions)
    const subagents = new Subagents(config)
    const skills = new Skills(config.config.skills)
    const progressive = config.config.default?.skill_progressive_disclosure === true
    const always = new Set<string>()

    const send = (label: string, endpoints: Endpoints, request: ChatRequest) =>
      client.complete({ label, endpoints, request }).pipe(
        Effect.provideService(RunUsage, usage),
        Effect.withTracer(tracer.tracer)
      )

    const toolSet = (names: ToolNames, activeAgentPaths: ReadonlyArray<string>, fromSkills: ReadonlyArray<ToolEntry>) =>
      Effect.gen(function*() {
        const [fromMcp, fromSubagents, fromShell] = yield* Effect.all([
          mcp.entries(names.mcp ?? []),
          subagents.entries(names.subagents ?? [], (agent, args) => runSubagent(agent, args, activeAgentPaths)),
          shellToolEntries(names.tools ?? [], config.config.tools, { env: config.env, cwd: options.cwd })
        ], { concurrency: "unbounded" })
        const collision = findCollision([
          { source: "mcp", names: fromMcp.map((e) => e.name) },
          { source: "subagent", names: fromSubagents.map((e) => e.name) },
          { source: "shell", names: fromShell.map((e) => e.name) },
          { source: "skill", names: fromSkills.map((e) => e.name) }
        ])
        if (collision !== undefined) return yield* collision
        // MCP calls go through the tape inside the registry, after its own checks.
        const taped = fromShell.map((e): ToolEntry => ({ ...e, call: (args) => tape.call(e.name, args, e.call(args)) }))
        return [...fromMcp, ...fromSubagents, ...taped, ...fromSkills]
      }).pipe(Effect.provideService(FileLoader, files))

    // `exit`: what the model got back (the tool's output or the refusal), or how the call failed.
    const record = (
      call: ToolCall,
      label: string,
      round: number,
      decision: Verdict,
      start: Date,
      exit: Exit.Exit<string, unknown>
    ) =>
      TraceContent.use((content) =>
        tracer.record({
          operation: "execute_tool",
          label: `tool '${call.function.name}'`,
          start,
          end: new Date(),
          attributes: {
            [Attr.toolName]: call.function.name,
            [Attr.toolArguments]: call.function.arguments,
            "lait.step.label": label,
            "lait.tool.round": round,
            ...(decision.allowed
              ? { "lait.tool.decision": "allowed" }
              : "error" in decision
              ? { "lait.tool.decision": "error", "lait.tool.error": decision.error }
              : { "lait.tool.decision": "denied", "lait.tool.denial_reason": decision.reason }),
            ...(Exit.isFailure(exit) ? errorAttributesOf(exit.cause) : {}),
            ...(content === undefined
              ? {}
              : toolContent(call.function.arguments, Exit.isSuccess(exit) ? exit.value : undefined))
          } satisfies Record<string, Json>
        }))

    const decide = (call: ToolCall, byName: ReadonlyMap<string, ToolEntry>): Effect.Effect<Verdict, AnyLaitError> => {
      const name = call.function.name
      const entry = byName.get(name)
      if (entry === undefined) {
        return Effect.succeed({ allowed: false, error: unknownToolAnswer(name, [...byName.keys()]) })
      }
      if (!policyAllows(config.config.tool_policy, name)) {
        return Effect.succeed({ allowed: false, reason: POLICY_DENIAL })
      }
      // Reading a skill's own instructions has no effect outside the conversation: nobody is asked.
      if (entry.source === "skill") return Effect.succeed({ allowed: true, entry })
      // Checked before approval: nobody should be asked about a call that cannot run.
      const problem = argumentsProblem(call.function.arguments)
      if (problem !== undefined) {
        return Effect.succeed({ allowed: false, error: problem })
      }
      return Effect.map(
        approve({
          name,
          arguments: call.function.arguments,
          command: entry.preview?.(call.function.arguments) ?? Effect.succeed(undefined),
          always
        }),
        (decision): Verdict => (decision.allowed ? { allowed: true, entry } : decision)
      )
    }

    const dispatch = (
      call: ToolCall,
      decision: Verdict,
      label: string,
      round: number
    ): Effect.Effect<ChatMessage, AnyLaitError> =>
      Effect.gen(function*() {
        const name = call.function.name
        const start = new Date()
        if (!decision.allowed) {
          const answer = "error" in decision ? decision.error : decision.reason
          yield* Effect.logDebug(`tool call '${name}' (round ${round}) not run: ${answer}`)
          yield* record(call, label, round, decision, start, Exit.succeed(answer))
          return { role: "tool", content: answer, tool_call_id: call.id } satisfies ChatMessage
        }
        yield* Effect.logDebug(`calling tool '${name}' (round ${round}) with arguments ${call.function.arguments}`)
        const content = yield* decision.entry.call(call.function.arguments).pipe(
          // A subagent's own answers are a tool's result, not text of the streamed answer.
          Effect.provideService(StreamSink, undefined),
          Effect.onExit((exit) => record(call, label, round, decision, start, exit))
        )
        return { role: "tool", content, tool_call_id: call.id } satisfies ChatMessage
      })

    const loop = (req: ToolRequest, fromSkills: ReadonlyArray<ToolEntry>): Effect.Effect<ModelResult, AnyLaitError> =>
      Effect.gen(function*() {
        const activeAgentPaths = req.activeAgentPaths ?? []
        const entries = yield* toolSet(req.names, activeAgentPaths, fromSkills)
        const byName = new Map(entries.map((e) => [e.name, e]))
        const tools = entries.map((e) => e.definition)
        const max = req.maxToolRounds ?? DEFAULT_MAX_TOOL_ROUNDS
        const messages: Array<ChatMessage> = [...req.request.messages]
        const compaction = config.config.default?.compaction
        const compactor = compaction === undefined ? undefined : makeCompactor({
          settings: compaction,
          label: req.label,
          endpoints: req.endpoints,
          request: req.request,
          resolveEndpoints: (model) => config.resolveEndpoints(model),
          // A summary is bookkeeping, never part of a streamed answer.
          send: (label, endpoints, request) =>
            Effect.provideService(send(label, endpoints, request), StreamSink, undefined),
          tracer
        })
        for (let round = 1;; round++) {
          if (round > max) return yield* maxToolRoundsError(max)
          if (compactor !== undefined) yield* compactor.beforeRound(round, messages)
          const asked = send(req.label, req.endpoints, {
            ...req.request,
            messages: [...messages],
            tools,
            response_format: null
          })
          // A token trigger reads each round's prompt tokens, streamed or not.
          const sent = compaction?.trigger_tokens === undefined
            ? asked
            : Effect.provideService(asked, UsageWanted, true)
          // With structured output the answer is the re-sent request's: only that one streams.
          const reply = yield* req.request.response_format === null
            ? sent
            : Effect.provideService(sent, StreamSink, undefined)
          compactor?.afterRound(reply)
          yield* tape.noteEndpoints(reply.endpoint, req.endpoints)
          if (reply.toolCalls.length === 0) {
            if (req.request.response_format === null) return reply
            return yield* send(req.label, req.endpoints, { ...req.request, messages: [...messages], tools: [] })
          }
          messages.push(assistantMessage(reply))
          const decisions = yield* Effect.forEach(reply.toolCalls, (call) => decide(call, byName))
          const results = yield* Effect.forEach(
            reply.toolCalls,
            (call, i) => dispatch(call, decisions[i]!, req.label, round),
            { concurrency: MAX_CONCURRENT_TOOL_CALLS }
          )
          messages.push(...results)
        }
      })

    /** The request with its skills in the system prompt, and the skill tools of progressive mode. */
    const withSkills = (req: ToolRequest) =>
      Effect.gen(function*() {
        const names = req.names.skills ?? []
        if (names.length === 0) return { req, fromSkills: [] }
        const loaded = yield* skills.load(names).pipe(Effect.provideService(FileLoader, files))
        const fromSkills = progressive ? skillToolEntries(loaded) : []
        if (fromSkills instanceof ToolError) return yield* fromSkills
        // Names were checked by skillToolEntries above.
        const text = loaded.map((skill) => skillSection(skill, progressive ? String(skillToolName(skill)) : undefined))
          .join("\n\n")
        const messages = withSkillText(req.request.messages, text)
        return { req: { ...req, request: { ...req.request, messages } }, fromSkills }
      })

    const complete = (original: ToolRequest): Effect.Effect<ModelResult, AnyLaitError> =>
      Effect.gen(function*() {
        const { req, fromSkills } = yield* withSkills(original)
        if (!usesTools(req.names) && fromSkills.length === 0) {
          return yield* send(req.label, req.endpoints, { ...req.request, tools: [] })
        }
        const cancelled = req.cancelled
        if (cancelled === undefined) return yield* loop(req, fromSkills)
        return yield* Effect.raceFirst(
          loop(req, fromSkills),
          Effect.andThen(cancelled, Effect.fail(new InterruptedError({ message: "workflow execution was cancelled" })))
        )
      })

    const runSubagent = (
      agent: LoadedSubagent,
      args: string,
      activeAgentPaths: ReadonlyArray<string>
    ): Effect.Effect<string, AnyLaitError> =>
      Effect.gen(function*() {
        const sub = yield* subagents.request(agent, args, activeAgentPaths).pipe(
          Effect.provideService(FileLoader, files)
        )
        const chain = sub.settings
        const result = yield* Effect.gen(function*() {
          const endpoints = yield* config.resolveEndpoints(sub.model)
          const sampling = endpoints[0].sampling
          const reasoning = pickSetting("reasoning_effort", chain) ?? sampling.reasoningEffort
          const temperature = pickSetting("temperature", chain) ?? sampling.temperature
          const topP = pickSetting("top_p", chain) ?? sampling.topP
          const maxTokens = pickSetting("max_tokens", chain) ?? sampling.maxTokens
          return yield* complete({
            label: sub.label,
            endpoints,
            request: {
              messages: sub.messages,
              tools: [],
              response_format: sub.responseFormat,
              ...(reasoning !== undefined ? { reasoning_effort: reasoning } : {}),
              ...(temperature !== undefined ? { temperature } : {}),
              ...(topP !== undefined ? { top_p: topP } : {}),
              ...(maxTokens !== undefined ? { max_tokens: maxTokens } : {})
            },
            names: pickToolNames(chain),
            maxToolRounds: pickSetting("max_tool_rounds", chain),
            activeAgentPaths: sub.activeAgentPaths
          })
        }).pipe(Effect.mapError((e) => wrapSubagent(agent.name, e)))
        return result.content ?? ""
      })

    return { complete }
  })

/** `subagent '<name>': …`, keeping an interruption an interruption and the error class otherwise. */
const wrapSubagent = (name: string, error: AnyLaitError): AnyLaitError => {
  const message = `subagent '${name}'`
  return error._tag === "InterruptedError"
    ? new InterruptedError({ message, cause: error })
    : withContext(message)(error)
}
