// What one run needs from outside the workflow file: the environment `${VAR}`s are read from, the
// configuration (or none), the `workflows:` registry, how `ask:` steps get answers and, when the run
// is graded, the judge for `llm_judge`. The engine, the dry run and the assertion evaluator read these
// from this service, so a run's requirement type says what it depends on; nothing reads the process
// environment or looks a service up optionally behind the caller's back.
//
// `lait run` builds one from the config; `lait test` one per test file (answers never come from a
// terminal, no judge, maybe a working directory of its own); `lait eval` one per (case, repeat) with a
// judge metered in that run's usage.
//
// The working directory travels here rather than through process.chdir: test files with different
// working directories run side by side in one process.
import { Context, type Effect, Layer } from "effect"
import * as nodePath from "node:path"
import { LaitConfig, type LaitConfigService } from "../config/LaitConfig.ts"
import type { Env } from "../config/env.ts"
import type { AnyLaitError } from "../core/errors.ts"
import { type Answerer, terminalAnswerer } from "../platform/terminal.ts"

export interface JudgeRequest {
  readonly criteria: string
  /** The text being graded. */
  readonly output: string
  /** What produced it (an eval case's input), shown to the judge when known. */
  readonly input: string | undefined
  /** The assertion's own `model:`; the judge picks its context's default when undefined. */
  readonly model: string | undefined
}

export interface JudgeVerdict {
  /** From 0.0 to 1.0. */
  readonly score: number
  /** The judge's explanation, when it gave one (reports show it). */
  readonly reasoning: string | undefined
}

export interface JudgeService {
  /** The judge's verdict; an error becomes `llm_judge evaluation failed: <chain>`. */
  readonly score: (request: JudgeRequest) => Effect.Effect<JudgeVerdict, AnyLaitError>
}

export interface RunContextService {
  /** Where `${VAR}` in `run:` `env`/`cwd` is looked up: the config's environment (after `.env`). */
  readonly env: Env
  /** Undefined where no configuration is loaded at all (library use, engine tests). */
  readonly config: LaitConfigService | undefined
  /** `workflows:` registry lookup (absolute paths). */
  readonly workflowRegistry: (name: string) => string | undefined
  /** How `ask:` steps get their answer. */
  readonly answerer: Answerer
  /** The grading model for `llm_judge`; undefined where there is none (`lait test`, `lait run`). */
  readonly judge: JudgeService | undefined
  /**
   * The absolute directory the run's relative paths resolve against (`files:`/`images:`, `write:`,
   * `run:` and tool `cwd`) and where its commands and MCP servers start; undefined: the process's own.
   */
  readonly cwd: string | undefined
}

export interface RunContextOptions {
  readonly env: Env
  readonly config?: LaitConfigService | undefined
  /** Default: the config's `workflows:`, else none. */
  readonly workflowRegistry?: ((name: string) => string | undefined) | undefined
  /** Default: the terminal on stdin. */
  readonly answerer?: Answerer | undefined
  readonly judge?: JudgeService | undefined
  /** Default: the process's working directory. */
  readonly cwd?: string | undefined
}

const make = (options: RunContextOptions): RunContextService => {
  const registered = options.config?.config.workflows ?? {}
  return {
    env: options.env,
    config: options.config,
    workflowRegistry: options.workflowRegistry ?? ((name) => registered[name]),
    answerer: options.answerer ?? terminalAnswerer,
    judge: options.judge,
    cwd: options.cwd === undefined ? undefined : nodePath.resolve(options.cwd)
  }
}

/** What `fromConfig` leaves to the caller. */
export type RunContextOverrides = Omit<RunContextOptions, "env" | "config">

export class RunContext extends Context.Service<RunContext, RunContextService>()("lait/workflow/RunContext") {
  static readonly make = (options: RunContextOptions): RunContextService => RunContext.of(make(options))

  /** A run of this invocation's configuration: its environment and its `workflows:` registry. */
  static readonly fromConfig = (config: LaitConfigService, overrides?: RunContextOverrides): RunContextService =>
    RunContext.make({ ...overrides, env: config.env, config })

  static readonly layer = (options: RunContextOptions) => Layer.succeed(RunContext, RunContext.make(options))

  static readonly layerConfig = (overrides?: RunContextOverrides): Layer.Layer<RunContext, never, LaitConfig> =>
    Layer.effect(RunContext, LaitConfig.useSync((config) => RunContext.fromConfig(config, overrides)))
}
