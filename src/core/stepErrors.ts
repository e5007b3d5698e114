// Failures of running a workflow's steps (timeouts, loops, child workflows, `ask`, `write`, `run:`
// commands) as one error class with a `reason`. `message` is the text lait has always printed; a
// timeout is a typed interruption (exit 5, in core/errors.ts's table), every other reason exits 1.
import { Schema } from "effect"

const step = Schema.String
const text = Schema.String

// Suspended: the members are built when the first such error is made rather than in every process that
// loads this module, `lait --version` included (bench/README.md, start-up).
const Reason = Schema.suspend(() => Schema.Union([
  Schema.TaggedStruct("StepTimeout", { step, seconds: Schema.Number, attempt: Schema.Number, attempts: Schema.Number }),
  Schema.TaggedStruct("WorkflowTimeout", { seconds: Schema.Number }),
  Schema.TaggedStruct("ForEachNotArray", { step, got: text }),
  /** `keyword` is `until` or `while`. */
  Schema.TaggedStruct("MaxIterations", { step, max: Schema.Number, keyword: text }),
  Schema.TaggedStruct("NoCaseMatched", { step }),
  Schema.TaggedStruct("AskInvalidChoice", { answer: text, choices: Schema.Array(text) }),
  Schema.TaggedStruct("AskNoTerminal", {}),
  Schema.TaggedStruct("AskConcurrent", { step }),
  Schema.TaggedStruct("WriteConcurrent", { step }),
  Schema.TaggedStruct("WriteFailed", { path: text, detail: text }),
  /** A templated value in a `write` path holds `/` or `..`. */
  Schema.TaggedStruct("UnsafeWritePath", { path: text, value: text }),
  Schema.TaggedStruct("ResolvePathFailed", { path: text, detail: text }),
  Schema.TaggedStruct("UnregisteredWorkflow", { name: text }),
  Schema.TaggedStruct("WorkflowCycle", { target: text, canonical: text }),
  Schema.TaggedStruct("WorkflowTooDeep", { max: Schema.Number }),
  Schema.TaggedStruct("WithNotObject", { got: text }),
  /** A command could not be started (`spawn`) or waited for (`wait`); `detail` is the OS's reason. */
  Schema.TaggedStruct("CommandFailed", { program: text, stage: Schema.Literals(["spawn", "wait"]), detail: text }),
  Schema.TaggedStruct("CommandOutputTooLarge", { stream: text, detail: text }),
  /** `status` as shown (`exit status: 2`); `stderr` is its tail. */
  Schema.TaggedStruct("CommandExited", { program: text, status: text, stderr: text }),
  Schema.TaggedStruct("CommandNotUtf8", { program: text }),
  /** A model step's agent is in neither the workflow's nor the config's `agents:`. */
  Schema.TaggedStruct("UnknownAgent", { name: text }),
  Schema.TaggedStruct("AttachmentsTooLarge", { limit: Schema.Number }),
  Schema.TaggedStruct("AttachmentNotUtf8", { path: text }),
  /** `detail` is the whole reading failure, as rendered. */
  Schema.TaggedStruct("ImageRead", { path: text, detail: text }),
  Schema.TaggedStruct("ImageFormat", { path: text }),
  /** `detail` is the start of the model's answer. */
  Schema.TaggedStruct("OutputNotJson", { step, schema: text, detail: text }),
  /** `detail` is the validation failure, as rendered. */
  Schema.TaggedStruct("OutputMismatch", { step, detail: text }),
  /** A step's input does not match its `input_schema`; `cause` is the mismatch. */
  Schema.TaggedStruct("InputMismatch", { step, cause: Schema.Unknown }),
  /** A dry run could not load a step's agent: a file (no `name`) or one registered as `name`. */
  Schema.TaggedStruct("DryRunAgent", { step, name: Schema.optionalKey(text), cause: Schema.Unknown })
]))
export type StepErrorReason = typeof Reason.Type

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
      return reason.stage === "spawn"
        ? `failed to run command '${reason.program}'`
        : `failed to wait for command '${reason.program}'`
    case "CommandOutputTooLarge":
      return `failed to read ${reason.stream} from command`
    case "CommandExited":
      return `command '${reason.program}' exited with ${reason.status}: ${reason.stderr}`
    case "CommandNotUtf8":
      return `command '${reason.program}' produced non-UTF-8 output on stdout; binary output is not supported`
    case "UnknownAgent":
      return `agent '${reason.name}' is neither defined in this workflow's 'agents:' ` +
        "nor registered under 'agents:' in lait.config.yml"
    case "AttachmentsTooLarge":
      return `attachments exceed the combined size limit of ${reason.limit} bytes`
    case "AttachmentNotUtf8":
      return `attachment '${reason.path}' is not valid UTF-8 text; binary files are not supported`
    case "ImageRead":
      return `failed to read image file '${reason.path}'`
    case "ImageFormat":
      return `could not determine the image format of '${reason.path}'; supported formats are PNG/JPEG/WebP/GIF`
    case "OutputNotJson":
      return `step '${reason.step}': the model's response is not valid JSON for output schema '${reason.schema}'`
    case "OutputMismatch":
      return `step '${reason.step}': the model's response does not match its output schema`
    case "InputMismatch":
      return `step '${reason.step}'`
    case "DryRunAgent":
      return reason.name === undefined
        ? `step '${reason.step}': failed to load agent file for dry-run`
        : `step '${reason.step}': failed to load agent '${reason.name}' for dry-run`
  }
}

export class StepError extends Schema.TaggedError<StepError>()("StepError", { reason: Reason }) {
  override get message(): string {
    return describe(this.reason)
  }

  /** What `renderChain` prints after the message: the OS's or the stream's reason. */
  override get cause(): unknown {
    switch (this.reason._tag) {
      case "WriteFailed":
      case "ResolvePathFailed":
      case "CommandFailed":
      case "CommandOutputTooLarge":
      case "ImageRead":
      case "OutputNotJson":
      case "OutputMismatch":
        return this.reason.detail
      case "InputMismatch":
      case "DryRunAgent":
        return this.reason.cause
      default:
        return undefined
    }
  }
}

declare module "./errors.ts" {
  interface DomainErrors {
    readonly StepError: StepError
  }
}
