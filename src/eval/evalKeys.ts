// What the eval-file parser (./schema.ts) and its lazily loaded Schema decoders (./evalSchema.ts)
// share, apart from both so that neither imports the other back: the keys each mapping accepts and
// the message that lists them, the shape of a problem found in one part, and a case as decoded.
import type { Json } from "../core/json.ts"
import { valueAtPath } from "../core/schemaPath.ts"
import { type Assertion, ASSERTION_FIELDS } from "../testing/assertions.ts"

export const EVAL_FILE_KEYS = ["target", "targets", "cases", "default_assert"] as const
export const WORKFLOW_TARGET_KEYS = ["name", "workflow", "inputs"] as const
export const PROMPT_TARGET_KEYS = ["name", "model", "prompt"] as const
export const EXEC_TARGET_KEYS = ["name", "exec", "input_mode", "env", "timeout"] as const
export const HTTP_TARGET_KEYS = ["name", "http", "output_jq", "timeout"] as const
export const CASE_KEYS = ["name", "input", "inputs", "vars", "assert"] as const

export type Segment = string | number

export const isMapping = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const isTargetPath = (path: ReadonlyArray<Segment>) =>
  (path.length === 1 && path[0] === "target") || (path.length === 2 && path[0] === "targets")

/** Which keys the mapping at `parentPath` accepts, for an unknown-key message. */
export const acceptedKeys = (raw: unknown, parentPath: ReadonlyArray<Segment>): string | undefined => {
  if (parentPath.length === 0) return `eval definitions accept: ${EVAL_FILE_KEYS.join(", ")}`
  if (isTargetPath(parentPath)) {
    const target = valueAtPath(raw, parentPath)
    return isMapping(target) && "workflow" in target
      ? `a workflow target accepts: ${WORKFLOW_TARGET_KEYS.join(", ")}`
      : isMapping(target) && "exec" in target
      ? `an exec target accepts: ${EXEC_TARGET_KEYS.join(", ")}`
      : isMapping(target) && "http" in target
      ? `an http target accepts: ${HTTP_TARGET_KEYS.join(", ")}`
      : `a model target accepts: ${PROMPT_TARGET_KEYS.join(", ")}`
  }
  if (parentPath.length === 1 && parentPath[0] === "cases") return "a cases file reference accepts: file"
  if (parentPath.length === 2 && parentPath[0] === "cases") return `cases accept: ${CASE_KEYS.join(", ")}`
  const parent = valueAtPath(raw, parentPath) as { readonly type?: unknown } | undefined
  return typeof parent?.type === "string" && parent.type in ASSERTION_FIELDS
    ? `'${parent.type}' assertions accept: type, ${
      ASSERTION_FIELDS[parent.type as keyof typeof ASSERTION_FIELDS].join(", ")
    }`
    : undefined
}

/** A part of the document decoded on its own (./evalSchema.ts decodeAt), failing with its place in the whole. */
export interface Issue {
  readonly at: ReadonlyArray<Segment>
  readonly text: string
  /** The issue's own path in the whole document (for its line). */
  readonly path: ReadonlyArray<Segment>
}

export const isIssue = (value: unknown): value is Issue =>
  isMapping(value) && Array.isArray(value["at"]) && typeof value["text"] === "string" && Array.isArray(value["path"])

/** A case as written, decoded by the schema. */
export interface DecodedCase {
  readonly name?: string
  readonly input: Json
  readonly inputs?: { readonly [key: string]: Json } | null
  readonly vars?: { readonly [key: string]: Json } | null
  readonly assert?: ReadonlyArray<Assertion> | null
}
