// `lait lint`'s warning about a workflow that declares `inputs:` and so may be run without a PROMPT:
// its first steps then get no `input`, and a template that prints it fails the run
// (src/workflow/unsetInput.ts). A workflow that declares `input_schema:` says it takes a PROMPT
// and is not checked (docs/workflows.md#the-initial-value). Only the steps that can see the initial
// value are checked: those before the first step that produces a value of its own (a `write`, a
// step that may be skipped by its `when` and a loop that may not run pass the value on), in nested
// lists too. A use is unguarded unless it sits inside `{{#if input}}` (or the `{{else}}` of
// `{{#unless input}}`).
import type { Step, Workflow } from "../lang/model.ts"
import { itemOf, lineOfText, lineOfY, valueOf, type Where } from "./context.ts"
import type { Emitter } from "./findings.ts"
import { parseTemplate } from "./templateTree.ts"
import type { Y } from "../lang/load/yaml.ts"

type Node = hbs.AST.Node
type Path = hbs.AST.PathExpression

/** Helpers whose block body runs with a new context (`this` is the item / the value). */
const CONTEXT_CHANGING = new Set(["each", "with"])
const PRINTING_HELPERS = new Set(["text", "json", "shq"])

/**
 * The uses of `input` in a template that fail when it is unset, as written (`input`, `input.text`):
 * printing it (`{{ input }}`, `{{ json input }}`) and looking inside it anywhere (`input.text`, which
 * strict lookups cannot do on a missing value). A template that does not parse has none.
 */
export const unguardedInputUses = (source: string): ReadonlyArray<string> => {
  const program = parseTemplate(source)
  if (program === undefined) return []
  const found: Array<string> = []
  /** The path's segments from the root context, or undefined when it resolves against another one. */
  const fromRoot = (p: Path, scopes: number): ReadonlyArray<string> | undefined => {
    if (p.data) return p.parts[0] === "root" ? p.parts.slice(1) : undefined
    return p.depth === scopes ? p.parts : undefined
  }
  const isInput = (node: Node | undefined, scopes: number): node is Path =>
    node?.type === "PathExpression" && fromRoot(node as Path, scopes)?.[0] === "input"
  const isBareInput = (node: Node | undefined, scopes: number): boolean =>
    isInput(node, scopes) && fromRoot(node, scopes)!.length === 1

  const expression = (node: Node | undefined, scopes: number): void => {
    if (node === undefined || node === null) return
    if (node.type === "PathExpression") {
      const parts = fromRoot(node as Path, scopes)
      if (parts?.[0] === "input" && parts.length > 1) found.push((node as Path).original)
    } else if (node.type === "SubExpression") {
      const sub = node as hbs.AST.SubExpression
      call(sub.path, sub.params, sub.hash, scopes)
    }
  }
  const call = (callee: Node, params: ReadonlyArray<Node>, hash: hbs.AST.Hash | undefined, scopes: number) => {
    expression(callee, scopes)
    for (const param of params) expression(param, scopes)
    for (const pair of hash?.pairs ?? []) expression(pair.value, scopes)
  }
  const statements = (body: ReadonlyArray<Node> | undefined, scopes: number): void => {
    for (const node of body ?? []) statement(node, scopes)
  }
  const statement = (node: Node, scopes: number): void => {
    if (node.type === "MustacheStatement") {
      const m = node as hbs.AST.MustacheStatement
      const bare = m.params.length === 0 && (m.hash === undefined || m.hash.pairs.length === 0)
      const helper = m.path.type === "PathExpression" ? (m.path as Path).original : ""
      if (bare && isBareInput(m.path, scopes)) found.push((m.path as Path).original)
      if (PRINTING_HELPERS.has(helper) && isBareInput(m.params[0], scopes)) {
        found.push((m.params[0] as Path).original)
      }
      call(m.path, m.params, m.hash, scopes)
    } else if (node.type === "BlockStatement") {
      const b = node as hbs.AST.BlockStatement
      call(b.path, b.params, b.hash, scopes)
      const name = b.path.type === "PathExpression" ? (b.path as Path).original : ""
      const onInput = b.params.length === 1 && isBareInput(b.params[0], scopes)
      const inner = CONTEXT_CHANGING.has(name) ? scopes + 1 : scopes
      // Inside `{{#if input}}` (or the else of `{{#unless input}}`) the input is set.
      if (!(onInput && name === "if")) statements(b.program?.body, inner)
      if (!(onInput && name === "unless")) statements(b.inverse?.body, scopes)
    }
  }
  statements(program.body, 0)
  return [...new Set(found)]
}

/** One template of a step that sees the initial value: its field as messages name it (`'prompt'`), its YAML node. */
interface Site {
  readonly context: string
  readonly field: string
  readonly source: string
  readonly y: Y | undefined
}

const contextOf = (step: Step, position: number): string =>
  step.id !== undefined ? `step '${step.id}'` : `step ${position} (${step.kind.type})`

/**
 * Visits the steps of `steps` that may get the initial value as their input, calling `site` for each
 * of their templates and `agent` for each agent step; true when the value may still be the initial
 * one after the list.
 */
const walk = (
  workflow: Workflow,
  steps: ReadonlyArray<Step>,
  list: Y | undefined,
  where: Where,
  visit: { readonly site: (site: Site) => void; readonly agent: (context: string, y: Y | undefined) => void }
): boolean => {
  for (const [index, step] of steps.entries()) {
    // Its own `input:` gives it a computed value, and so do its successors.
    if (step.input !== undefined) return false
    const y = itemOf(where, list, index)
    const value = (key: string) => valueOf(where, y, key)
    const context = contextOf(step, index + 1)
    const site = (field: string, source: string, node: Y | undefined) => visit.site({ context, field, source, y: node })
    const attachments = (files: ReadonlyArray<string>, images: ReadonlyArray<string>) => {
      files.forEach((source, i) => site("'files'", source, itemOf(where, value("files"), i)))
      images.forEach((source, i) => site("'images'", source, itemOf(where, value("images"), i)))
    }
    const k = step.kind
    let passes = false
    switch (k.type) {
      case "prompt":
        site("'prompt'", k.prompt, value("prompt"))
        if (k.system !== undefined) site("'system'", k.system, value("system"))
        else if (workflow.defaults.system !== undefined) site("the 'default:' system", workflow.defaults.system, y)
        attachments(k.files, k.images)
        break
      case "agent":
        attachments(k.files, k.images)
        visit.agent(context, y)
        break
      case "run":
        k.argv.forEach((arg, i) => site("'run'", arg, itemOf(where, value("run"), i)))
        break
      case "ask":
        site("'ask'", k.prompt, value("ask"))
        break
      case "write":
        site("'write'", k.path, value("write"))
        passes = true
        break
      case "group":
        passes = walk(workflow, k.steps, value("group"), where, visit)
        break
      case "switch": {
        const cases = value("switch")
        passes = k.else === undefined
        k.cases.forEach((c, i) => {
          passes = walk(workflow, c.steps, valueOf(where, itemOf(where, cases, i), "steps"), where, visit) || passes
        })
        if (k.else !== undefined) passes = walk(workflow, k.else, value("else"), where, visit) || passes
        break
      }
      case "parallel": {
        const branches = value("parallel")
        for (const b of k.branches) walk(workflow, b.steps, valueOf(where, branches, b.name), where, visit)
        break
      }
      case "while":
      case "until":
        // A `while` may not run its body at all.
        passes = walk(workflow, k.steps, value("steps"), where, visit) || k.type === "while"
        break
      default:
        // jq, for_each, workflow: a value of their own (a child workflow is linted as a file of its own).
        break
    }
    // A step that may be skipped leaves the value as it was.
    if (!(passes || step.when !== undefined) || step.output !== undefined || k.type === "stop") return false
  }
  return true
}

/**
 * Warns about the unguarded uses of `input` in the steps that see it unset, for a workflow with
 * `inputs:` and no `input_schema:` (which says that the workflow takes a PROMPT).
 */
export const checkUnsetInput = (workflow: Workflow, steps: Y | undefined, where: Where, emitter: Emitter): void => {
  if (workflow.inputs.length === 0 || workflow.inputSchema !== undefined) return
  const fails = "but a run on 'inputs:' alone (no PROMPT) has no input there and fails"
  const needs = "declare 'input_schema:' if the workflow needs a PROMPT"
  walk(workflow, workflow.steps, steps, where, {
    site: ({ context, field, source, y }) => {
      for (const use of unguardedInputUses(source)) {
        emitter.emit(
          "warning",
          `${context}: ${field} uses '${use}', ${fails}; use it inside {{#if input}}...{{/if}}, or ${needs}`,
          lineOfText(where, y, use)
        )
      }
    },
    agent: (context, y) =>
      emitter.emit(
        "warning",
        `${context} sends its input to the agent, ${fails}; compute the step's 'input:', or ${needs}`,
        lineOfY(where, y)
      )
  })
}
