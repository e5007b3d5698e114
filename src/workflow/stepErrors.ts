// Failures of running a workflow's steps (timeouts, loops, child workflows, `ask`, `write`, `run:`
// commands) as one error class with a `reason`. `message` is the text lait has always printed; a
// timeout is a typed interruption (exit 5, in core/errors.ts's table), every other reason exits 1.
import { excerpt, isAbridged, quotedExcerpt, type WholeText, wholeText } from "../core/excerpt.ts"
import { ReasonError, reasonCause, type TaggedUnion } from "../core/reasonError.ts"
import { type CommandFailureReason, describeCommandFailure } from "../platform/commandFailure.ts"

interface Reasons {
  StepTimeout: { step: string; seconds: number; attempt: number; attempts: number }
  WorkflowTimeout: { seconds: number }
  ForEachNotArray: { step: string; got: string }
  /** `keyword` is `until` or `while`. */
  MaxIterations: { step: string; max: number; keyword: string }
  NoCaseMatched: { step: string }
  AskInvalidChoice: { answer: string; choices: ReadonlyArray<string> }
  AskNoTerminal: {}
  AskConcurrent: { step: string }
  WriteConcurrent: { step: string }
  WriteFailed: { path: string; detail: string }
  /** A templated value in a `write` path holds `/` or `..`. */
  UnsafeWritePath: { path: string; value: string }
  ResolvePathFailed: { path: string; detail: string }
  UnregisteredWorkflow: { name: string }
  WorkflowCycle: { target: string; canonical: string }
  WorkflowTooDeep: { max: number }
  WithNotObject: { got: string }
  /** A model step's agent is in neither the workflow's nor the config's `agents:`. */
  UnknownAgent: { name: string }
  AttachmentsTooLarge: { limit: number }
  AttachmentNotUtf8: { path: string }
  /** `detail` is the whole reading failure, as rendered. */
  ImageRead: { path: string; detail: string }
  /** A `files:`/`--file` attachment that cannot be read; `detail` is why (the FileError's). */
  FileRead: { path: string; detail: string }
  ImageFormat: { path: string }
  /** `answer` is the model's whole answer; the message shows an excerpt (src/core/excerpt.ts). */
  /** `cut`: where the answer was cut off (src/model/completion.ts's cutOffText), when it was. */
  OutputNotJson: { step: string; schema: string; answer: string; cut?: string }
  /** `detail` is the validation failure, as rendered; `answer` the model's whole answer, for -v. */
  OutputMismatch: { step: string; detail: string; answer: string; cut?: string }
  /** The answer nests deeper than core/jsonDepth.ts allows (`reason` is its TOO_DEEP). */
  OutputTooDeep: { step: string; reason: string }
  /** A step's input does not match its `input_schema`; `cause` is the mismatch. */
  InputMismatch: { step: string; cause: unknown }
  /**
   * A template printed the `input` of a run given no initial value (without `template`: an agent
   * step was to send it as the user message). `field` names the template or step kind as the
   * message shows it (`'prompt'`); `hint` says how to give the value; `step` is set when no
   * enclosing context names the step already.
   */
  InputUnset: { step?: string; field: string; template?: string; hint: string }
  /** A dry run could not load a step's agent: a file (no `name`) or one registered as `name`. */
  DryRunAgent: { step: string; name?: string; cause: unknown }
}
/** With the ways a `run:` step's command fails (src/platform/commandFailure.ts). */
export type StepErrorReason = TaggedUnion<Reasons> | CommandFailureReason

/** Characters of a template quoted in a message: enough to recognise it. */
const TEMPLATE_EXCERPT = 60

/** `, cut off at max_tokens 5 (...),`: why an answer may be no valid JSON, when it was cut off. */
const cutClause = (cut: string | undefined): string => (cut === undefined ? "" : `, ${cut},`)

const describe = (reason: StepErrorReason): string => {
  switch (reason._tag) {
    case "StepTimeout":
      return `step '${reason.step}' timed out after ${reason.seconds}s (attempt ${reason.attempt}/${reason.attempts})`
    case "WorkflowTimeout":
      return `workflow timed out after ${reason.seconds}s ('timeout')`
    case "ForEachNotArray":
      return `step '${reason.step}': 'for_each' must produce a JSON array, got ${reason.got}`
    case "MaxIterations":
      return `step '${reason.step}': reached max_iterations (${reason.max}) without satisfying '${reason.keyword}'`
    case "NoCaseMatched":
      return `step '${reason.step}': no case matched and no 'else' is defined`
    case "AskInvalidChoice":
      return `answer ${JSON.stringify(reason.answer)} is not one of the configured 'choices': ` +
        reason.choices.join(", ")
    case "AskNoTerminal":
      return "stdin is not an interactive terminal and no 'default:' is set; an 'ask' step has no way to get an answer"
    case "AskConcurrent":
      return `step '${reason.step}' cannot 'ask' inside concurrent execution, including a nested workflow`
    case "WriteConcurrent":
      return `step '${reason.step}' writes a fixed path inside a concurrent 'for_each', including a nested ` +
        "workflow; add a placeholder to the path or move the write after the loop"
    case "WriteFailed":
      return `failed to write output to '${reason.path}'`
    case "UnsafeWritePath":
      return `refusing to write ${JSON.stringify(reason.path)}: ` +
        `the templated value ${JSON.stringify(reason.value)} contains ${reason.value.includes("/") ? "'/'" : "'..'"}` +
        "; a value in a 'write' path may only fill in a file name"
    case "ResolvePathFailed":
      return `failed to resolve workflow file path '${reason.path}'`
    case "UnregisteredWorkflow":
      return `workflow '${reason.name}' is not registered under 'workflows:' in lait.config.yml; ` +
        `use a path such as './${reason.name}.yml' for a file`
    case "WorkflowCycle":
      return `'workflow: ${reason.target}' would create a cycle ('${reason.canonical}' is already running)`
    case "WorkflowTooDeep":
      return `'workflow:' nesting exceeded the maximum depth of ${reason.max}`
    case "WithNotObject":
      return `'with' must produce an object, got ${reason.got}`
    case "CommandFailed":
    case "CommandOutputTooLarge":
    case "CommandExited":
    case "CommandNotUtf8":
      return describeCommandFailure(reason)
    case "UnknownAgent":
      return `agent '${reason.name}' is neither defined in this workflow's 'agents:' ` +
        "nor registered under 'agents:' in lait.config.yml"
    case "AttachmentsTooLarge":
      return `attachments exceed the combined size limit of ${reason.limit} bytes`
    case "AttachmentNotUtf8":
      return `attachment '${reason.path}' is neither UTF-8 text nor a PDF; other binary files are not supported`
    case "ImageRead":
      return `failed to read image file '${reason.path}'`
    case "FileRead":
      return `failed to read file '${reason.path}'`
    case "ImageFormat":
      return `could not determine the image format of '${reason.path}'; supported formats are PNG/JPEG/WebP/GIF`
    case "OutputNotJson":
      return `step '${reason.step}': the model's response${cutClause(reason.cut)} is not valid JSON ` +
        `for output schema '${reason.schema}'`
    case "OutputTooDeep":
      return `step '${reason.step}': the model's answer is ${reason.reason}`
    case "OutputMismatch":
      return `step '${reason.step}': the model's response${cutClause(reason.cut)} does not match its output schema`
    case "InputMismatch":
      return `step '${reason.step}'`
    case "InputUnset":
      return (reason.step === undefined ? "" : `step '${reason.step}': `) + (reason.template === undefined
        ? `${reason.field} sends 'input' to the model, which is not set: ${reason.hint}`
        : `${reason.field} template ${quotedExcerpt(reason.template, TEMPLATE_EXCERPT)} prints 'input', ` +
          `which is not set: ${reason.hint}, or print it only inside {{#if input}}...{{/if}}`)
    case "DryRunAgent":
      return reason.name === undefined
        ? `step '${reason.step}': failed to load agent file for dry-run`
        : `step '${reason.step}': failed to load agent '${reason.name}' for dry-run`
  }
}

/** After the message, `renderChain` prints the OS's or the stream's reason, or an excerpt of an answer. */
export class StepError extends ReasonError("StepError", {
  describe,
  cause: (reason) => reason._tag === "OutputNotJson" ? excerpt(reason.answer) : reasonCause(reason)
}) {
  /** What -v prints whole after the message quoted it cut or escaped (src/core/excerpt.ts). */
  get [wholeText](): WholeText | undefined {
    switch (this.reason._tag) {
      case "OutputNotJson":
        return isAbridged(this.reason.answer) ? { what: "the model's answer", text: this.reason.answer } : undefined
      case "OutputMismatch":
        return { what: "the model's answer", text: this.reason.answer }
      case "CommandExited":
        return isAbridged(this.reason.stderr, Infinity)
          ? { what: `the stderr of command '${this.reason.program}'`, text: this.reason.stderr }
          : undefined
      case "InputUnset":
        return this.reason.template !== undefined && isAbridged(this.reason.template, TEMPLATE_EXCERPT)
          ? { what: "the template", text: this.reason.template }
          : undefined
      default:
        return undefined
    }
  }
}

declare module "../core/errors.ts" {
  interface DomainErrors {
    readonly StepError: StepError
  }
}
