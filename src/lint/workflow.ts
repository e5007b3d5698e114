// Linting a workflow file: the loader's full static validation first (its first problem, with its
// line), then, on a file that loads, what only fails lazily at run time or is probably a mistake
// (docs/cli.md#lait-lint):
//   errors   — `inputs.x` / `$inputs.x` naming an undeclared input; agent and child workflow files
//              that cannot be loaded; `workflow:` cycles and nesting depth; `mcp`, `skills`,
//              `subagents`, `tools` and `agent:` names not registered in lait.config.yml;
//   warnings — `steps.x` / `$steps.x` naming no step of the file; `schemas:`/`agents:` entries never
//              used; MCP servers whose `allowed_tools` is `[]`; a template inside a `sh -c` script
//              (not wrapped in `shq`) and a templated `write:` path (src/lint/untrusted.ts); an
//              unset `input` printed in a run on `inputs:` alone (src/lint/unsetInput.ts).
// Problems inside a child workflow are reported with `in 'workflow: <path>': ` (the original's words)
// in front, at the line of the `workflow:` step that calls it. Unknown JSON Schema `type` names are
// load errors here (Ajv refuses to compile them), not warnings as upstream, whose validator silently
// accepted them.
import { Effect } from "effect"
import { errorLine, renderChain } from "../core/errors.ts"
import { FileLoader } from "../platform/FileLoader.ts"
import { parseWorkflowText } from "../lang/load.ts"
import { parseYaml, type Source, type Y } from "../lang/load/yaml.ts"
import { MAX_WORKFLOW_DEPTH, type Step, type Workflow } from "../lang/model.ts"
import { lintAgentFileContents, loadAgentForLint } from "./agent.ts"
import {
  display,
  fieldOf,
  type FileLint,
  type FileState,
  itemOf,
  keyLine,
  lineOfText,
  lineOfY,
  noteSkipped,
  realpath,
  valueOf,
  type Where
} from "./context.ts"
import { type Emitter, redirected } from "./findings.ts"
import { checkCapabilities } from "./names.ts"
import { jqReferences, type Reference, templateReferences } from "./refs.ts"
import { checkUnsetInput } from "./unsetInput.ts"
import { shellTemplate, shellTemplateMessage, writePathMessage, writePathTemplate } from "./untrusted.ts"

export interface Loaded {
  readonly workflow: Workflow
  readonly src: Source | undefined
}

/** Reads and loads a workflow without waiting on FIFOs; its YAML is kept for line lookups. */
export const loadForLint = (path: string) =>
  Effect.gen(function*() {
    const text = yield* FileLoader.use((f) => f.readText(path, { waitForWriter: false }))
    const workflow = yield* parseWorkflowText(text, path, { waitForWriter: false })
    const parsed = parseYaml(text)
    return { workflow, src: parsed.ok ? parsed.source : undefined } satisfies Loaded
  })

// ---------------------------------------------------------------------------------------------------
// References from templates and jq

interface Scope {
  readonly where: Where
  readonly state: FileState
  readonly emitter: Emitter
  readonly ids: ReadonlySet<string>
  readonly inputs: ReadonlySet<string>
  readonly usedSchemas: Set<string>
  readonly usedAgents: Set<string>
}

const checkReferences = (scope: Scope, context: string, refs: ReadonlyArray<Reference>, y: Y | undefined) => {
  for (const ref of refs) {
    const line = lineOfText(scope.where, y, ref.text)
    if (ref.root === "inputs" && !scope.inputs.has(ref.name)) {
      scope.emitter.emit("error", `${context} references input '${ref.name}', which is not declared in 'inputs:'`, line)
    } else if (ref.root === "steps" && !scope.ids.has(ref.name)) {
      scope.emitter.emit(
        "warning",
        `${context} references step '${ref.name}', but no step in this file has that 'id'`,
        line
      )
    }
  }
}

const checkTemplate = (scope: Scope, context: string, source: string, y: Y | undefined) =>
  checkReferences(scope, context, templateReferences(source), y)

const checkJq = (scope: Scope, context: string, filter: string, y: Y | undefined) =>
  checkReferences(scope, context, jqReferences(filter), y)

const collectIds = (steps: ReadonlyArray<Step>, into: Set<string>): Set<string> => {
  for (const step of steps) {
    if (step.id !== undefined) into.add(step.id)
    for (const child of childLists(step, undefined, { src: undefined })) collectIds(child.steps, into)
  }
  return into
}

// ---------------------------------------------------------------------------------------------------
// Steps

/** A step's nested step lists with their YAML sequences, in the order the engine's walkers use. */
const childLists = (
  step: Step,
  y: Y | undefined,
  where: Where
): ReadonlyArray<{ readonly steps: ReadonlyArray<Step>; readonly y: Y | undefined }> => {
  const out: Array<{ steps: ReadonlyArray<Step>; y: Y | undefined }> = []
  if (step.onError !== undefined) out.push({ steps: step.onError, y: valueOf(where, y, "on_error") })
  const k = step.kind
  switch (k.type) {
    case "group":
      out.push({ steps: k.steps, y: valueOf(where, y, "group") })
      break
    case "switch": {
      const cases = valueOf(where, y, "switch")
      k.cases.forEach((c, index) =>
        out.push({ steps: c.steps, y: valueOf(where, itemOf(where, cases, index), "steps") })
      )
      if (k.else !== undefined) out.push({ steps: k.else, y: valueOf(where, y, "else") })
      break
    }
    case "parallel": {
      const branches = valueOf(where, y, "parallel")
      for (const b of k.branches) out.push({ steps: b.steps, y: valueOf(where, branches, b.name) })
      break
    }
    case "for_each":
    case "while":
    case "until":
      out.push({ steps: k.steps, y: valueOf(where, y, "steps") })
      break
    default:
      break
  }
  return out
}

const lintSteps = (
  scope: Scope,
  steps: ReadonlyArray<Step>,
  list: Y | undefined
): Effect.Effect<void, never, FileLoader> =>
  Effect.forEach(steps, (step, index) => lintStep(scope, step, index + 1, itemOf(scope.where, list, index)), {
    discard: true
  })

const lintStep = (
  scope: Scope,
  step: Step,
  position: number,
  y: Y | undefined
): Effect.Effect<void, never, FileLoader> =>
  Effect.gen(function*() {
    const { where } = scope
    const context = step.id !== undefined ? `step '${step.id}'` : `step ${position} (${step.kind.type})`
    const value = (key: string) => valueOf(where, y, key)
    const keyAt = (key: string) => keyLine(where, y, key) ?? lineOfY(where, y, step.line)
    for (const field of ["when", "input", "output"] as const) {
      const filter = step[field]
      if (filter !== undefined) checkJq(scope, `${context}'s '${field}'`, filter, value(field))
    }
    const attachments = (files: ReadonlyArray<string>, images: ReadonlyArray<string>) => {
      files.forEach((source, i) => checkTemplate(scope, context, source, itemOf(where, value("files"), i)))
      images.forEach((source, i) => checkTemplate(scope, context, source, itemOf(where, value("images"), i)))
    }

    const k = step.kind
    switch (k.type) {
      case "prompt": {
        checkTemplate(scope, context, k.prompt, value("prompt"))
        if (k.system !== undefined) checkTemplate(scope, context, k.system, value("system"))
        attachments(k.files, k.images)
        checkCapabilities(context, k.llm, y, where, scope.state, scope.emitter)
        for (const ref of [k.inputSchema, k.outputSchema]) {
          if (ref?.name !== undefined) scope.usedSchemas.add(ref.name)
        }
        break
      }
      case "agent": {
        checkCapabilities(context, k.llm, y, where, scope.state, scope.emitter)
        attachments(k.files, k.images)
        const ref = k.agent
        const line = keyAt("agent")
        if (ref.kind === "inline") {
          scope.usedAgents.add(ref.name)
        } else if (ref.kind === "path") {
          yield* lintAgentPath(scope, context, ref.path, line)
        } else {
          const config = scope.state.env.config
          if (config === undefined) {
            noteSkipped(scope.state, line)
          } else {
            const path = config.agents?.[ref.name]
            if (path !== undefined && Object.hasOwn(config.agents ?? {}, ref.name)) {
              yield* lintAgentPath(scope, context, path, line)
            } else {
              scope.emitter.emit(
                "error",
                `${context} uses agent '${ref.name}', which is neither defined in this workflow's 'agents:' nor ` +
                  `registered under 'agents:' in lait.config.yml (use a path such as './${ref.name}.md' for a file)`,
                line
              )
            }
          }
        }
        break
      }
      case "run": {
        k.argv.forEach((arg, i) => checkTemplate(scope, context, arg, itemOf(where, value("run"), i)))
        const shell = shellTemplate(k.argv)
        if (shell !== undefined) {
          const line = lineOfText(where, itemOf(where, value("run"), shell.index), shell.template)
          scope.emitter.emit("warning", shellTemplateMessage(context, shell), line, "untrusted-shell")
        }
        break
      }
      case "workflow": {
        if (k.with !== undefined) checkJq(scope, `${context}'s 'with'`, k.with, value("with"))
        const line = keyAt("workflow")
        if (k.workflow.kind === "path") {
          yield* lintChildWorkflow(scope, context, k.workflow.path, line)
        } else {
          const config = scope.state.env.config
          const name = k.workflow.name
          if (config === undefined) {
            noteSkipped(scope.state, line)
          } else if (config.workflows !== undefined && Object.hasOwn(config.workflows, name)) {
            yield* lintChildWorkflow(scope, context, config.workflows[name]!, line)
          } else {
            scope.emitter.emit(
              "error",
              `${context} runs workflow '${name}', which is not registered under 'workflows:' in lait.config.yml ` +
                `(use a path such as './${name}.yml' for a file)`,
              line
            )
          }
        }
        break
      }
      case "jq":
        checkJq(scope, `${context}'s 'jq'`, k.filter, value("jq"))
        break
      case "ask":
        checkTemplate(scope, context, k.prompt, value("ask"))
        break
      case "write": {
        checkTemplate(scope, context, k.path, value("write"))
        const template = writePathTemplate(k.path)
        if (template !== undefined) {
          scope.emitter.emit(
            "warning",
            writePathMessage(context, template),
            lineOfText(where, value("write"), template)
          )
        }
        break
      }
      case "switch": {
        const cases = value("switch")
        k.cases.forEach((c, i) =>
          checkJq(scope, `${context}'s case 'when'`, c.when, valueOf(where, itemOf(where, cases, i), "when"))
        )
        break
      }
      case "for_each":
        checkJq(scope, `${context}'s 'for_each'`, k.items, value("for_each"))
        break
      case "while":
      case "until":
        checkJq(scope, `${context}'s '${k.type}'`, k.condition, value(k.type))
        break
      case "group":
      case "parallel":
      case "stop":
      case "break":
        break
    }

    for (const child of childLists(step, y, where)) yield* lintSteps(scope, child.steps, child.y)
  })

// ---------------------------------------------------------------------------------------------------
// Agent and child workflow files

/** A file `what` names, loaded; when it fails to load, that is reported at `line` and the result is undefined. */
const loadReferenced = <A, E, R>(scope: Scope, what: string, line: number | undefined, load: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const loaded = yield* Effect.result(load)
    if (loaded._tag === "Success") return loaded.success
    scope.emitter.emit("error", `${what}, which failed to load: ${renderChain(loaded.failure)}`, line)
    return undefined
  })

const lintAgentPath = (scope: Scope, context: string, path: string, line: number | undefined) =>
  Effect.gen(function*() {
    // Loaded by the path as shown, so the loader's own messages name it the same way.
    const shown = display(path)
    const loaded = yield* loadReferenced(scope, `${context} uses agent '${shown}'`, line, loadAgentForLint(shown))
    if (loaded === undefined) return
    yield* lintAgentFileContents(
      `${context}'s agent`,
      loaded.agent,
      undefined,
      {
        src: undefined,
        fixedLine: line
      },
      scope.state,
      scope.emitter
    )
  })

const lintChildWorkflow = (scope: Scope, context: string, path: string, line: number | undefined) =>
  Effect.gen(function*() {
    const shown = display(path)
    const canonical = yield* realpath(path)
    if (!canonical.ok) {
      scope.emitter.emit(
        "error",
        `${context} runs workflow '${shown}', which could not be resolved: ${canonical.reason}`,
        line
      )
      return
    }
    const { visited } = scope.state
    if (visited.includes(canonical.path)) {
      scope.emitter.emit(
        "error",
        `${context} runs workflow '${shown}', which would create a cycle ('${
          display(canonical.path)
        }' is already being linted)`,
        line
      )
      return
    }
    if (visited.length >= MAX_WORKFLOW_DEPTH) {
      scope.emitter.emit(
        "error",
        `${context} runs workflow '${shown}', ` +
          `which exceeds the maximum 'workflow:' nesting depth of ${MAX_WORKFLOW_DEPTH}`,
        line
      )
      return
    }
    const loaded = yield* loadReferenced(scope, `${context} runs workflow '${shown}'`, line, loadForLint(shown))
    if (loaded === undefined) return
    visited.push(canonical.path)
    yield* lintWorkflowContents(
      loaded.workflow,
      { src: loaded.src, fixedLine: line },
      scope.state,
      redirected(scope.emitter, `in 'workflow: ${shown}': `, line)
    )
    visited.pop()
  })

// ---------------------------------------------------------------------------------------------------
// One workflow

/** The lint checks of a workflow that loaded (its own file, or a child of one). */
export const lintWorkflowContents = (
  workflow: Workflow,
  where: Where,
  state: FileState,
  emitter: Emitter
): Effect.Effect<void, never, FileLoader> =>
  Effect.gen(function*() {
    const root: Y | undefined = where.src === undefined ? undefined : where.src.top(1)
    const defaults = valueOf(where, root, "default")
    const agentsY = valueOf(where, root, "agents")
    const schemasY = valueOf(where, root, "schemas")
    const scope: Scope = {
      where,
      state,
      emitter,
      ids: collectIds(workflow.steps, new Set()),
      inputs: new Set(workflow.inputs.map((i) => i.name)),
      usedSchemas: new Set(),
      usedAgents: new Set()
    }

    checkCapabilities("the workflow's 'default'", workflow.defaults, defaults, where, state, emitter)
    for (const [name, agent] of Object.entries(workflow.agents)) {
      checkCapabilities(`agent '${name}'`, agent, valueOf(where, agentsY, name), where, state, emitter)
    }

    if (workflow.output !== undefined) {
      checkJq(scope, "the workflow's 'output'", workflow.output, valueOf(where, root, "output"))
    }
    if (workflow.defaults.system !== undefined) {
      checkTemplate(scope, "the workflow's 'default'", workflow.defaults.system, valueOf(where, defaults, "system"))
    }
    for (const [name, agent] of Object.entries(workflow.agents)) {
      checkTemplate(scope, `agent '${name}'`, agent.system, valueOf(where, valueOf(where, agentsY, name), "system"))
      // A schema an inline agent names counts as used (upstream only counted steps' references).
      for (const ref of [agent.inputSchema, agent.outputSchema]) {
        if (ref?.name !== undefined) scope.usedSchemas.add(ref.name)
      }
    }
    if (workflow.inputSchema?.name !== undefined) scope.usedSchemas.add(workflow.inputSchema.name)

    yield* lintSteps(scope, workflow.steps, valueOf(where, root, "steps"))
    // A child's initial value is the calling step's input; only a file linted as itself may run without one.
    if (where.fixedLine === undefined) checkUnsetInput(workflow, valueOf(where, root, "steps"), where, emitter)

    for (const name of Object.keys(workflow.schemas)) {
      if (!scope.usedSchemas.has(name)) {
        emitter.emit(
          "warning",
          `schema '${name}' is defined in 'schemas:' but never referenced`,
          where.fixedLine ?? fieldOf(where, schemasY, name)?.keyLine
        )
      }
    }
    for (const name of Object.keys(workflow.agents)) {
      if (!scope.usedAgents.has(name)) {
        emitter.emit(
          "warning",
          `agent '${name}' is defined in 'agents:' but never used by an 'agent:' step`,
          where.fixedLine ?? fieldOf(where, agentsY, name)?.keyLine
        )
      }
    }
  })

/**
 * A workflow file named on the command line (or found by the walk): a load failure is its one
 * error; otherwise the lint checks run with this file at the head of the `workflow:` chain.
 */
export const lintWorkflowText: FileLint = (path, text, state, emitter) =>
  Effect.gen(function*() {
    const loaded = yield* Effect.result(parseWorkflowText(text, path, { waitForWriter: false }))
    if (loaded._tag === "Failure") {
      emitter.emit("error", renderChain(loaded.failure), errorLine(loaded.failure))
      return
    }
    const canonical = yield* realpath(path)
    if (canonical.ok) state.visited.push(canonical.path)
    const parsed = parseYaml(text)
    yield* lintWorkflowContents(loaded.success, { src: parsed.ok ? parsed.source : undefined }, state, emitter)
  })
