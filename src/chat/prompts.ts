// The config's `prompts:` registry (`name → {template, model?, vars?}`): `-p/--prompt-name` on chat
// and `lait prompt run`. A template is Handlebars (strict: an unknown name is an error) over `input`
// (the PROMPT/INPUT text, parsed as JSON when it is JSON) and `vars` (the entry's `vars:` with each
// `--var KEY=VALUE` over them, a later one winning).
import { Effect } from "effect"
import type { ConfigFile, PromptDefinition } from "../config/schema.ts"
import { withContext } from "../core/errors.ts"
import { parseTextInput } from "../lang/inputs.ts"
import { renderTemplate } from "../lang/template.ts"
import { ChatError } from "./chatErrors.ts"

export const parseVar = (arg: string): Effect.Effect<readonly [string, string], ChatError> => {
  const eq = arg.indexOf("=")
  if (eq < 0) return Effect.fail(new ChatError({ reason: { _tag: "BadVar", arg, problem: "no-equals" } }))
  if (eq === 0) return Effect.fail(new ChatError({ reason: { _tag: "BadVar", arg, problem: "empty-key" } }))
  return Effect.succeed([arg.slice(0, eq), arg.slice(eq + 1)] as const)
}

export const sortedPromptNames = (config: ConfigFile): ReadonlyArray<string> =>
  Object.keys(config.prompts ?? {}).sort()

export const lookupPrompt = (name: string, config: ConfigFile): Effect.Effect<PromptDefinition, ChatError> => {
  const definition = config.prompts?.[name]
  return definition !== undefined && Object.hasOwn(config.prompts ?? {}, name)
    ? Effect.succeed(definition)
    : Effect.fail(new ChatError({ reason: { _tag: "UnknownPrompt", name, available: sortedPromptNames(config) } }))
}

/** The rendered text and the entry's own `model:`. */
export const renderNamedPrompt = (
  name: string,
  input: string,
  vars: ReadonlyArray<string>,
  config: ConfigFile
) =>
  Effect.gen(function*() {
    const definition = yield* lookupPrompt(name, config)
    const merged: Record<string, string> = { ...definition.vars }
    for (const arg of vars) {
      const [key, value] = yield* parseVar(arg)
      merged[key] = value
    }
    const text = yield* renderTemplate(definition.template, {
      input: parseTextInput(input),
      vars: merged,
      steps: {},
      inputs: {},
      loop: null
    }).pipe(Effect.mapError(withContext(`prompt '${name}'`)))
    return { text, model: definition.model }
  })
