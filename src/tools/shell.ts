// Shell tools (config `tools:`, docs/workflows.md#shell-tools): a local command offered to the model as `tool__<name>`.
// The argv is rendered from templates over the call's arguments and executed without a shell, so a
// rendered value can never inject a second command. What goes wrong once the command is about to run
// (arguments that fail the `parameters` schema, a template that cannot render, a non-zero exit, a
// timeout) is returned to the model as the tool result so it can try again; malformed arguments and
// configuration errors stop the run.
import { Duration, Effect } from "effect"
import type { ShellTool } from "../config/schema.ts"
import { type Env, expandMap, expandVars } from "../config/env.ts"
import { type AnyLaitError, renderChain, withContext } from "../core/errors.ts"
import { isJsonObject, type Json, type JsonObject } from "../core/json.ts"
import { ToolError } from "./toolErrors.ts"
import { checkJson } from "../lang/jsonschema.ts"
import { renderTemplate } from "../lang/template.ts"
import { runCommand } from "../platform/process.ts"
import { resolveInRun } from "../core/runPath.ts"
import { qualifyToolName } from "./names.ts"
import { toolDefinition, type ToolEntry } from "./types.ts"
import { parseJsonText } from "../core/jsonDepth.ts"

export const DEFAULT_SHELL_TOOL_TIMEOUT_SECONDS = 30

/** An argv the way upstream prints it (Rust's `{:?}` of a Vec<String>): `["echo", "hi there"]`. */
export const formatArgv = (argv: ReadonlyArray<string>): string => `[${argv.map((a) => JSON.stringify(a)).join(", ")}]`

/**
 * The call's arguments as the `input` of the templates: blank and `null` mean `{}`; anything else must
 * be a JSON object, or nothing runs.
 */
export const parseToolArguments = (raw: string): JsonObject | ToolError => {
  if (raw.trim() === "") return {}
  let value: Json
  try {
    value = parseJsonText(raw) as Json
  } catch (e) {
    return new ToolError({ reason: { _tag: "ArgumentsNotJson", detail: e instanceof Error ? e.message : String(e) } })
  }
  if (value === null) return {}
  if (!isJsonObject(value)) {
    return new ToolError({ reason: { _tag: "ArgumentsNotObject", got: JSON.stringify(value) } })
  }
  return value
}

const renderArgv = (tool: ShellTool, input: JsonObject) =>
  Effect.forEach(tool.command, (part) => renderTemplate(part, { input, steps: {}, inputs: {}, loop: null }))

export interface ShellToolOptions {
  /** `${VAR}` in `env`/`cwd` is looked up here (the config's environment, `.env` included). */
  readonly env: Env
  /** The run's own working directory: the command starts there and a relative `cwd` resolves against it. */
  readonly cwd?: string | undefined
}

const failed = (error: unknown) => `tool command failed: ${renderChain(error)}`

/** Runs one call of `tool` (called `name` in `tools:`); see the module comment for what fails how. */
export const callShellTool = (
  name: string,
  tool: ShellTool,
  args: string,
  options: ShellToolOptions
): Effect.Effect<string, AnyLaitError> =>
  Effect.gen(function*() {
    const input = parseToolArguments(args)
    if (input instanceof ToolError) return yield* input
    const invalid = yield* checkJson(tool.parameters as JsonObject, input, "arguments")
    if (invalid !== undefined) return `tool arguments failed validation: ${invalid.message}`
    const argv = yield* Effect.result(renderArgv(tool, input))
    if (argv._tag === "Failure") return failed(argv.failure)
    const context = withContext(`shell tool '${name}'`)
    const env = tool.env === undefined
      ? undefined
      : yield* expandMap(tool.env, options.env).pipe(Effect.mapError((e) => context(withContext("'env'")(e))))
    const cwd = tool.cwd === undefined
      ? options.cwd
      : resolveInRun(
        options.cwd,
        yield* expandVars(tool.cwd, options.env).pipe(Effect.mapError((e) => context(withContext("'cwd'")(e))))
      )
    const seconds = tool.timeout ?? DEFAULT_SHELL_TOOL_TIMEOUT_SECONDS
    // Interruption (Ctrl-C, a step timeout) is not caught here: it stops the process group and the run.
    const outcome = yield* runCommand({
      argv: argv.success,
      stdin: "",
      ...(env !== undefined ? { env } : {}),
      ...(cwd !== undefined ? { cwd } : {})
    }).pipe(
      Effect.timeoutOrElse({
        duration: Duration.seconds(seconds),
        orElse: () =>
          Effect.fail(
            new ToolError({ reason: { _tag: "CommandTimeout", seconds, argv: formatArgv(argv.success) } })
          )
      }),
      Effect.result
    )
    return outcome._tag === "Success" ? outcome.success : failed(outcome.failure)
  })

/** The argv a call would run, or undefined when the arguments or templates do not allow rendering it. */
export const previewShellTool = (tool: ShellTool, args: string): Effect.Effect<string | undefined> => {
  const input = parseToolArguments(args)
  if (input instanceof ToolError) return Effect.succeed(undefined)
  return renderArgv(tool, input).pipe(
    Effect.map(formatArgv),
    Effect.orElseSucceed(() => undefined)
  )
}

/** The entries for a `tools:` list, in list order. */
export const shellToolEntries = (
  names: ReadonlyArray<string>,
  registry: Readonly<Record<string, ShellTool>> | undefined,
  options: ShellToolOptions
): Effect.Effect<ReadonlyArray<ToolEntry>, ToolError> =>
  Effect.gen(function*() {
    const entries: Array<ToolEntry> = []
    const seen = new Set<string>()
    for (const name of names) {
      const tool = registry?.[name]
      if (tool === undefined) {
        return yield* new ToolError({ reason: { _tag: "UnknownTool", name } })
      }
      const qualified = qualifyToolName("shell tool", "tool", name)
      if (qualified instanceof ToolError) return yield* qualified
      if (seen.has(qualified)) return yield* new ToolError({ reason: { _tag: "DuplicateTool", name } })
      seen.add(qualified)
      entries.push({
        name: qualified,
        source: "shell",
        definition: toolDefinition(qualified, tool.description, tool.parameters),
        call: (args) => callShellTool(name, tool, args, options),
        preview: (args) => previewShellTool(tool, args)
      })
    }
    return entries
  })
