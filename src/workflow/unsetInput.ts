// A run given no initial value (`lait run FILE` without a PROMPT, for a workflow that declares
// `inputs:`): until a step produces a value, `input` is unset, and a template that prints it fails
// with a message that names the step's template and says how to give the value, instead of sending
// the text `null` to a model or a command (docs/workflows.md#the-initial-value). Block helpers see an
// unset `input` as missing, so `{{#if input}}...{{/if}}` is how a template makes it optional.
import { StepError } from "./stepErrors.ts"
import type { TemplateError } from "../lang/languageErrors.ts"

/** A path as written (`input`, `input.text`, `@root.input`) that starts at the template's `input`. */
const INPUT_PATH = /^(@root\.)?input(\.|$)/

/**
 * Maps a template's failure to print an unset `input` to the error that explains it; other failures
 * (and every failure when `hint` is undefined: the input is set) stay as they are. `field` names the
 * template in the message (`'prompt'`); `step` is given where no outer context names the step.
 */
export const explainUnsetInput = (
  field: string,
  template: string,
  hint: string | undefined,
  step?: string
) =>
(error: TemplateError): TemplateError | StepError =>
  hint !== undefined && error.reason._tag === "Render" && error.reason.missing !== undefined &&
    INPUT_PATH.test(error.reason.missing)
    ? new StepError({
      reason: { _tag: "InputUnset", field, template, hint, ...(step === undefined ? {} : { step }) }
    })
    : error
