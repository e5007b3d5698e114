// A request to the tool runtime (./ToolRuntime.ts) and what decides whether it takes the tool loop
// (./toolLoop.ts): apart from both, so that the loop, loaded only when a request needs it, does not
// import the runtime that loads it.
import type { Effect, Scope } from "effect"
import type { Endpoints } from "../config/endpoints.ts"
import type { LaitConfig } from "../config/LaitConfig.ts"
import type { AnyLaitError } from "../core/errors.ts"
import type { ModelClient, ModelResult } from "../model/ModelClient.ts"
import type { RunUsage } from "../model/RunUsage.ts"
import type { ChatRequest } from "../model/types.ts"
import type { FileLoader } from "../platform/FileLoader.ts"
import type { RunTracer } from "../trace/RunTracer.ts"

export interface ToolNames {
  readonly mcp?: ReadonlyArray<string> | undefined
  readonly subagents?: ReadonlyArray<string> | undefined
  readonly tools?: ReadonlyArray<string> | undefined
  readonly skills?: ReadonlyArray<string> | undefined
}

export interface ToolRequest {
  /** Usage and trace label of every request; `lait.step.label` of the tool calls. */
  readonly label: string
  readonly endpoints: Endpoints
  /** Messages and sampling; `response_format` is what the final answer must follow. `tools` is ignored. */
  readonly request: ChatRequest
  readonly names: ToolNames
  /** Default 8. */
  readonly maxToolRounds?: number | undefined
  /** Real paths of the agent files running as subagents above this request (cycle detection). */
  readonly activeAgentPaths?: ReadonlyArray<string>
  /** Completes when the run is cancelled (the `lait run` deadline): the loop then fails. */
  readonly cancelled?: Effect.Effect<void> | undefined
}

export interface ToolRuntimeService {
  readonly complete: (request: ToolRequest) => Effect.Effect<ModelResult, AnyLaitError>
}

/**
 * What a tool runtime is built with: the run's services (the config, the model client, files, token
 * usage, the trace recorder) and its scope, which stops the run's MCP servers.
 */
export type ToolRuntimeContext = LaitConfig | ModelClient | FileLoader | RunUsage | RunTracer | Scope.Scope

export interface ToolRuntimeOptions {
  /** MCP I/O timeout in milliseconds (default 300 s). */
  readonly mcpTimeoutMs?: number
  /**
   * The run's own working directory (a test file's): shell tools and stdio MCP servers start there and
   * their relative `cwd:` resolves against it. Undefined: the process's directory, as in `lait run`.
   */
  readonly cwd?: string | undefined
}

/** Whether the request takes the loop: it names an MCP server, a subagent or a shell tool. */
export const usesTools = (names: ToolNames): boolean =>
  (names.mcp?.length ?? 0) + (names.subagents?.length ?? 0) + (names.tools?.length ?? 0) > 0
