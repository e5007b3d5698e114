// Runs workflow YAML through the real loader and engine in-process, capturing progress lines, so the
// engine tests can assert values, stderr lines and error messages exactly.
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Effect, Exit, Layer } from "effect"
import { type ExitCode, exitCodeOf, LaitError, primaryError, renderChain } from "../../../src/core/errors.ts"
import { FileLoader } from "../../../src/platform/FileLoader.ts"
import type { Json } from "../../../src/core/json.ts"
import { loadWorkflow } from "../../../src/lang/load.ts"
import { Engine } from "../../../src/workflow/Engine.ts"
import type { RunOptions, Steps } from "../../../src/workflow/engine/types.ts"
import { LlmSteps } from "../../../src/workflow/LlmSteps.ts"
import { Progress } from "../../../src/workflow/progress.ts"
import { RunContext, type RunContextOptions } from "../../../src/workflow/RunContext.ts"
export { alive } from "../../e2e/util.ts"

/** For runs without model steps: a model call is a test failure, not a silent success. */
export const noModelSteps = Layer.succeed(
  LlmSteps,
  LlmSteps.of({
    runPrompt: (_step, _input, ctx) => Effect.fail(new LaitError({ message: `unexpected model call in step '${ctx.label}'` })),
    runAgent: (_step, _input, ctx) => Effect.fail(new LaitError({ message: `unexpected model call in step '${ctx.label}'` }))
  })
)

/** What an engine test's run gets from outside: this process's environment unless `env` is given, no config. */
export const runContext = (context: Partial<RunContextOptions> = {}) =>
  RunContext.layer({ env: process.env, ...context })

export const makeDir = (prefix: string): string => fs.mkdtempSync(path.join(os.tmpdir(), `lait-${prefix}-`))

let counter = 0

/** Writes `yaml` into `dir` (as `name`, or a fresh `wf-<n>.yml`) and returns its absolute path. */
export const writeFile = (dir: string, yaml: string, name?: string): string => {
  const file = path.join(dir, name ?? `wf-${++counter}.yml`)
  fs.writeFileSync(file, yaml)
  return file
}

export type Ran =
  | { readonly ok: true; readonly value: Json; readonly steps: Steps; readonly lines: ReadonlyArray<string> }
  | {
    readonly ok: false
    readonly error: string
    readonly tag: string | undefined
    readonly code: ExitCode
    readonly lines: ReadonlyArray<string>
  }

export interface RunYamlOptions {
  readonly inputs?: Readonly<Record<string, Json>>
  readonly options?: RunOptions
  /** The run's RunContext (environment, `workflows:` registry, answerer). */
  readonly context?: Partial<RunContextOptions>
  readonly llm?: Layer.Layer<LlmSteps>
  /** Write the file under this name (for messages that show the path). */
  readonly name?: string
}

export const runFile = async (file: string, initial: Json = null, opts: RunYamlOptions = {}): Promise<Ran> => {
  const lines: Array<string> = []
  const program = Effect.gen(function*() {
    const workflow = yield* loadWorkflow(file)
    return yield* (yield* Engine).run(workflow, initial, opts.inputs ?? {}, opts.options)
  }).pipe(
    Effect.provide(
      Layer.mergeAll(
        Engine.layer,
        FileLoader.layer,
        Progress.layerCapture(lines),
        opts.llm ?? noModelSteps,
        runContext(opts.context)
      )
    )
  )
  const exit = await Effect.runPromiseExit(program)
  if (Exit.isSuccess(exit)) return { ok: true, value: exit.value.output, steps: exit.value.steps, lines }
  const error = primaryError(exit.cause)
  return {
    ok: false,
    error: renderChain(error),
    tag: typeof error === "object" && error !== null && "_tag" in error ? String(error._tag) : undefined,
    code: exitCodeOf(error),
    lines
  }
}

export const runYaml = (dir: string, yaml: string, initial: Json = null, opts: RunYamlOptions = {}): Promise<Ran> =>
  runFile(writeFile(dir, yaml, opts.name), initial, opts)

/** The value of a successful run; fails the test with the error otherwise. */
export const valueOf = (ran: Ran): Json => {
  if (!ran.ok) throw new Error(`expected success, got: ${ran.error}\n${ran.lines.join("\n")}`)
  return ran.value
}

export const errorOf = (ran: Ran): string => {
  if (ran.ok) throw new Error(`expected a failure, got ${JSON.stringify(ran.value)}`)
  return ran.error
}

