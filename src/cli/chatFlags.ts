// The flags of one-shot chat (`lait [FLAGS] PROMPT`), declared once: the root command takes them
// all, `lait compare` the model, sampling, system and tool groups. A new chat flag is one entry in
// `chatFlags`: declaring it through `text`/`list`/`bool` (or a group of src/cli/flags/ given those)
// also registers its name for the subcommand check below.
import { Option } from "effect"
import { Argument, Flag } from "effect/cli"
import type { ChatOptions } from "../chat/settings.ts"
import { bareSwitchFlag, repeatedFlag, type SwitchFlagMaker, valueFlag, type ValueFlagMaker } from "./flags/make.ts"
import { contentJsonFlag, outputFlag, showUsageFlag } from "./flags/output.ts"
import { recordFlags, runRecordHelp } from "./flags/record.ts"
import { traceFileFlag } from "./flags/trace.ts"

/** Root-only flags as typed (aliases too) → how a conflict names them (`--model <MODEL>`, `--json`). */
const ROOT_FLAGS = new Map<string, string>()
/** The ones that take a value (the next token is theirs). */
const ROOT_VALUE_FLAGS = new Set<string>()

const register = (name: string, metavar: string | undefined, alias?: string) => {
  const shown = metavar === undefined ? `--${name}` : `--${name} <${metavar}>`
  for (const typed of [`--${name}`, ...(alias === undefined ? [] : [`-${alias}`])]) {
    ROOT_FLAGS.set(typed, shown)
    if (metavar !== undefined) ROOT_VALUE_FLAGS.add(typed)
  }
}

// The makers of src/cli/flags/make.ts, registering what they declare; the shared groups take them too.
const text: ValueFlagMaker = (name, metavar, description, alias) => {
  register(name, metavar, alias)
  return valueFlag(name, metavar, description, alias)
}
const list = (name: string, metavar: string, description: string) => {
  register(name, metavar)
  return repeatedFlag(name, metavar, description)
}
const bool: SwitchFlagMaker = (name, description) => {
  register(name, undefined)
  return bareSwitchFlag(name, description)
}

export const samplingFlags = {
  temperature: text("temperature", "TEMPERATURE", "Sampling temperature, 0-2 (env LLM_TEMPERATURE)"),
  topP: text("top-p", "TOP_P", "Nucleus sampling, 0-1 (env LLM_TOP_P)"),
  maxTokens: text(
    "max-tokens",
    "MAX_TOKENS",
    "At most this many tokens, sent as max_completion_tokens (env LLM_MAX_TOKENS)"
  ),
  reasoningEffort: text(
    "reasoning-effort",
    "REASONING_EFFORT",
    "none|minimal|low|medium|high|xhigh (env LLM_REASONING_EFFORT)"
  )
}

export const systemFlags = {
  system: text("system", "TEXT", "System prompt (else default.system)"),
  systemFile: text("system-file", "FILE", "Read the system prompt from FILE")
}

export const toolFlags = {
  mcp: list("mcp", "NAME", "An mcp_servers entry whose tools the model may call (repeatable; else default.mcp)"),
  subagent: list(
    "subagent",
    "NAME",
    "An agents: entry the model may call as a tool (repeatable; else default.subagents)"
  ),
  tool: list("tool", "NAME", "A tools: entry the model may call (repeatable; else default.tools)")
}

export const chatFlags = {
  model: text("model", "MODEL", "Model alias or id (env LLM_MODEL; else default.model)"),
  baseUrl: text("base-url", "URL", "Send to this server only, no fallbacks (env OPENAI_BASE_URL keeps them)"),
  apiKey: text("api-key", "KEY", "API key for this request only, no fallbacks (env OPENAI_API_KEY keeps them)"),
  header: list("header", "NAME: VALUE", "Send this HTTP header to the model's primary endpoint (repeatable)"),
  ...systemFlags,
  ...samplingFlags,
  ...toolFlags,
  // Not registered as root-only: `lait run` takes it too (after its name).
  approveTools: bareSwitchFlag("approve-tools", "Ask on the terminal (y/n/a) before every tool call the model makes"),
  showReasoning: bool("show-reasoning", "Print the model's reasoning (before the answer; to stderr with -o)"),
  showUsage: showUsageFlag(undefined, bool),
  noHistory: bool("no-history", "Do not record this chat in `lait history` (default.history: false: never)"),
  session: text("session", "NAME", "Continue (or start) the conversation .lait/sessions/NAME.jsonl"),
  output: outputFlag("answer", text),
  json: contentJsonFlag("answer", bool),
  stream: bool("stream", "Print the answer as it is generated (conflicts with --json; see docs/repl.md#streaming)"),
  render: bool("render", "Render Markdown on a terminal (ignored with --json or when stdout is not a TTY)"),
  quiet: bool("quiet", "Print only the answer: no reasoning, no usage"),
  jsonSchema: text("json-schema", "FILE", "Ask for structured output following this JSON Schema (strict)"),
  schemaName: text("schema-name", "NAME", "The schema's name in the request (default structured_output)"),
  file: list("file", "PATH", "Attach a text file as a fenced block after the prompt (repeatable)"),
  image: list("image", "PATH_OR_URL", "Attach an image: a URL, or a local file sent as a data URL (repeatable)"),
  promptName: text("prompt-name", "NAME", "Render the prompts: entry NAME with PROMPT as its input", "p"),
  var: list("var", "KEY=VALUE", "A variable for --prompt-name's template (repeatable)"),
  ...recordFlags(runRecordHelp, text),
  traceFile: traceFileFlag("Write the model requests and tool calls to PATH as JSONL", text),
  prompt: Argument.String("prompt").pipe(
    Argument.withDescription("What to ask; '-' reads stdin (piped stdin is appended to PROMPT)"),
    Argument.optional
  )
}

/** Global flags that take a value (they are valid on either side of a subcommand). */
const GLOBAL_VALUE_FLAGS = new Set(["--config"])

// The first positional of a command line (as effect/cli finds it: value flags take the next token),
// its index, and the first root-only chat flag before it. Undefined after `--` or when there is none.
const scanToPositional = (
  argv: ReadonlyArray<string>
): { readonly index: number; readonly rootFlag: string | undefined } | undefined => {
  let found: string | undefined
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i]!
    if (token === "--") return undefined
    if (token.startsWith("-")) {
      const name = token.includes("=") ? token.slice(0, token.indexOf("=")) : token
      found ??= ROOT_FLAGS.get(name)
      if ((ROOT_VALUE_FLAGS.has(name) || GLOBAL_VALUE_FLAGS.has(name)) && !token.includes("=")) i++
      continue
    }
    return { index: i, rootFlag: found }
  }
  return undefined
}

// The subcommand a command line names (its first positional) and the first root-only chat flag before it.
const scanToSubcommand = (
  argv: ReadonlyArray<string>,
  subcommands: ReadonlyArray<string>
): { readonly name: string; readonly rootFlag: string | undefined } | undefined => {
  const first = scanToPositional(argv)
  const name = first === undefined ? undefined : argv[first.index]!
  return first !== undefined && name !== undefined && subcommands.includes(name)
    ? { name, rootFlag: first.rootFlag }
    : undefined
}

/**
 * Where one-shot chat's PROMPT is when it is the only positional of the command line (no `--`, no
 * subcommand): the index src/cli/mistypedCommand.ts checks. Undefined otherwise.
 */
export const lonePrompt = (argv: ReadonlyArray<string>, subcommands: ReadonlyArray<string>): number | undefined => {
  const first = scanToPositional(argv)
  if (first === undefined || subcommands.includes(argv[first.index]!)) return undefined
  const rest = argv.slice(first.index + 1)
  return scanToPositional(rest) === undefined && !rest.includes("--") ? first.index : undefined
}

/** The subcommand the command line names, if any (undefined for one-shot chat or none). */
export const namedSubcommand = (argv: ReadonlyArray<string>, subcommands: ReadonlyArray<string>): string | undefined =>
  scanToSubcommand(argv, subcommands)?.name

/**
 * A root-only chat flag given before a subcommand (`lait --model m run wf.yml`), as upstream words it:
 * `the argument '--model <MODEL>' cannot be used with subcommand 'run'`. Undefined when there is none
 * (a flag after the subcommand is the subcommand's own to accept or reject).
 */
export const subcommandConflict = (
  argv: ReadonlyArray<string>,
  subcommands: ReadonlyArray<string>
): string | undefined => {
  const named = scanToSubcommand(argv, subcommands)
  return named?.rootFlag === undefined
    ? undefined
    : `the argument '${named.rootFlag}' cannot be used with subcommand '${named.name}'`
}

type Parsed<T> = { readonly [K in keyof T]: T[K] extends Flag.Flag<infer A> ? A : never }

const get = <A>(o: Option.Option<A>): A | undefined => Option.getOrUndefined(o)

/** The shared groups' parsed values as ChatOptions (the model is the caller's: compare has several). */
export const chatOptionsOf = (
  flags: Parsed<typeof samplingFlags & typeof systemFlags & typeof toolFlags>
): ChatOptions => ({
  system: get(flags.system),
  systemFile: get(flags.systemFile),
  temperature: get(flags.temperature),
  topP: get(flags.topP),
  maxTokens: get(flags.maxTokens),
  reasoningEffort: get(flags.reasoningEffort),
  mcp: flags.mcp,
  subagents: flags.subagent,
  tools: flags.tool
})

/** The parsed values of every chat flag (the root command's input). */
export type ChatFlagValues = {
  readonly [K in keyof typeof chatFlags]: (typeof chatFlags)[K] extends Flag.Flag<infer A> ? A
    : (typeof chatFlags)[K] extends Argument.Argument<infer B> ? B
    : never
}
