// Where a step sits in its file, which is what names a step without an `id` in progress lines,
// errors, traces, --show-usage, the dry-run plan and the graph. A count of steps run so far would
// change with the input (five loop items push every later step along); a position does not.
//
// Top-level steps are `1`, `2`, ...; a nested step appends the list it is in (none for a body of
// group/for_each/while/until; `caseN` or `else` of a switch; the branch name of a parallel;
// `on_error`) and its place there: `3.2`, `3.case1.1`, `3.fast.1`, `3.on_error.1`. Each file
// numbers its own steps: a child workflow's first step is `1` again.
import type { Step } from "./model.ts"

/** The position of the `index`-th (0-based) step of the list at `list` (undefined: the top level). */
export const positionIn = (list: string | undefined, index: number): string =>
  list === undefined ? `${index + 1}` : `${list}.${index + 1}`

/** A list nested in the step at `position`: its body (no `name`), or `caseN`, `else`, a branch, `on_error`. */
export const listAt = (position: string, name?: string): string => name === undefined ? position : `${position}.${name}`

/** `id`, else `step-<position>` (dry run and graph). */
export const stepName = (step: Step, position: string): string => step.id ?? `step-${position}`

/** `id`, else `step-<position> (<kind>)`: progress, errors, traces and usage. */
export const stepLabel = (step: Step, position: string): string => step.id ?? `step-${position} (${step.kind.type})`
