// Linting `lait test` and `lait eval` definition files. Their shape is checked by the same parsers
// the commands use (src/testing/testFile.ts, src/eval/schema.ts: unknown keys, assertion types and
// fields); on top, what would fail only once the file runs:
//   - the workflow (test, eval workflow target) loads, relative to the definition file;
//   - a test's `replay` cassette directory exists (a warning that names the command recording it:
//     a test written before its recordings is not wrong, it cannot run yet);
//   - `input`/`inputs` (test), `target.inputs` and each case `input` (eval) resolve against the
//     workflow's `inputs:` and `input_schema` as the run would resolve them;
//   - jq in `jq` and `tool_called.args_jq` assertions compiles, `min` <= `max`, `step_output` names a
//     step id the workflow has (and needs a workflow target), `llm_judge` is not used in a test file
//     (where it always fails), an eval prompt target's template parses; the checks of the assertions
//     after step_output (regex, json_schema, length, cost/latency, script) are ./assertionChecks.ts's;
//   - an `exec:` target's program exists (a warning: ./execProgram.ts).
import { Effect } from "effect"
import * as nodePath from "node:path"
import { errorLine, renderChain } from "../core/errors.ts"
import { FileLoader } from "../platform/FileLoader.ts"
import type { Json } from "../core/json.ts"
import { casesFilePath, loadCasesFile } from "../eval/cases.ts"
import { caseInitial, parseEvalDefinition, withEvalSchema } from "../eval/schema.ts"
import { resolveInitial, resolveInputs } from "../lang/inputs.ts"
import { checkJqSyntax, loadJq } from "../lang/jq.ts"
import { parseYaml, type Y } from "../lang/load/yaml.ts"
import { childStepLists, type Step, type Workflow } from "../lang/model.ts"
import { checkTemplateSyntax, loadTemplateEngine, shellQuote } from "../lang/template.ts"
import { type Assertion, isNot } from "../testing/assertions.ts"
import { parseTestDefinition } from "../testing/testFile.ts"
import { display, fieldOf, itemOf, keyLine, lineOfY, valueOf, type Where } from "./context.ts"
import { lintAddedAssertion } from "./assertionChecks.ts"
import type { Emitter } from "./findings.ts"
import { missingProgram } from "./execProgram.ts"

const missingText = (program: string, missing: "not-executable" | "not-on-path") =>
  missing === "not-executable"
    ? `'${program}' is not an executable file where the app runs`
    : `'${program}' is not found on PATH`
import { readSchemaRef } from "./schemaRefs.ts"
import { loadForLint } from "./workflow.ts"

/** `path` as typed in a shell command: quoted only when it must be. */
const shellWord = (path: string): string => (/^[\w./@%+=:,-]+$/.test(path) ? path : shellQuote(path))

const allIds = (steps: ReadonlyArray<Step>, into: Set<string> = new Set()): Set<string> => {
  for (const step of steps) {
    if (step.id !== undefined) into.add(step.id)
    for (const child of childStepLists(step)) allIds(child.steps, into)
  }
  return into
}

const renderAt = (path: ReadonlyArray<string | number>): string => {
  let out = ""
  for (const segment of path) out += typeof segment === "number" ? `[${segment}]` : out === "" ? segment : `.${segment}`
  return out
}

interface AssertionContext {
  readonly where: Where
  readonly emitter: Emitter
  /** The ids of the workflow under test; undefined when it did not load (ids are then not checked). */
  readonly ids: ReadonlySet<string> | undefined
  readonly workflowShown: string | undefined
  /** "test": llm_judge always fails there. "eval-prompt": no workflow, so no step outputs. */
  readonly mode: "test" | "eval-workflow" | "eval-prompt"
  /** The definition file's directory (a script starts there; a json_schema file is relative to it). */
  readonly base: string
}

const lintAssertions = (
  ctx: AssertionContext,
  list: ReadonlyArray<Assertion>,
  listY: Y | undefined,
  path: ReadonlyArray<string | number>
): Effect.Effect<void, never, FileLoader> =>
  Effect.forEach(
    list,
    (assertion, index) => lintAssertion(ctx, assertion, itemOf(ctx.where, listY, index), [...path, index]),
    { discard: true }
  )

const lintAssertion = (
  ctx: AssertionContext,
  assertion: Assertion,
  y: Y | undefined,
  at: ReadonlyArray<string | number>
): Effect.Effect<void, never, FileLoader> =>
  Effect.gen(function*() {
    const { where, emitter } = ctx
    const line = (key?: string) => (key === undefined ? lineOfY(where, y) : keyLine(where, y, key))
    if (isNot(assertion)) return yield* lintAssertion(ctx, assertion.not, valueOf(where, y, "not"), [...at, "not"])
    const jq = (key: string, filter: string) => {
      const problem = checkJqSyntax(filter)
      if (problem !== undefined) emitter.emit("error", `${renderAt([...at, key])}: ${problem}`, line(key))
    }
    switch (assertion.type) {
      case "jq":
        jq("expr", assertion.expr)
        break
      case "tool_called": {
        if (assertion.args_jq !== undefined && assertion.args_jq !== null) jq("args_jq", assertion.args_jq)
        // A bare `max` is an upper bound only (min 0), as the evaluator reads it (docs/testing.md#assertions).
        const hasMax = assertion.max !== undefined && assertion.max !== null
        const min = assertion.min ?? (hasMax ? 0 : 1)
        if (assertion.max !== undefined && assertion.max !== null && min > assertion.max) {
          emitter.emit(
            "error",
            `${renderAt(at)}: 'min' (${min}) is greater than 'max' (${assertion.max}); the assertion can never pass`,
            line("max")
          )
        }
        break
      }
      case "llm_judge":
        if (ctx.mode === "test") {
          emitter.emit(
            "error",
            `${renderAt(at)}: llm_judge assertions always fail under 'lait test' (it has no judge model); ` +
              `move this check to an eval file`,
            line("type")
          )
        }
        break
      case "step_output":
        if (ctx.mode === "eval-prompt") {
          emitter.emit(
            "error",
            `${renderAt(at)}: step_output needs a workflow target; a model target has no steps`,
            line("type")
          )
        } else if (ctx.ids !== undefined && !ctx.ids.has(assertion.id)) {
          emitter.emit(
            "error",
            `${renderAt([...at, "id"])}: the workflow '${ctx.workflowShown}' has no step with the id '${assertion.id}'`,
            line("id")
          )
        }
        yield* lintAssertions(ctx, assertion.assert, valueOf(where, y, "assert"), [...at, "assert"])
        break
      default:
        yield* lintAddedAssertion(assertion, {
          at: renderAt(at),
          line,
          base: ctx.base,
          inTestFile: ctx.mode === "test",
          error: (message, where) => emitter.emit("error", message, where)
        })
    }
  })

/** The workflow a definition names, relative to it; a load failure is reported at `line`. */
const loadTarget = (
  base: string,
  reference: string,
  what: string,
  line: number | undefined,
  emitter: Emitter
) =>
  Effect.gen(function*() {
    const path = display(nodePath.resolve(base, reference))
    const loaded = yield* Effect.result(loadForLint(path))
    if (loaded._tag === "Failure") {
      emitter.emit(
        "error",
        `'${what}' refers to '${path}', which failed to load: ${renderChain(loaded.failure)}`,
        line
      )
      return undefined
    }
    return { workflow: loaded.success.workflow, shown: path }
  })

/**
 * The line of the provided input a resolution message names (`unknown input 'x'`, `inputs.x must
 * ...`), looked up among the keys of the `inputs` mapping; else the mapping's own key line.
 */
const lineOfNamedInput = (where: Where, holder: Y | undefined, message: string, fallback: number | undefined) => {
  for (const match of message.matchAll(/'([^']+)'|\binputs\.([A-Za-z0-9_-]+)/g)) {
    const line = fieldOf(where, holder, match[1] ?? match[2]!)?.keyLine
    if (line !== undefined) return line
  }
  return fallback
}

const resolveProvidedInputs = (
  workflow: Workflow,
  values: Readonly<Record<string, Json>>,
  what: string,
  where: Where,
  holder: Y | undefined,
  line: number | undefined,
  emitter: Emitter
) =>
  Effect.gen(function*() {
    const provided = Object.entries(values).map(([key, value]) => [key, { kind: "typed" as const, value }] as const)
    const resolved = yield* Effect.result(resolveInputs(workflow.inputs, provided))
    if (resolved._tag === "Failure") {
      const message = renderChain(resolved.failure)
      emitter.emit("error", `'${what}': ${message}`, lineOfNamedInput(where, holder, message, line))
    }
  })

/** The workflow's input schema, or undefined (also when it cannot be read: the loader said why). */
const inputSchemaOf = (workflow: Workflow) =>
  Effect.gen(function*() {
    if (workflow.inputSchema === undefined) return undefined
    const result = yield* readSchemaRef(workflow.inputSchema, "input_schema")
    return result.ok ? result.schema : undefined
  })

const sourceOf = (text: string): Where => {
  const parsed = parseYaml(text)
  return { src: parsed.ok ? parsed.source : undefined }
}

const rootOf = (where: Where): Y | undefined =>
  where.src === undefined ? undefined : where.src.top(1)

export const lintTestText = (path: string, text: string, emitter: Emitter): Effect.Effect<void, never, FileLoader> =>
  Effect.gen(function*() {
    const definition = parseTestDefinition(text, path)
    if (definition instanceof Error) {
      emitter.emit("error", renderChain(definition), errorLine(definition))
      return
    }
    yield* Effect.orDie(loadJq)
    const where = sourceOf(text)
    const root = rootOf(where)
    const base = nodePath.dirname(path)
    const line = (key: string) => keyLine(where, root, key)

    // An exec target is an app: lait has nothing of it to load, but its program should be there.
    if (definition.exec !== undefined && definition.workdir !== "temp") {
      const cwd = definition.workdir === undefined ? base : nodePath.resolve(base, definition.workdir)
      const missing = yield* missingProgram(definition.exec.argv[0], cwd)
      if (missing !== undefined) {
        emitter.emit("warning", `'exec': ${missingText(definition.exec.argv[0], missing)}`, line("exec"))
      }
    }
    const target = definition.workflow === undefined
      ? undefined
      : yield* loadTarget(base, definition.workflow, "workflow", line("workflow"), emitter)
    if (target !== undefined) {
      const schema = yield* inputSchemaOf(target.workflow)
      const initial = yield* Effect.result(resolveInitial(schema, { kind: "typed", value: definition.input }))
      if (initial._tag === "Failure") {
        emitter.emit("error", `'input': ${renderChain(initial.failure)}`, line("input") ?? line("workflow"))
      }
      yield* resolveProvidedInputs(
        target.workflow,
        definition.inputs,
        "inputs",
        where,
        valueOf(where, root, "inputs"),
        line("inputs") ?? line("workflow"),
        emitter
      )
    }

    const replay = nodePath.resolve(base, definition.replay)
    const replayStat = yield* Effect.option(FileLoader.use((files) => files.stat(replay)))
    if (replayStat._tag === "None") {
      emitter.emit(
        "warning",
        `'replay' directory '${display(replay)}' does not exist yet; record it with ` +
          `\`lait test --record-missing ${shellWord(path)}\``,
        line("replay")
      )
    } else if (!replayStat.value.isDirectory()) {
      emitter.emit("error", `'replay' path '${display(replay)}' is not a directory`, line("replay"))
    }

    yield* lintAssertions(
      {
        where,
        emitter,
        ids: target === undefined ? undefined : allIds(target.workflow.steps),
        workflowShown: target?.shown,
        mode: "test",
        base
      },
      definition.assert,
      valueOf(where, root, "assert"),
      ["assert"]
    )
  })

export const lintEvalText = (path: string, text: string, emitter: Emitter): Effect.Effect<void, never, FileLoader> =>
  Effect.gen(function*() {
    const definition = yield* withEvalSchema(() => parseEvalDefinition(text, path))
    if (definition instanceof Error) {
      emitter.emit("error", renderChain(definition), errorLine(definition))
      return
    }
    yield* Effect.orDie(loadJq)
    const where = sourceOf(text)
    const root = rootOf(where)
    const casesY = valueOf(where, root, "cases")
    const base = nodePath.dirname(path)

    let cases = definition.cases
    if (definition.casesFile !== undefined) {
      const loaded = yield* Effect.result(
        loadCasesFile(casesFilePath(path, definition.casesFile.file), definition.defaultAssert)
      )
      if (loaded._tag === "Failure") {
        emitter.emit("error", renderChain(loaded.failure), definition.casesFile.line)
        return
      }
      cases = loaded.success
    }
    // A case from a file is reported at `cases:`; an inline one at its own lines.
    const caseY = (index: number) => definition.casesFile === undefined ? itemOf(where, casesY, index) : undefined
    const caseLine = (index: number, key: string) =>
      definition.casesFile === undefined ? keyLine(where, caseY(index), key) : definition.casesFile.line

    const single = !definition.compare
    let workflowIds: Set<string> | undefined
    let workflowShown: string | undefined
    let anyWorkflow = false
    for (const [t, target] of definition.targets.entries()) {
      const at = single ? "target" : `targets[${t}]`
      const targetY = single ? valueOf(where, root, "target") : itemOf(where, valueOf(where, root, "targets"), t)
      if (target.kind === "prompt") {
        yield* loadTemplateEngine
        const problem = checkTemplateSyntax(target.prompt)
        if (problem !== undefined) emitter.emit("error", `${at}.prompt: ${problem}`, keyLine(where, targetY, "prompt"))
        continue
      }
      // An app (docs/apps.md): nothing of it for lait to load; its keys were checked by the parse.
      if (target.kind === "exec") {
        const missing = yield* missingProgram(target.exec.argv[0], base)
        if (missing !== undefined) {
          const text = missingText(target.exec.argv[0], missing)
          emitter.emit("warning", `${at}.exec: ${text}`, keyLine(where, targetY, "exec"))
        }
      }
      if (target.kind === "exec" || target.kind === "http") continue
      anyWorkflow = true
      const workflowLine = keyLine(where, targetY, "workflow")
      const loaded = yield* loadTarget(base, target.workflow, `${at}.workflow`, workflowLine, emitter)
      if (loaded === undefined) continue
      const inputsLine = keyLine(where, targetY, "inputs") ?? keyLine(where, targetY, "workflow")
      yield* resolveProvidedInputs(
        loaded.workflow,
        target.inputs,
        `${at}.inputs`,
        where,
        valueOf(where, targetY, "inputs"),
        inputsLine,
        emitter
      )
      const schema = yield* inputSchemaOf(loaded.workflow)
      for (const [index, c] of cases.entries()) {
        const initial = yield* Effect.result(resolveInitial(schema, caseInitial(c)))
        if (initial._tag === "Failure") {
          emitter.emit("error", `cases[${index}].input: ${renderChain(initial.failure)}`, caseLine(index, "input"))
        }
        if (c.inputs === undefined) continue
        const own = yield* Effect.result(
          resolveInputs(
            loaded.workflow.inputs,
            Object.entries({ ...target.inputs, ...c.inputs }).map(([k, value]) =>
              [k, { kind: "typed", value }] as const
            )
          )
        )
        if (own._tag === "Failure") {
          emitter.emit("error", `cases[${index}].inputs: ${renderChain(own.failure)}`, caseLine(index, "inputs"))
        }
      }
      // Step ids are checked against the first workflow target (several may differ; each is its own).
      if (workflowIds === undefined) {
        workflowIds = allIds(loaded.workflow.steps)
        workflowShown = loaded.shown
      }
    }

    if (cases.length === 0) {
      emitter.emit("warning", "'cases' is empty; the eval has nothing to run", keyLine(where, root, "cases"))
    }
    const ctx: AssertionContext = {
      where,
      emitter,
      ids: workflowIds,
      workflowShown,
      mode: anyWorkflow ? "eval-workflow" : "eval-prompt",
      base
    }
    yield* Effect.forEach(cases, (c, index) =>
      lintAssertions(ctx, c.ownAssert, valueOf(where, caseY(index), "assert"), ["cases", index, "assert"]), {
      discard: true
    })
    yield* lintAssertions(ctx, definition.defaultAssert, valueOf(where, root, "default_assert"), ["default_assert"])
  })
