// `lait graph`: the control structure of a loaded workflow as a Mermaid flowchart or a DOT digraph.
// One walk builds a format-neutral model (nodes, edges, subgraphs) and each renderer only prints it,
// so both formats always show the same graph. A `workflow:` step is one node naming its child file;
// children are never opened here.
import type { AgentRef, Step, Workflow, WorkflowRef } from "./model.ts"
import { listAt, positionIn, stepName } from "./positions.ts"

export type GraphFormat = "mermaid" | "dot"
export const GRAPH_FORMATS: ReadonlyArray<GraphFormat> = ["mermaid", "dot"]

export interface GraphOptions {
  /**
   * How absolute agent file paths appear in labels; default: as stored. A child workflow's path is
   * shown as written.
   */
  readonly displayPath?: (absolute: string) => string
}

type Shape = "action" | "decision" | "terminal"

interface GraphNode {
  readonly id: string
  readonly label: string
  readonly shape: Shape
}

interface GraphEdge {
  readonly from: string
  readonly to: string
  readonly label?: string
}

interface Subgraph {
  readonly title: string
  readonly members: ReadonlyArray<string>
}

export interface GraphModel {
  readonly nodes: ReadonlyArray<GraphNode>
  readonly edges: ReadonlyArray<GraphEdge>
  readonly subgraphs: ReadonlyArray<Subgraph>
}

/** Where a rendered step list (or step) is entered and the nodes control leaves it from. */
interface Fragment {
  readonly entry: string | undefined
  readonly exits: ReadonlyArray<string>
}

class Builder {
  readonly nodes: Array<GraphNode> = []
  readonly edges: Array<GraphEdge> = []
  readonly subgraphs: Array<Subgraph> = []
  private readonly claimed = new Set<string>()

  constructor(readonly displayPath: (absolute: string) => string) {}

  node(label: string, shape: Shape): string {
    const id = `n${this.nodes.length + 1}`
    this.nodes.push({ id, label, shape })
    return id
  }

  edge(from: string, to: string, label?: string): void {
    this.edges.push(label === undefined ? { from, to } : { from, to, label })
  }

  /** Puts the nodes added since `mark` into a subgraph, except those a nested subgraph already took. */
  enclose(title: string, mark: number): void {
    const members = this.nodes.slice(mark).map((n) => n.id).filter((id) => !this.claimed.has(id))
    if (members.length === 0) return
    for (const id of members) this.claimed.add(id)
    this.subgraphs.push({ title, members })
  }

  /** `list`: where these steps are in the file (see ./positions.ts); undefined for the top level. */
  chain(steps: ReadonlyArray<Step>, list: string | undefined): Fragment {
    let entry: string | undefined
    let previous: ReadonlyArray<string> = []
    steps.forEach((step, index) => {
      const fragment = this.step(step, positionIn(list, index))
      if (fragment.entry !== undefined) {
        entry ??= fragment.entry
        for (const exit of previous) this.edge(exit, fragment.entry)
      }
      previous = fragment.exits
    })
    return { entry, exits: previous }
  }

  private step(step: Step, position: string): { readonly entry: string; readonly exits: ReadonlyArray<string> } {
    const label = stepName(step, position)
    const when = step.when === undefined ? "" : `\nwhen: ${step.when}`
    const { entry, exits } = this.kind(step, label, position, when)
    // A guarded step may be skipped, so what follows is also reachable from its entry; this is what
    // gives a guarded stop/break an exit at all.
    const out = step.when !== undefined && !exits.includes(entry) ? [...exits, entry] : [...exits]
    if (step.onError !== undefined) {
      const mark = this.nodes.length
      const handler = this.chain(step.onError, listAt(position, "on_error"))
      if (handler.entry !== undefined) this.edge(entry, handler.entry, "on_error")
      this.enclose(`${label}: on_error`, mark)
      out.push(...handler.exits)
    }
    return { entry, exits: out }
  }

  private body(
    head: string,
    steps: ReadonlyArray<Step>,
    list: string,
    title: string,
    enter: string,
    again: string
  ): void {
    const mark = this.nodes.length
    const inner = this.chain(steps, list)
    if (inner.entry !== undefined) {
      this.edge(head, inner.entry, enter)
      for (const exit of inner.exits) this.edge(exit, head, again)
    }
    this.enclose(title, mark)
  }

  private kind(
    step: Step,
    label: string,
    position: string,
    when: string
  ): { readonly entry: string; readonly exits: ReadonlyArray<string> } {
    const k = step.kind
    switch (k.type) {
      case "stop":
      case "break":
        return { entry: this.node(`${k.type}${when}`, "terminal"), exits: [] }
      case "group": {
        const head = this.node(`[${label}]\ngroup${when}`, "decision")
        const mark = this.nodes.length
        const inner = this.chain(k.steps, listAt(position))
        this.enclose(`[${label}] group`, mark)
        if (inner.entry === undefined) return { entry: head, exits: [head] }
        this.edge(head, inner.entry)
        return { entry: head, exits: inner.exits }
      }
      case "switch": {
        const head = this.node(`[${label}]\nswitch${when}`, "decision")
        const exits: Array<string> = []
        k.cases.forEach((c, index) => {
          const inner = this.chain(c.steps, listAt(position, `case${index + 1}`))
          if (inner.entry !== undefined) this.edge(head, inner.entry, `case ${index + 1}: ${c.when}`)
          exits.push(...inner.exits)
        })
        if (k.else !== undefined) {
          const inner = this.chain(k.else, listAt(position, "else"))
          if (inner.entry !== undefined) this.edge(head, inner.entry, "else")
          exits.push(...inner.exits)
        }
        return { entry: head, exits }
      }
      case "parallel": {
        const fork = this.node(`[${label}]\nparallel${when}`, "decision")
        const join = this.node("join", "decision")
        for (const branch of k.branches) {
          const mark = this.nodes.length
          const inner = this.chain(branch.steps, listAt(position, branch.name))
          if (inner.entry === undefined) {
            this.edge(fork, join)
          } else {
            this.edge(fork, inner.entry)
            for (const exit of inner.exits) this.edge(exit, join)
          }
          this.enclose(`branch '${branch.name}'`, mark)
        }
        return { entry: fork, exits: [join] }
      }
      case "while":
      case "until": {
        const head = this.node(
          `[${label}]\n${k.type} ${k.condition}\nmax_iterations: ${k.maxIterations}${when}`,
          "decision"
        )
        this.body(head, k.steps, listAt(position), `[${label}] loop body`, "iterate", "next iteration")
        return { entry: head, exits: [head] }
      }
      case "for_each": {
        const concurrency = k.maxConcurrency > 1 ? `\nmax_concurrency: ${k.maxConcurrency}` : ""
        const head = this.node(`[${label}]\nfor_each: ${k.items}${concurrency}${when}`, "decision")
        this.body(head, k.steps, listAt(position), `[${label}] for_each body`, "per item", "next item")
        return { entry: head, exits: [head] }
      }
      default: {
        const detail = this.detail(step)
        const id = this.node(`[${label}]\n${k.type}${detail === undefined ? "" : `\n${detail}`}${when}`, "action")
        return { entry: id, exits: [id] }
      }
    }
  }

  private agent(ref: AgentRef): string {
    switch (ref.kind) {
      case "inline":
        return `${ref.name} (inline)`
      case "path":
        return this.displayPath(ref.path)
      case "registry":
        return `${ref.name} (lait.config.yml agents)`
    }
  }

  private workflow(ref: WorkflowRef): string {
    return ref.kind === "path" ? ref.written : `${ref.name} (lait.config.yml workflows)`
  }

  /** One line saying what an action does. */
  private detail(step: Step): string | undefined {
    const k = step.kind
    switch (k.type) {
      case "agent":
        return this.agent(k.agent)
      case "workflow":
        return this.workflow(k.workflow)
      case "run":
        return k.argv.join(" ")
      case "jq":
        return k.filter
      case "write":
        return k.path
      default:
        return undefined
    }
  }
}

export const buildGraph = (workflow: Workflow, options?: GraphOptions): GraphModel => {
  const builder = new Builder(options?.displayPath ?? ((p) => p))
  const start = builder.node("start", "terminal")
  const body = builder.chain(workflow.steps, undefined)
  if (body.entry !== undefined) builder.edge(start, body.entry)
  const end = builder.node("end", "terminal")
  for (const exit of body.exits) builder.edge(exit, end)
  return { nodes: builder.nodes, edges: builder.edges, subgraphs: builder.subgraphs }
}

// Inside a quoted Mermaid label a `"` would end the label and a raw newline the statement:
// `#quot;` is Mermaid's entity for the quote (shown as `"`), `<br/>` its line break.
const mermaidText = (text: string): string => text.replaceAll("\"", "#quot;").replaceAll("\n", "<br/>")

// DOT quoted strings: escape `\` and `"`; `\l` ends a left-aligned line (easier to read than `\n`).
const dotText = (text: string): string => text.replaceAll("\\", "\\\\").replaceAll("\"", "\\\"").replaceAll("\n", "\\l")

export const renderMermaid = (model: GraphModel): string => {
  const lines = ["flowchart TD"]
  for (const node of model.nodes) {
    const label = `"${mermaidText(node.label)}"`
    const shaped = node.shape === "action" ? `[${label}]` : node.shape === "decision" ? `{${label}}` : `((${label}))`
    lines.push(`    ${node.id}${shaped}`)
  }
  model.subgraphs.forEach((subgraph, index) => {
    // Every subgraph gets an id: a bare quoted title is not accepted by every Mermaid renderer.
    lines.push(`    subgraph sg${index}["${mermaidText(subgraph.title)}"]`)
    for (const id of subgraph.members) lines.push(`        ${id}`)
    lines.push("    end")
  })
  for (const edge of model.edges) {
    lines.push(
      edge.label === undefined
        ? `    ${edge.from} --> ${edge.to}`
        : `    ${edge.from} -->|"${mermaidText(edge.label)}"| ${edge.to}`
    )
  }
  return `${lines.join("\n")}\n`
}

const DOT_SHAPES: Record<Shape, string> = { action: "box", decision: "diamond", terminal: "ellipse" }

export const renderDot = (model: GraphModel): string => {
  const lines = ["digraph workflow {", "    rankdir=TB;"]
  for (const node of model.nodes) {
    lines.push(`    ${node.id} [shape=${DOT_SHAPES[node.shape]}, label="${dotText(node.label)}"];`)
  }
  model.subgraphs.forEach((subgraph, index) => {
    lines.push(`    subgraph cluster_${index} {`, `        label="${dotText(subgraph.title)}";`)
    for (const id of subgraph.members) lines.push(`        ${id};`)
    lines.push("    }")
  })
  for (const edge of model.edges) {
    lines.push(
      edge.label === undefined
        ? `    ${edge.from} -> ${edge.to};`
        : `    ${edge.from} -> ${edge.to} [label="${dotText(edge.label)}"];`
    )
  }
  lines.push("}")
  return `${lines.join("\n")}\n`
}

/** The whole graph text; it ends with one newline and is printed as-is. */
export const renderGraph = (workflow: Workflow, format: GraphFormat, options?: GraphOptions): string => {
  const model = buildGraph(workflow, options)
  return format === "dot" ? renderDot(model) : renderMermaid(model)
}
