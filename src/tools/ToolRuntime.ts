// The tool loop (docs/workflows.md#the-tool-loop, docs/workflows.md#structured-output). A request
// whose settings name no MCP server, subagent or shell tool is sent once, with its response_format.
// Otherwise each round sends the conversation with the tools and without response_format (a strict
// schema would stop many servers from ever calling a tool); a reply without tool calls ends the
// loop, and when the step wants structured output the same messages are sent once more with `tools:
// []` and the schema. Each round is its own ModelClient call, so cache, record and replay key every
// round. Tool calls of a round are decided one by one (policy, then approval), run up to 8 at a
// time, and answered in the model's order; every call, denied ones included, becomes an
// `execute_tool` event of the run's trace. A call the model got wrong (a tool name that is not
// offered, arguments that are not a JSON object) is answered with what is wrong, so the model can
// correct itself, rather than ending the run. With `default.compaction` set, the conversation may
// be summarised just before a round's request (src/tools/compaction.ts). Skills named by the request
// are appended to its system prompt first (src/tools/skills.ts); in progressive mode they also become
// `skill__<name>` tools, so such a request takes the loop even without other tools.
//
// One runtime per run context: it owns the run's MCP servers (stopped when the run's scope closes),
// the subagent cache and the `a` (always) answers of --approve-tools.
//
// A request that names no tools and no skills is sent as is, without loading the loop (toolLoop.ts):
// that module and what it brings (MCP, subagents and agent files, shell tools, skills, tool cassettes)
// are loaded, and the loop built, by the run's first request that needs them.
import { Effect } from "effect"
import type { AnyLaitError } from "../core/errors.ts"
import { ModelClient, type ModelResult } from "../model/ModelClient.ts"
import { RunUsage } from "../model/RunUsage.ts"
import { RunTracer } from "../trace/RunTracer.ts"
import type { ToolRequest, ToolRuntimeContext, ToolRuntimeOptions, ToolRuntimeService } from "./request.ts"
import { usesTools } from "./request.ts"

export const makeToolRuntime = (
  options: ToolRuntimeOptions = {}
): Effect.Effect<ToolRuntimeService, never, ToolRuntimeContext> =>
  Effect.gen(function*() {
    const client = yield* ModelClient
    const usage = yield* RunUsage
    const tracer = yield* RunTracer
    // The loop is built later, but with this context: the run's services, its scope (which stops the
    // MCP servers) and its tool-cassette mode, as if it had been built here. Cached: concurrent steps
    // share one loop, hence one set of MCP servers.
    const context = yield* Effect.context<ToolRuntimeContext>()
    const loop = yield* Effect.cached(
      Effect.flatMap(Effect.promise(() => import("./toolLoop.ts")), (m) => m.makeToolLoop(options)).pipe(
        Effect.provideContext(context)
      )
    )

    const complete = (req: ToolRequest): Effect.Effect<ModelResult, AnyLaitError> => {
      if ((req.names.skills?.length ?? 0) > 0 || usesTools(req.names)) {
        return Effect.flatMap(loop, (l) => l.complete(req))
      }
      const request = { ...req.request, tools: [] }
      return client.complete({ label: req.label, endpoints: req.endpoints, request }).pipe(
        Effect.provideService(RunUsage, usage),
        Effect.withTracer(tracer.tracer)
      )
    }
    return { complete }
  })
