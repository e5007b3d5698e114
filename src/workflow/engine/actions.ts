// The kinds that do one thing with the value: `jq`, `run` (a command, see src/platform/process.ts),
// `write` (./write.ts), `ask` (./ask.ts) and `workflow` (./children.ts). Their errors carry
// `step '<label>'`.
import { Effect } from "effect"
import { expandMap, expandVars } from "../../config/env.ts"
import { type Json, textForm } from "../../core/json.ts"
import { evalJqOne } from "../../lang/jq.ts"
import { renderTemplate, renderTemplateParts } from "../../lang/template.ts"
import { runCommand } from "../../platform/process.ts"
import { resolveInRun } from "../../core/runPath.ts"
import { ask } from "./ask.ts"
import { runChild } from "./children.ts"
import { type EngineEffect, type Frame, jqVars, type Kind, observeCancel, templateData, wrap } from "./frame.ts"
import type { Steps } from "./types.ts"
import { unsafeWritePath, writeOutputFile } from "./write.ts"
import { explainUnsetInput } from "../unsetInput.ts"
import { StepError } from "../stepErrors.ts"

export const runAction = (
  kind: Kind<"jq" | "run" | "write" | "ask" | "workflow">,
  input: Json,
  steps: Steps,
  frame: Frame,
  label: string,
  /** How to give the run its initial value, when `input` is that missing value. */
  unset?: string
): EngineEffect<Json> => {
  const data = () => templateData(frame, input, steps, unset !== undefined)
  const action: EngineEffect<Json> = Effect.gen(function*() {
    switch (kind.type) {
      case "jq":
        return yield* evalJqOne(kind.filter, input, jqVars(frame, steps), "filter")
      case "run": {
        const argv = yield* Effect.forEach(
          kind.argv,
          (arg) => renderTemplate(arg, data()).pipe(Effect.mapError(explainUnsetInput("'run'", arg, unset)))
        )
        const env = kind.env === undefined
          ? undefined
          : yield* expandMap(kind.env, frame.run.env).pipe(Effect.mapError(wrap("'env'")))
        const cwd = kind.cwd === undefined
          ? frame.run.cwd
          : resolveInRun(frame.run.cwd, yield* expandVars(kind.cwd, frame.run.env).pipe(Effect.mapError(wrap("'cwd'"))))
        return yield* observeCancel(
          frame,
          runCommand({
            argv,
            stdin: textForm(input),
            ...(env !== undefined ? { env } : {}),
            ...(cwd !== undefined ? { cwd } : {})
          }).pipe(Effect.mapError((failure) => new StepError({ reason: failure.reason }))),
          `command '${argv[0] ?? ""}' was cancelled`
        )
      }
      case "write": {
        const { text: path, printed } = yield* renderTemplateParts(kind.path, data()).pipe(
          Effect.mapError(explainUnsetInput("'write'", kind.path, unset))
        )
        const unsafe = unsafeWritePath(path, printed)
        if (unsafe !== undefined) return yield* unsafe
        const written = writeOutputFile(path, textForm(input), frame.run.cwd)
        yield* observeCancel(frame, written, "output file write was cancelled")
        return input
      }
      case "ask": {
        const question = yield* renderTemplate(kind.prompt, data()).pipe(
          Effect.mapError(explainUnsetInput("'ask'", kind.prompt, unset))
        )
        return yield* observeCancel(
          frame,
          ask(
            {
              question,
              multiline: kind.multiline,
              ...(kind.choices !== undefined ? { choices: kind.choices } : {}),
              ...(kind.default !== undefined ? { default: kind.default } : {})
            },
            frame.progress,
            frame.run.answerer
          ),
          "reading the answer to 'ask' was cancelled"
        )
      }
      case "workflow":
        return yield* runChild(kind, input, steps, frame, unset !== undefined)
    }
  })
  return action.pipe(Effect.mapError(wrap(`step '${label}'`)))
}
