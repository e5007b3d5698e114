// Static rules shared by the loader's parts, with upstream lait's wording. Each returns a message (or
// undefined when the value is fine) so callers decide which line to blame.
import { NAME_PATTERN, SCHEMA_NAME_PATTERN } from "../fileKeys.ts"
import { WorkflowLoadError } from "../loadErrors.ts"
import { childStepLists, type Step } from "../model.ts"

/** Rust's `{:?}` of a string, which upstream messages use to quote names. */
export const debugQuote = (s: string): string => JSON.stringify(s)

export const checkName = (name: string, what: string): string | undefined =>
  NAME_PATTERN.test(name)
    ? undefined
    : `invalid ${what} ${debugQuote(name)}: use a letter or '_' followed by letters, digits, '_' or '-'`

export const checkSchemaName = (name: string): string | undefined => {
  // Length counts characters as upstream does (bytes there, but only ASCII passes the second check).
  if (name.length === 0 || name.length > 64) {
    return `JSON schema name must be between 1 and 64 characters: ${debugQuote(name)}`
  }
  if (!SCHEMA_NAME_PATTERN.test(name)) {
    return `JSON schema name must contain only ASCII letters, digits, underscores, or hyphens: ${debugQuote(name)}`
  }
  return undefined
}

export interface SamplingValues {
  readonly temperature?: number | undefined
  readonly top_p?: number | undefined
  readonly max_tokens?: number | undefined
  readonly max_tool_rounds?: number | undefined
}

/**
 * Range checks of model settings; `description` names the owner (a step locator, `the workflow's
 * 'default'`, an agent). Returns the offending key with the message.
 */
export const checkSampling = (
  values: SamplingValues,
  description: string
): { readonly key: keyof SamplingValues; readonly message: string } | undefined => {
  const { max_tokens, max_tool_rounds, temperature, top_p } = values
  if (temperature !== undefined && !(temperature >= 0 && temperature <= 2)) {
    return {
      key: "temperature",
      message: `${description} has 'temperature: ${temperature}'; it must be between 0.0 and 2.0`
    }
  }
  if (top_p !== undefined && !(top_p >= 0 && top_p <= 1)) {
    return { key: "top_p", message: `${description} has 'top_p: ${top_p}'; it must be between 0.0 and 1.0` }
  }
  if (max_tokens === 0) {
    return { key: "max_tokens", message: `${description} has 'max_tokens: 0'; it must be at least 1` }
  }
  if (max_tool_rounds === 0) {
    return { key: "max_tool_rounds", message: `${description} has 'max_tool_rounds: 0'; it must be at least 1` }
  }
  return undefined
}

export const checkRetryValues = (maxAttempts: number, backoff: number): string | undefined => {
  if (maxAttempts === 0) return "'max_attempts' must be at least 1"
  if (!Number.isFinite(backoff) || backoff < 0) return "'backoff' must be a finite, non-negative number"
  return undefined
}

export const checkTimeoutValue = (seconds: number): string | undefined =>
  seconds === 0 ? "must be at least 1 second" : undefined

/** A step's name in placement messages: its id, else its kind. */
const placementLabel = (step: Step): string => step.id ?? step.kind.type

const validation = (message: string, file: string | undefined, line: number | undefined) =>
  new WorkflowLoadError({
    reason: {
      _tag: "Invalid",
      detail: message,
      ...(file !== undefined ? { file } : {}),
      ...(line !== undefined ? { line } : {})
    }
  })

/** The first repeated step id in `steps` (searched depth-first, in file order). */
export const checkUniqueIds = (
  steps: ReadonlyArray<Step>,
  file?: string,
  seen: Set<string> = new Set()
): WorkflowLoadError | undefined => {
  for (const step of steps) {
    if (step.id !== undefined) {
      if (seen.has(step.id)) {
        return validation(
          `step id '${step.id}' is used more than once; ids must be unique within a workflow file`,
          file,
          step.line
        )
      }
      seen.add(step.id)
    }
    for (const child of childStepLists(step)) {
      const error = checkUniqueIds(child.steps, file, seen)
      if (error !== undefined) return error
    }
  }
  return undefined
}

/** Where a step list sits relative to loops and concurrency. */
export interface Placement {
  /** In a loop body reachable without crossing a concurrent boundary. */
  readonly inLoop: boolean
  /** In a `parallel` branch or a concurrent `for_each` body (or a child workflow run from one). */
  readonly concurrent: boolean
  /** In a concurrent `for_each` body specifically. */
  readonly concurrentItems: boolean
}

export const topLevelPlacement: Placement = { inLoop: false, concurrent: false, concurrentItems: false }

/**
 * The break/stop/ask/write placement rules. The engine re-checks a child workflow's steps with the
 * placement of the `workflow:` step that calls it (`{ ...placement, inLoop: false }`).
 */
export const checkPlacement = (
  steps: ReadonlyArray<Step>,
  placement: Placement = topLevelPlacement,
  file?: string
): WorkflowLoadError | undefined => {
  for (const step of steps) {
    const label = placementLabel(step)
    const k = step.kind
    let message: string | undefined
    if (k.type === "break" && !placement.inLoop) {
      message = `'break' (${label}) must be inside a 'for_each'/'while'/'until' body ` +
        `(and cannot cross a 'parallel' branch or a concurrent 'for_each')`
    } else if (k.type === "stop" && placement.concurrent) {
      message = `'stop' (${label}) cannot be used inside a 'parallel' branch or a concurrent 'for_each' body`
    } else if (k.type === "ask" && placement.concurrent) {
      message = `'ask' (${label}) cannot run inside a 'parallel' branch or a concurrent 'for_each' body, ` +
        `where several prompts would compete for stdin`
    } else if (k.type === "write" && placement.concurrentItems && !k.path.includes("{{")) {
      message = `'write' (${label}) with a fixed path cannot run inside a concurrent 'for_each'; ` +
        `include a placeholder such as '{{ loop.index }}' in the path or move the write after the loop`
    }
    if (message !== undefined) return validation(message, file, step.line)
    for (const child of childStepLists(step)) {
      let nested: Placement
      switch (child.kind) {
        case "on_error":
        case "group":
        case "case":
          nested = placement
          break
        case "loop_body":
          nested = { ...placement, inLoop: true }
          break
        case "branch":
          nested = { ...placement, inLoop: false, concurrent: true }
          break
        case "concurrent_item":
          nested = { inLoop: false, concurrent: true, concurrentItems: true }
          break
      }
      const error = checkPlacement(child.steps, nested, file)
      if (error !== undefined) return error
    }
  }
  return undefined
}
