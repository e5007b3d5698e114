// The flags of one-shot chat (`lait [FLAGS] PROMPT`), declared once: the root command takes them
// all, `lait compare` the model, sampling, system and tool groups. A new chat flag is one entry in
// `chatFlags` (and, when it takes a value, one name in ROOT_VALUE_FLAGS for the subcommand check).
import { Option } from "effect"
import { Argument, Flag } from "effect/cli"
import type { ChatOptions } from "../chat/settings.ts"

const text = (name: string, metavar: string, description: string) =>
  Flag.String(name).pipe(Flag.withMetavar(metavar), Flag.withDescription(description), Flag.optional)
const list = (name: string, metavar: string, description: string) =>
  Flag.String(name).pipe(Flag.withMetavar(metavar), Flag.withDescription(description), Flag.atLeast(0))
const bool = (name: string, description: string) =>
  Flag.Boolean(name).pipe(Flag.withoutNegation, Flag.withDescription(description), Flag.withDefault(false))

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
  ...systemFlags,
  ...samplingFlags,
  ...toolFlags,
  showReasoning: bool("show-reasoning", "Print the model's reasoning (before the answer; to stderr with -o)"),
  showUsage: bool("show-usage", "Print token usage (and cost, with pricing:) to stderr"),
  session: text("session", "NAME", "Continue (or start) the conversation .lait/sessions/NAME.jsonl"),
  output: Flag.String("output").pipe(
    Flag.withAlias("o"),
    Flag.withMetavar("PATH"),
    Flag.withDescription("Write the answer to PATH instead of stdout ('-' is stdout)"),
    Flag.optional
  ),
  json: bool("json", "Print {\"content\",\"reasoning\",\"usage\"} instead of the bare answer"),
  stream: bool("stream", "Print the answer as it is generated (conflicts with --json; see docs/repl.md#streaming)"),
  render: bool("render", "Render Markdown on a terminal (ignored with --json or when stdout is not a TTY)"),
  quiet: bool("quiet", "Print only the answer: no reasoning, no usage"),
  jsonSchema: text("json-schema", "FILE", "Ask for structured output following this JSON Schema (strict)"),
  schemaName: text("schema-name", "NAME", "The schema's name in the request (default structured_output)"),
  file: list("file", "PATH", "Attach a text file as a fenced block after the prompt (repeatable)"),
  image: list("image", "PATH_OR_URL", "Attach an image: a URL, or a local file sent as a data URL (repeatable)"),
  promptName: Flag.String("prompt-name").pipe(
    Flag.withAlias("p"),
    Flag.withMetavar("NAME"),
    Flag.withDescription("Render the prompts: entry NAME with PROMPT as its input"),
    Flag.optional
  ),
  var: list("var", "KEY=VALUE", "A variable for --prompt-name's template (repeatable)"),
  record: text("record", "DIR", "Save every model request/response as a cassette <DIR>/<key>.json"),
  replay: text("replay", "DIR", "Answer model requests only from cassettes in DIR; never touch the network"),
  traceFile: text("trace-file", "PATH", "Write the model requests and tool calls to PATH as JSONL"),
  prompt: Argument.String("prompt").pipe(
    Argument.withDescription("What to ask; '-' reads stdin (piped stdin is appended to PROMPT)"),
    Argument.optional
  )
}

/** Root-only flags that take a value, as typed (aliases too): for the subcommand check below. */
const ROOT_VALUE_FLAGS = new Set([
  "--model",
  "--base-url",
  "--api-key",
  "--system",
  "--system-file",
  "--temperature",
  "--top-p",
  "--max-tokens",
  "--reasoning-effort",
  "--mcp",
  "--subagent",
  "--tool",
  "--session",
  "--output",
  "-o",
  "--json-schema",
  "--schema-name",
  "--file",
  "--image",
  "--prompt-name",
  "-p",
  "--var",
  "--record",
  "--replay",
  "--trace-file"
])
const ROOT_BOOLEAN_FLAGS = new Set(["--show-reasoning", "--show-usage", "--json", "--render", "--quiet", "--stream"])
/** Global flags that take a value (they are valid on either side of a subcommand). */
const GLOBAL_VALUE_FLAGS = new Set(["--config"])

const metavars: Readonly<Record<string, string>> = { "-o": "--output", "-p": "--prompt-name" }

/**
 * A root-only chat flag given before a subcommand (`lait --model m run wf.yml`), as upstream words it:
 * `the argument '--model <MODEL>' cannot be used with subcommand 'run'`. Undefined when there is none
 * (a flag after the subcommand is the subcommand's own to accept or reject).
 */
export const subcommandConflict = (
  argv: ReadonlyArray<string>,
  subcommands: ReadonlyArray<string>
): string | undefined => {
  let found: string | undefined
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i]!
    if (token === "--") return undefined
    if (token.startsWith("-")) {
      const name = token.includes("=") ? token.slice(0, token.indexOf("=")) : token
      if (ROOT_VALUE_FLAGS.has(name) || ROOT_BOOLEAN_FLAGS.has(name)) {
        const long = metavars[name] ?? name
        found ??= ROOT_VALUE_FLAGS.has(name) ? `${long} <${long.slice(2).toUpperCase().replaceAll("-", "_")}>` : long
      }
      if ((ROOT_VALUE_FLAGS.has(name) || GLOBAL_VALUE_FLAGS.has(name)) && !token.includes("=")) i++
      continue
    }
    if (!subcommands.includes(token)) return undefined
    return found === undefined ? undefined : `the argument '${found}' cannot be used with subcommand '${token}'`
  }
  return undefined
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
