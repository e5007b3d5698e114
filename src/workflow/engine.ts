// The workflow interpreter (format version 2). A step list is run by threading a State — the current
// value, the file-wide progress counter and the values recorded by `id` — through each step, and a
// Flow says whether the list ended normally, by `break` (caught by the innermost loop) or by `stop`
// (caught by the running file). Everything a run owns (counter, $steps, the call stack of files,
// the cache of loaded children, cancellation) lives in these values and frames, never in module
// state, so any number of runs can share a process.
//
// Two kinds of cancellation exist. Interruption (Ctrl-C, a step's own `timeout`, a sibling branch
// failing, a child file's `timeout`) stops fibers and runs finalizers; the interrupted work reports
// nothing. The run-level cancel signal (the `lait run` deadline, or a caller's) is cooperative: work
// in flight observes it and fails with a typed message naming what was cut short, as upstream does.
import { Deferred, Effect, Fiber } from "effect"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { LaitConfig } from "../config/LaitConfig.ts"
import { type Env, expandMap, expandVars } from "../core/env.ts"
import {
  type AnyLaitError,
  InterruptedError,
  isLaitError,
  LaitError,
  renderChain,
  withContext
} from "../core/errors.ts"
import { FileLoader } from "../core/FileLoader.ts"
import { describeJsonType, isJsonObject, type Json, textForm } from "../core/json.ts"
import { resolveInitial, resolveInputs } from "../lang/inputs.ts"
import { evalJqOne, isTruthy, loadJq } from "../lang/jq.ts"
import { loadWorkflow } from "../lang/load.ts"
import type { ModelDefinition, RetryPolicy, Step, StepKind, Workflow, WorkflowDefaults } from "../lang/model.ts"
import { listAt, positionIn, stepLabel } from "../lang/positions.ts"
import { loadSchemaRef } from "../lang/schemaRef.ts"
import { renderTemplate, renderTemplateParts } from "../lang/template.ts"
import { osErrorText, runCommand } from "../platform/process.ts"
import { type Answerer, terminalAnswerer } from "../platform/terminal.ts"
import { stepSpan, workflowSpan } from "../trace/spans.ts"
import { ask } from "./engine/ask.ts"
import { unsafeWritePath, writeOutputFile } from "./engine/write.ts"
import { type AgentStep, type LlmStepContext, LlmSteps, type LlmStepsService, type PromptStep } from "./LlmSteps.ts"
import { Progress, ProgressWriter } from "./progress.ts"

/** Upstream's limit on `workflow:` nesting (files on the call stack). */
export const MAX_WORKFLOW_DEPTH = 32
/** The longest single wait between two attempts of a step. */
export const MAX_RETRY_DELAY_SECONDS = 3600

export type Steps = Readonly<Record<string, Json>>

export interface RunOptions {
  /**
   * What the file's own `timeout:` does. `"fail"` (the default; child files, `lait test`/`eval`):
   * the run fails with `workflow timed out after Ns ('timeout')`. `"cancel"` (`lait run`): a line
   * `lait: the workflow's 'timeout' (Ns) was exceeded; cancelling the run` goes to the progress sink
   * and the run is cancelled, so whatever was running fails with its own cancellation message.
   */
  readonly timeoutMode?: "fail" | "cancel"
  /** Cancels the run when completed (another deadline of the caller's). */
  readonly cancel?: Deferred.Deferred<void>
  /** `workflows:` registry lookup (absolute paths); defaults to LaitConfig when one is provided. */
  readonly workflowRegistry?: (name: string) => string | undefined
  /** Where `${VAR}` in `run:` `env`/`cwd` is looked up; defaults to LaitConfig's env, else process.env. */
  readonly env?: Env
  /** How `ask:` steps get their answer; defaults to the terminal on stdin. */
  readonly answerer?: Answerer
}

export interface RunResult {
  /** The workflow's result: the last value, through the top-level `output:` when set. */
  readonly output: Json
  /** Values recorded by `id` in the top-level file (for trajectory assertions). */
  readonly steps: Steps
}

type Flow = "continue" | "break" | "stop"

interface State {
  readonly value: Json
  readonly counter: number
  readonly steps: Steps
}

interface Outcome {
  readonly state: State
  readonly flow: Flow
}

/**
 * Concurrency inherited across files, so that a child file called from a parallel branch or a
 * concurrent for_each item still cannot `ask`, or `write` a fixed path from several items at once.
 */
type Placement = "sequential" | "parallel" | "concurrent-items"

interface RunContext {
  readonly cancel: Deferred.Deferred<void>
  readonly llm: LlmStepsService
  readonly registry: (name: string) => string | undefined
  readonly env: Env
  readonly answerer: Answerer
  /** Child files loaded during this run, by canonical path. */
  readonly children: Map<string, Workflow>
}

/** What is in effect for one file's steps. */
interface Scope {
  readonly workflow: Workflow
  /** This file's `default:` over its callers', field by field. */
  readonly defaults: WorkflowDefaults
  readonly models: Readonly<Record<string, ReadonlyArray<ModelDefinition>>>
  readonly inputs: Readonly<Record<string, Json>>
  /** Canonical paths of the files on the call stack, this one last. */
  readonly activePaths: ReadonlyArray<string>
}

interface Frame {
  readonly run: RunContext
  readonly scope: Scope
  readonly placement: Placement
  readonly progress: ProgressWriter
  /** `$loop`: `{index, item}` in a for_each body, `{index}` in while/until, else null. */
  readonly loop: Json
}

type Kind<T extends StepKind["type"]> = Extract<StepKind, { readonly type: T }>

type EngineEffect<A> = Effect.Effect<A, AnyLaitError, FileLoader>

// ---------------------------------------------------------------------------------------------------
// helpers

/**
 * Adds a context message above `cause`. An interruption stays an interruption (exit 5) however deep
 * it sits, as upstream's typed-interruption check sees through context; other classes keep theirs.
 */
const wrap = (message: string) => (cause: unknown): AnyLaitError =>
  isLaitError(cause) && cause._tag === "InterruptedError"
    ? new InterruptedError({ message, cause })
    : withContext(message)(cause)

const cancelledError = () => new InterruptedError({ message: "workflow execution was cancelled" })

const isCancelled = (frame: Frame): boolean => Deferred.isDoneUnsafe(frame.run.cancel)

const checkCancelled = (frame: Frame): Effect.Effect<void, InterruptedError> =>
  isCancelled(frame) ? Effect.fail(cancelledError()) : Effect.void

/** Runs `effect` until it ends or the run is cancelled, whichever is first; then it fails with `message`. */
const observeCancel = <A, E, R>(
  frame: Frame,
  effect: Effect.Effect<A, E, R>,
  message: string
): Effect.Effect<A, E | InterruptedError, R> =>
  isCancelled(frame)
    ? Effect.fail(new InterruptedError({ message }))
    : Effect.raceFirst(
      effect,
      Effect.andThen(Deferred.await(frame.run.cancel), Effect.fail(new InterruptedError({ message })))
    )

const jqVars = (frame: Frame, steps: Steps) => ({ steps, inputs: frame.scope.inputs, loop: frame.loop })

const templateData = (frame: Frame, input: Json, steps: Steps) => ({
  input,
  steps: steps as Record<string, Json>,
  inputs: frame.scope.inputs as Record<string, Json>,
  loop: frame.loop
})

const evalFilter = (frame: Frame, filter: string, value: Json, steps: Steps) =>
  evalJqOne(filter, value, jqVars(frame, steps), "filter")

const evalCondition = (frame: Frame, condition: string, value: Json, steps: Steps) =>
  Effect.map(evalJqOne(condition, value, jqVars(frame, steps), "condition"), isTruthy)

const record = (steps: Steps, id: string | undefined, value: Json): Steps =>
  id === undefined ? steps : { ...steps, [id]: value }

const callsModel = (step: Step): boolean => step.kind.type === "prompt" || step.kind.type === "agent"

/** The `retry` in effect: the step's own, else (model steps only) the file's `default.retry`. */
export const effectiveRetry = (step: Step, defaults: WorkflowDefaults): RetryPolicy | undefined =>
  step.retry ?? (callsModel(step) ? defaults.retry : undefined)

/** The per-attempt `timeout` in effect, by the same rule. */
export const effectiveTimeout = (step: Step, defaults: WorkflowDefaults): number | undefined =>
  step.timeout ?? (callsModel(step) ? defaults.timeout : undefined)

/** The wait before the next attempt: the previous one times `backoff`, never above 3600 s. */
export const nextRetryDelay = (delay: number, backoff: number): number => {
  const next = delay * backoff
  return Number.isFinite(next) ? Math.min(Math.max(next, 0), MAX_RETRY_DELAY_SECONDS) : MAX_RETRY_DELAY_SECONDS
}

const definedEntries = <T extends object>(value: T): Partial<T> =>
  Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>

/** A child's `default:` over the caller's, field by field (`retry` being one field, it falls back whole). */
export const mergeDefaults = (child: WorkflowDefaults, caller: WorkflowDefaults): WorkflowDefaults =>
  ({ ...definedEntries(caller), ...definedEntries(child) }) as WorkflowDefaults

// ---------------------------------------------------------------------------------------------------
// step lists and the common step protocol

/** `list`: where these steps are in the file (see ./positions.ts); undefined for the top level. */
const runSteps: (
  steps: ReadonlyArray<Step>,
  initial: State,
  frame: Frame,
  list: string | undefined
) => EngineEffect<Outcome> = Effect.fnUntraced(
  function*(steps: ReadonlyArray<Step>, initial: State, frame: Frame, list: string | undefined) {
    let state = initial
    for (const [index, step] of steps.entries()) {
      const outcome = yield* runStep(step, state, frame, positionIn(list, index))
      state = outcome.state
      if (outcome.flow !== "continue") return { state, flow: outcome.flow }
    }
    return { state, flow: "continue" as Flow }
  }
)

/** `when` → retried/timed unit (`input` → kind → `output`) → `on_error` → record under `id`. */
const runStep: (step: Step, incoming: State, frame: Frame, position: string) => EngineEffect<Outcome> = Effect
  .fnUntraced(function*(step: Step, incoming: State, frame: Frame, position: string) {
    yield* checkCancelled(frame)
    const state: State = { ...incoming, counter: incoming.counter + 1 }
    // The counter says how many steps ran; the label must not depend on that (see ./positions.ts).
    const label = stepLabel(step, position)
    if (step.when !== undefined) {
      const truthy = yield* evalCondition(frame, step.when, state.value, state.steps).pipe(
        Effect.mapError(wrap(`step '${label}': 'when'`))
      )
      if (!truthy) {
        yield* frame.progress.line(`[${state.counter}] ${label} (skipped)`)
        return { state, flow: "continue" as Flow }
      }
    }
    yield* frame.progress.line(`[${state.counter}] ${label}`)

    // All attempts of the step are one trace span; its on_error steps are spans of their own.
    const attempts = stepSpan(label, step.kind.type, runWithPolicy(step, state, frame, label, position))
    let outcome: Outcome
    if (step.onError === undefined) {
      outcome = yield* attempts
    } else {
      const attempt = yield* Effect.result(attempts)
      if (attempt._tag === "Success") {
        outcome = attempt.success
      } else {
        // A failure caused by cancelling the whole run must not be swallowed by a handler.
        if (isCancelled(frame)) return yield* Effect.fail(attempt.failure)
        const error = renderChain(attempt.failure)
        yield* frame.progress.detail(`step failed, running 'on_error': ${error}`)
        outcome = yield* runSteps(
          step.onError,
          { value: { error, input: state.value }, counter: state.counter, steps: state.steps },
          frame,
          listAt(position, "on_error")
        )
      }
    }
    return {
      state: { ...outcome.state, steps: record(outcome.state.steps, step.id, outcome.state.value) },
      flow: outcome.flow
    }
  })

const runWithPolicy: (
  step: Step,
  state: State,
  frame: Frame,
  label: string,
  position: string
) => EngineEffect<Outcome> = Effect.fnUntraced(
  function*(step: Step, state: State, frame: Frame, label: string, position: string) {
    const retry = effectiveRetry(step, frame.scope.defaults)
    const timeout = effectiveTimeout(step, frame.scope.defaults)
    const maxAttempts = Math.max(1, retry?.maxAttempts ?? 1)
    const backoff = retry?.backoff ?? 1
    let delay = Math.min(retry?.delaySeconds ?? 0, MAX_RETRY_DELAY_SECONDS)
    for (let attempt = 1;; attempt++) {
      yield* checkCancelled(frame)
      const unit = runUnit(step, state, frame, label, position)
      const timed = timeout === undefined ? unit : unit.pipe(
        Effect.timeoutOrElse({
          duration: timeout * 1000,
          orElse: () =>
            Effect.fail(
              new InterruptedError({
                message: `step '${label}' timed out after ${timeout}s (attempt ${attempt}/${maxAttempts})`
              })
            )
        })
      )
      if (attempt >= maxAttempts) return yield* timed
      const result = yield* Effect.result(timed)
      if (result._tag === "Success") return result.success
      yield* checkCancelled(frame)
      yield* frame.progress.detail(
        `attempt ${attempt}/${maxAttempts} failed: ${renderChain(result.failure)}; retrying in ${delay.toFixed(1)}s`
      )
      yield* observeCancel(frame, Effect.sleep(delay * 1000), "workflow execution was cancelled")
      delay = nextRetryDelay(delay, backoff)
    }
  }
)

/** One attempt: `input` → the kind → `output`. */
const runUnit: (step: Step, state: State, frame: Frame, label: string, position: string) => EngineEffect<Outcome> =
  Effect.fnUntraced(function*(step: Step, state: State, frame: Frame, label: string, position: string) {
    const input = step.input === undefined
      ? state.value
      : yield* evalFilter(frame, step.input, state.value, state.steps).pipe(
        Effect.mapError(wrap(`step '${label}': 'input'`))
      )
    const withInput: State = { ...state, value: input }
    const kind = step.kind
    let outcome: Outcome
    switch (kind.type) {
      case "group":
        outcome = yield* runSteps(kind.steps, withInput, frame, listAt(position))
        break
      case "switch":
        outcome = yield* runSwitch(kind, withInput, frame, label, position)
        break
      case "parallel":
        outcome = {
          state: { ...withInput, value: yield* runParallel(kind, withInput, frame, position) },
          flow: "continue"
        }
        break
      case "for_each":
        outcome = yield* runForEach(kind, withInput, frame, label, position)
        break
      case "while":
      case "until":
        outcome = yield* runLoop(kind, withInput, frame, label, position)
        break
      case "stop":
        outcome = { state: withInput, flow: "stop" }
        break
      case "break":
        outcome = { state: withInput, flow: "break" }
        break
      default:
        outcome = {
          state: { ...withInput, value: yield* runAction(step, kind, input, state.steps, frame, label) },
          flow: "continue"
        }
    }
    // A `break`/`stop` that came up from inside this step ends it without its own `output:`.
    const ownResult = outcome.flow === "continue" || kind.type === "stop" || kind.type === "break"
    if (ownResult && step.output !== undefined) {
      const value = yield* evalFilter(frame, step.output, outcome.state.value, outcome.state.steps).pipe(
        Effect.mapError(wrap(`step '${label}': 'output'`))
      )
      return { state: { ...outcome.state, value }, flow: outcome.flow }
    }
    return outcome
  })

// ---------------------------------------------------------------------------------------------------
// control steps

const runSwitch: (
  kind: Kind<"switch">,
  state: State,
  frame: Frame,
  label: string,
  position: string
) => EngineEffect<Outcome> = Effect.fnUntraced(
  function*(kind: Kind<"switch">, state: State, frame: Frame, label: string, position: string) {
    for (const [index, c] of kind.cases.entries()) {
      const matched = yield* evalCondition(frame, c.when, state.value, state.steps).pipe(
        Effect.mapError(wrap(`step '${label}': case ${index + 1} 'when'`))
      )
      if (matched) {
        yield* frame.progress.detail(`case ${index + 1} matched`)
        return yield* runSteps(c.steps, state, frame, listAt(position, `case${index + 1}`))
      }
    }
    if (kind.else === undefined) {
      return yield* new LaitError({ message: `step '${label}': no case matched and no 'else' is defined` })
    }
    yield* frame.progress.detail("no case matched, running 'else'")
    return yield* runSteps(kind.else, state, frame, listAt(position, "else"))
  }
)

const enterBranch = (placement: Placement): Placement => placement === "concurrent-items" ? placement : "parallel"

/** Every branch gets the same input, a counter from 0 and its own copy of `$steps` (never merged back). */
const runParallel: (kind: Kind<"parallel">, state: State, frame: Frame, position: string) => EngineEffect<Json> = Effect
  .fnUntraced(function*(kind: Kind<"parallel">, state: State, frame: Frame, position: string) {
    yield* frame.progress.detail(`running ${kind.branches.length} branches concurrently`)
    const placement = enterBranch(frame.placement)
    const values = yield* Effect.forEach(
      kind.branches,
      (branch) =>
        Effect.map(
          runSteps(branch.steps, { value: state.value, counter: 0, steps: state.steps }, {
            ...frame,
            placement,
            progress: frame.progress.nested(`[${branch.name}] `)
          }, listAt(position, branch.name)),
          (outcome) => outcome.state.value
        ),
      { concurrency: "unbounded" }
    )
    const joined: Record<string, Json> = {}
    kind.branches.forEach((branch, index) => {
      joined[branch.name] = values[index]!
    })
    yield* frame.progress.detail("branches joined")
    return joined
  })

const runForEach: (
  kind: Kind<"for_each">,
  state: State,
  frame: Frame,
  label: string,
  position: string
) => EngineEffect<Outcome> = Effect.fnUntraced(
  function*(kind: Kind<"for_each">, state: State, frame: Frame, label: string, position: string) {
    const items = yield* evalFilter(frame, kind.items, state.value, state.steps).pipe(
      Effect.mapError(wrap(`step '${label}': 'for_each'`))
    )
    if (!Array.isArray(items)) {
      return yield* new LaitError({
        message: `step '${label}': 'for_each' must produce a JSON array, got ${describeJsonType(items)}`
      })
    }
    const list = items as ReadonlyArray<Json>
    const total = list.length

    if (kind.maxConcurrency > 1) {
      yield* frame.progress.detail(`iterating over ${total} item(s), up to ${kind.maxConcurrency} concurrently`)
      const values = yield* Effect.forEach(
        list,
        (item, index) =>
          Effect.map(
            runSteps(kind.steps, { value: item, counter: 0, steps: state.steps }, {
              ...frame,
              placement: "concurrent-items",
              progress: frame.progress.nested(`[item-${index + 1}] `),
              loop: { index, item }
            }, listAt(position)),
            (outcome) => outcome.state.value
          ),
        { concurrency: kind.maxConcurrency }
      )
      return { state: { ...state, value: values }, flow: "continue" as Flow }
    }

    yield* frame.progress.detail(`iterating over ${total} item(s)`)
    const results: Array<Json> = []
    let counter = state.counter
    let steps = state.steps
    for (const [index, item] of list.entries()) {
      yield* frame.progress.detail(`item ${index + 1}/${total}`)
      const outcome = yield* runSteps(kind.steps, { value: item, counter, steps }, {
        ...frame,
        loop: { index, item }
      }, listAt(position))
      counter = outcome.state.counter
      steps = outcome.state.steps
      if (outcome.flow === "stop") {
        return { state: { value: outcome.state.value, counter, steps }, flow: "stop" as Flow }
      }
      results.push(outcome.state.value)
      if (outcome.flow === "break") break
    }
    return { state: { value: results, counter, steps }, flow: "continue" as Flow }
  }
)

const runLoop: (
  kind: Kind<"while" | "until">,
  initial: State,
  frame: Frame,
  label: string,
  position: string
) => EngineEffect<Outcome> = Effect.fnUntraced(
  function*(kind: Kind<"while" | "until">, initial: State, frame: Frame, label: string, position: string) {
    const keyword = kind.type
    const max = kind.maxIterations
    let state = initial
    for (let iteration = 0;; iteration++) {
      if (keyword === "while") {
        const holds = yield* evalCondition(frame, kind.condition, state.value, state.steps).pipe(
          Effect.mapError(wrap(`step '${label}': 'while'`))
        )
        if (!holds) return { state, flow: "continue" as Flow }
      }
      if (iteration >= max) {
        return yield* new LaitError({
          message: `step '${label}': reached max_iterations (${max}) without satisfying '${keyword}'`
        })
      }
      yield* frame.progress.detail(`iteration ${iteration + 1}/${max}`)
      const outcome = yield* runSteps(kind.steps, state, { ...frame, loop: { index: iteration } }, listAt(position))
      state = outcome.state
      if (outcome.flow === "stop") return { state, flow: "stop" as Flow }
      if (outcome.flow === "break") return { state, flow: "continue" as Flow }
      if (keyword === "until") {
        const done = yield* evalCondition(frame, kind.condition, state.value, state.steps).pipe(
          Effect.mapError(wrap(`step '${label}': 'until'`))
        )
        if (done) return { state, flow: "continue" as Flow }
      }
    }
  }
)

// ---------------------------------------------------------------------------------------------------
// actions

const llmContext = (frame: Frame, steps: Steps, label: string): LlmStepContext => ({
  label,
  workflow: frame.scope.workflow,
  defaults: frame.scope.defaults,
  models: frame.scope.models,
  steps,
  inputs: frame.scope.inputs,
  loop: frame.loop,
  progress: frame.progress,
  cancelled: Deferred.await(frame.run.cancel)
})

const runAction = (
  step: Step,
  kind: Exclude<
    StepKind,
    { readonly type: "group" | "switch" | "parallel" | "for_each" | "while" | "until" | "stop" | "break" }
  >,
  input: Json,
  steps: Steps,
  frame: Frame,
  label: string
): EngineEffect<Json> => {
  // Model steps report their own errors (see LlmSteps); every other kind gets `step '<label>'`.
  if (kind.type === "prompt") return frame.run.llm.runPrompt(step as PromptStep, input, llmContext(frame, steps, label))
  if (kind.type === "agent") return frame.run.llm.runAgent(step as AgentStep, input, llmContext(frame, steps, label))
  const action: EngineEffect<Json> = Effect.gen(function*() {
    switch (kind.type) {
      case "jq":
        return yield* evalJqOne(kind.filter, input, jqVars(frame, steps), "filter")
      case "run": {
        const data = templateData(frame, input, steps)
        const argv = yield* Effect.forEach(kind.argv, (arg) => renderTemplate(arg, data))
        const env = kind.env === undefined
          ? undefined
          : yield* expandMap(kind.env, frame.run.env).pipe(Effect.mapError(wrap("'env'")))
        const cwd = kind.cwd === undefined
          ? undefined
          : yield* expandVars(kind.cwd, frame.run.env).pipe(Effect.mapError(wrap("'cwd'")))
        return yield* observeCancel(
          frame,
          runCommand({
            argv,
            stdin: textForm(input),
            ...(env !== undefined ? { env } : {}),
            ...(cwd !== undefined ? { cwd } : {})
          }),
          `command '${argv[0] ?? ""}' was cancelled`
        )
      }
      case "write": {
        const { text: path, printed } = yield* renderTemplateParts(kind.path, templateData(frame, input, steps))
        const unsafe = unsafeWritePath(path, printed)
        if (unsafe !== undefined) return yield* unsafe
        yield* observeCancel(frame, writeOutputFile(path, textForm(input)), "output file write was cancelled")
        return input
      }
      case "ask": {
        const question = yield* renderTemplate(kind.prompt, templateData(frame, input, steps))
        return yield* observeCancel(
          frame,
          ask(
            {
              question,
              multiline: kind.multiline,
              ...(kind.choices !== undefined ? { choices: kind.choices } : {}),
              ...(kind.default !== undefined ? { default: kind.default } : {})
            },
            frame.progress,
            frame.run.answerer
          ),
          "reading the answer to 'ask' was cancelled"
        )
      }
      case "workflow":
        return yield* runChild(kind, input, steps, frame)
    }
  })
  return action.pipe(Effect.mapError(wrap(`step '${label}'`)))
}

// ---------------------------------------------------------------------------------------------------
// child workflows

const canonicalize = (path: string): Effect.Effect<string, LaitError> =>
  Effect.try({
    try: () => fs.realpathSync(path),
    catch: (e) =>
      new LaitError({
        message: `failed to resolve workflow file path '${path}'`,
        cause: osErrorText(e)
      })
  })

/**
 * Rejects, before any of a child's steps run, an `ask` under concurrency or a fixed-path `write` in
 * concurrent items — restrictions the child inherits from where it is called.
 */
const checkPlacement: (
  steps: ReadonlyArray<Step>,
  placement: Placement,
  list?: string
) => Effect.Effect<void, LaitError> = Effect.fnUntraced(
  function*(steps: ReadonlyArray<Step>, placement: Placement, list?: string) {
    if (placement === "sequential") return
    for (const [index, step] of steps.entries()) {
      const position = positionIn(list, index)
      const label = stepLabel(step, position)
      const kind = step.kind
      if (kind.type === "ask") {
        return yield* new LaitError({
          message: `step '${label}' cannot 'ask' inside concurrent execution, including a nested workflow`
        })
      }
      if (kind.type === "write" && placement === "concurrent-items" && !kind.path.includes("{{")) {
        return yield* new LaitError({
          message: `step '${label}' writes a fixed path inside a concurrent 'for_each', including a nested workflow; ` +
            "add a placeholder to the path or move the write after the loop"
        })
      }
      if (step.onError !== undefined) yield* checkPlacement(step.onError, placement, listAt(position, "on_error"))
      switch (kind.type) {
        case "group":
          yield* checkPlacement(kind.steps, placement, listAt(position))
          break
        case "switch":
          for (const [i, c] of kind.cases.entries()) {
            yield* checkPlacement(c.steps, placement, listAt(position, `case${i + 1}`))
          }
          if (kind.else !== undefined) yield* checkPlacement(kind.else, placement, listAt(position, "else"))
          break
        case "parallel":
          for (const b of kind.branches) {
            yield* checkPlacement(b.steps, enterBranch(placement), listAt(position, b.name))
          }
          break
        case "for_each":
          yield* checkPlacement(kind.steps, kind.maxConcurrency > 1 ? "concurrent-items" : placement, listAt(position))
          break
        case "while":
        case "until":
          yield* checkPlacement(kind.steps, placement, listAt(position))
          break
        default:
          break
      }
    }
  }
)

const loadChild: (canonical: string, frame: Frame) => EngineEffect<Workflow> = Effect.fnUntraced(
  function*(canonical: string, frame: Frame) {
    const cached = frame.run.children.get(canonical)
    if (cached !== undefined) return cached
    const child = yield* observeCancel(
      frame,
      loadWorkflow(canonical, { waitForWriter: true }),
      "nested workflow load was cancelled"
    )
    frame.run.children.set(canonical, child)
    return child
  }
)

const runChild: (kind: Kind<"workflow">, input: Json, steps: Steps, frame: Frame) => EngineEffect<Json> = Effect
  .fnUntraced(function*(kind: Kind<"workflow">, input: Json, steps: Steps, frame: Frame) {
    const ref = kind.workflow
    let target: string
    if (ref.kind === "path") {
      target = nodePath.resolve(frame.scope.workflow.dir, ref.path)
    } else {
      const registered = frame.run.registry(ref.name)
      if (registered === undefined) {
        return yield* new LaitError({
          message: `workflow '${ref.name}' is not registered under 'workflows:' in lait.config.yml; ` +
            `use a path such as './${ref.name}.yml' for a file`
        })
      }
      target = registered
    }
    // Cycles are found before the child is opened: a file that calls itself through a FIFO must
    // fail, not wait for a second writer.
    const canonical = yield* canonicalize(target)
    if (frame.scope.activePaths.includes(canonical)) {
      return yield* new LaitError({
        message: `'workflow: ${target}' would create a cycle ('${canonical}' is already running)`
      })
    }
    if (frame.scope.activePaths.length >= MAX_WORKFLOW_DEPTH) {
      return yield* new LaitError({
        message: `'workflow:' nesting exceeded the maximum depth of ${MAX_WORKFLOW_DEPTH}`
      })
    }
    const child = yield* loadChild(canonical, frame)
    const inChild = wrap(`workflow '${canonical}'`)
    yield* checkPlacement(child.steps, frame.placement).pipe(Effect.mapError(inChild))

    let provided: Array<[string, { readonly kind: "typed"; readonly value: Json }]> = []
    if (kind.with !== undefined) {
      const bound = yield* evalFilter(frame, kind.with, input, steps).pipe(Effect.mapError(wrap("'with'")))
      if (!isJsonObject(bound)) {
        return yield* new LaitError({ message: `'with' must produce an object, got ${describeJsonType(bound)}` })
      }
      provided = Object.entries(bound).map(([name, value]) => [name, { kind: "typed", value }])
    }
    const inputs = yield* resolveInputs(child.inputs, provided).pipe(Effect.mapError(inChild))
    const schema = yield* loadSchemaRef(child.inputSchema).pipe(Effect.mapError(inChild))
    const initial = yield* resolveInitial(schema, { kind: "typed", value: input }).pipe(Effect.mapError(inChild))

    if (child.name !== undefined) {
      yield* frame.progress.detail(child.description === undefined ? child.name : `${child.name}: ${child.description}`)
    }
    const childFrame: Frame = {
      run: frame.run,
      scope: {
        workflow: child,
        defaults: mergeDefaults(child.defaults, frame.scope.defaults),
        models: { ...frame.scope.models, ...child.models },
        inputs,
        activePaths: [...frame.scope.activePaths, canonical]
      },
      placement: frame.placement,
      progress: frame.progress.nested("    "),
      loop: null
    }
    const result = yield* runDocument(child, initial, childFrame, "fail")
    return result.output
  })

// ---------------------------------------------------------------------------------------------------
// whole files

const finishOutput = (workflow: Workflow, state: State, frame: Frame): EngineEffect<Json> =>
  workflow.output === undefined
    ? Effect.succeed(state.value)
    : evalJqOne(workflow.output, state.value, { steps: state.steps, inputs: frame.scope.inputs, loop: null }, "filter")
      .pipe(Effect.mapError(wrap("the workflow's 'output'")))

/** The steps of a file (a `stop` ends it early), then its `output:`, all under its `timeout:`. */
const runDocument = (
  workflow: Workflow,
  initial: Json,
  frame: Frame,
  timeoutMode: "fail" | "cancel"
): EngineEffect<RunResult> => {
  const body = workflowSpan(
    workflow,
    Effect.gen(function*() {
      const outcome = yield* runSteps(workflow.steps, { value: initial, counter: 0, steps: {} }, frame, undefined)
      const output = yield* finishOutput(workflow, outcome.state, frame)
      return { output, steps: outcome.state.steps }
    })
  )
  const seconds = workflow.timeout
  if (seconds === undefined) return body
  if (timeoutMode === "fail") {
    return body.pipe(
      Effect.timeoutOrElse({
        duration: seconds * 1000,
        orElse: () => Effect.fail(new InterruptedError({ message: `workflow timed out after ${seconds}s ('timeout')` }))
      })
    )
  }
  const deadline = Effect.sleep(seconds * 1000).pipe(
    Effect.andThen(frame.progress.raw(`lait: the workflow's 'timeout' (${seconds}s) was exceeded; cancelling the run`)),
    Effect.andThen(Deferred.succeed(frame.run.cancel, undefined))
  )
  return Effect.gen(function*() {
    const timer = yield* Effect.forkChild(deadline, { startImmediately: true, uninterruptible: false })
    return yield* Effect.ensuring(body, Fiber.interrupt(timer))
  })
}

/**
 * Runs a loaded workflow against `initial` with its resolved `inputs`. Progress goes to the Progress
 * service; prompt/agent steps go to LlmSteps; child files are read through FileLoader.
 */
export const runWorkflowDetailed: (
  workflow: Workflow,
  initial: Json,
  inputs: Readonly<Record<string, Json>>,
  options?: RunOptions
) => Effect.Effect<RunResult, AnyLaitError, FileLoader | LlmSteps | Progress> = Effect.fnUntraced(function*(
  workflow: Workflow,
  initial: Json,
  inputs: Readonly<Record<string, Json>>,
  options?: RunOptions
) {
  yield* loadJq
  const llm = yield* LlmSteps
  const progress = new ProgressWriter(yield* Progress)
  const config = yield* Effect.serviceOption(LaitConfig)
  const registered = config._tag === "Some" ? (config.value.config.workflows ?? {}) : {}
  const canonical = yield* canonicalize(workflow.path)
  const run: RunContext = {
    cancel: options?.cancel ?? (yield* Deferred.make<void>()),
    llm,
    registry: options?.workflowRegistry ?? ((name) => registered[name]),
    env: options?.env ?? (config._tag === "Some" ? config.value.env : process.env),
    answerer: options?.answerer ?? terminalAnswerer,
    children: new Map()
  }
  const frame: Frame = {
    run,
    scope: {
      workflow,
      defaults: workflow.defaults,
      models: workflow.models,
      inputs,
      activePaths: [canonical]
    },
    placement: "sequential",
    progress,
    loop: null
  }
  return yield* runDocument(workflow, initial, frame, options?.timeoutMode ?? "fail")
})

/** `runWorkflowDetailed` for callers that only want the result. */
export const runWorkflow = (
  workflow: Workflow,
  initial: Json,
  inputs: Readonly<Record<string, Json>>,
  options?: RunOptions
): Effect.Effect<Json, AnyLaitError, FileLoader | LlmSteps | Progress> =>
  Effect.map(runWorkflowDetailed(workflow, initial, inputs, options), (result) => result.output)

/** `==> name: description` (or `==> name`); nothing for a file without a name. */
export const announce = (workflow: Workflow): Effect.Effect<void, never, Progress> =>
  workflow.name === undefined
    ? Effect.void
    : Progress.use((sink) =>
      sink.line(
        workflow.description === undefined ? `==> ${workflow.name}` : `==> ${workflow.name}: ${workflow.description}`
      )
    )
