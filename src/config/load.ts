// Finding, parsing, checking and merging config files (global < project).
import { Cause, Console, Effect, Exit } from "effect"
import * as nodePath from "node:path"
import type { Env } from "./env.ts"
import { withLine } from "../core/errors.ts"
import { loadDotenv } from "./dotenv.ts"
import { ConfigError } from "./configErrors.ts"
import { errnoOf, FileLoader } from "../platform/FileLoader.ts"
import { describeYamlValue, formatPath, namingModelId, type PathSegment, valueAtPath } from "../core/schemaPath.ts"
import { offsetAtPath, parseYamlTree, type YamlTree } from "../core/yamlTree.ts"
import { dotenvBaseUrlWarning } from "./dotenvRisk.ts"
import type { CommandSpec, ConfigFile, DefaultSettings } from "./schema.ts"
import type { GlobalKeyCmds } from "./apiKeyCmd.ts"

export const CONFIG_FILE_NAME = "lait.config.yml"

export interface LoadOptions {
  readonly cwd: string
  /** `--config PATH`: exactly this file (relative to `cwd`), no search, no global file. */
  readonly configPath?: string | undefined
  /** `--no-config`: no file at all. */
  readonly noConfig: boolean
  /** `--no-env`: skip `<cwd>/.env`. */
  readonly noEnv: boolean
  /** Read and filled by `.env`; defaults to `process.env`. HOME and XDG_CONFIG_HOME come from here. */
  readonly env?: Env
  /** Wait for a writer when a config file is a FIFO (model-calling commands) or fail at once. */
  readonly waitForWriter?: boolean
  /**
   * Keep a file that decodes but breaks a cross-field rule (both `api_key` and `api_key_cmd`, an MCP
   * server's transport) and report it in `invalid` instead of failing: `lait lint` reports that
   * next to the rest of the file (its registry) rather than letting one problem hide the others.
   */
  readonly keepInvalid?: boolean
}

export interface LoadedConfig {
  /** The merged config; registry paths (workflows, agents, skills) are absolute. */
  readonly config: ConfigFile
  /** Absolute paths of the files merged, lowest precedence first. */
  readonly files: ReadonlyArray<string>
  readonly env: Env
  readonly cwd: string
  /** With `keepInvalid`: the rule violations of the files merged, one error per file. */
  readonly invalid?: ReadonlyArray<ConfigError>
  /** `--no-config`: no file was looked for. */
  readonly noConfig?: boolean
  /** The global file's `api_key_cmd`s, which run without `.env` (see GlobalKeyCmds). */
  readonly globalKeyCmds?: GlobalKeyCmds
  /** Which of `files` set what wins for the API key (src/config/endpoints.ts names it on a 401/403). */
  readonly origins?: ConfigOrigins
}

/** The file (absolute path) each winning key-bearing setting comes from. */
export interface ConfigOrigins {
  /** Alias → the file whose `models:` entry for it won. */
  readonly models: Readonly<Record<string, string>>
  /** The file of the top-level `api_key`/`api_key_cmd` pair that won. */
  readonly apiKey?: string
}

/** Where each layer's settings came from, merged as mergeConfigs merges the layers (upper wins). */
const originsOf = (paths: ReadonlyArray<string>, layers: ReadonlyArray<ConfigFile>): ConfigOrigins => {
  const models: Record<string, string> = {}
  let apiKey: string | undefined
  layers.forEach((layer, i) => {
    for (const alias of Object.keys(layer.models ?? {})) models[alias] = paths[i]!
    if (layer.api_key !== undefined || layer.api_key_cmd !== undefined) apiKey = paths[i]!
  })
  return { models, ...(apiKey === undefined ? {} : { apiKey }) }
}

/** `$XDG_CONFIG_HOME/lait/config.yml`, else `$HOME/.config/lait/config.yml`; undefined with neither. */
export const globalConfigPath = (env: Env): string | undefined => {
  const xdg = env["XDG_CONFIG_HOME"]
  // The XDG spec says relative values are invalid and must be ignored.
  if (xdg !== undefined && xdg !== "" && nodePath.isAbsolute(xdg)) return nodePath.join(xdg, "lait", "config.yml")
  const home = env["HOME"]
  if (home === undefined || home === "") return undefined
  return nodePath.join(home, ".config", "lait", "config.yml")
}

/** The first `lait.config.yml` that is a regular file (symlinks followed), from `cwd` upward. */
export const findProjectConfig = (cwd: string): Effect.Effect<string | undefined, never, FileLoader> =>
  Effect.gen(function*() {
    const files = yield* FileLoader
    let dir = nodePath.resolve(cwd)
    while (true) {
      const candidate = nodePath.join(dir, CONFIG_FILE_NAME)
      // Not here (or unreadable metadata): keep walking, as upstream's is_file() does.
      const stat = yield* Effect.option(files.stat(candidate))
      if (stat._tag === "Some" && stat.value.isFile()) return candidate
      const parent = nodePath.dirname(dir)
      if (parent === dir) return undefined
      dir = parent
    }
  })

// ---------------------------------------------------------------------------------------------------
// Parsing one file

/**
 * The 1-based line of the deepest node on `path` that exists in the document: the key's line for a
 * mapping entry (so an unknown key points at itself), the item's line for a sequence element.
 */
const lineOf = (tree: YamlTree, path: ReadonlyArray<PathSegment>) => {
  const offset = offsetAtPath(tree.root, path)
  return offset === undefined ? undefined : tree.line(offset)
}

const issueMessage = (message: string): string => {
  if (message === "Expected no excess property") return "unknown key"
  if (message === "Missing key") return "missing required key"
  return message.length > 0 ? message[0]!.toLowerCase() + message.slice(1) : message
}


// `file`/`line` (the first problem's) let `lait lint` point at the line without reading the message.
const located = (line: number | undefined) => (line === undefined ? {} : { line })

const parseFailure = (path: string, detail: string, line?: number) =>
  new ConfigError({ reason: { _tag: "ParseFailed", path, detail, ...located(line) } })

const invalidConfig = (path: string, detail: string, line?: number) =>
  new ConfigError({ reason: { _tag: "Invalid", path, detail, ...located(line) } })

interface Problem {
  readonly path: ReadonlyArray<PathSegment>
  readonly message: string
}

const keyPairProblem = (
  at: ReadonlyArray<PathSegment>,
  context: string,
  layer: { readonly api_key?: string; readonly api_key_cmd?: CommandSpec } | undefined
): Array<Problem> =>
  layer !== undefined && layer.api_key !== undefined && layer.api_key_cmd !== undefined
    ? [{ path: [...at, "api_key_cmd"], message: `${context} sets both 'api_key' and 'api_key_cmd'; set exactly one` }]
    : []

/** Rules a schema cannot say well: key-source exclusivity and the MCP transport choice. */
export const semanticProblems = (config: ConfigFile): ReadonlyArray<Problem> => {
  const problems: Array<Problem> = [...keyPairProblem([], "top-level configuration", config)]
  for (const [alias, definitions] of Object.entries(config.models ?? {})) {
    definitions.forEach((definition, index) => {
      const context = index === 0
        ? `model definition ${JSON.stringify(alias)}`
        : `model definition ${JSON.stringify(alias)}'s fallback entry #${index + 1}`
      problems.push(...keyPairProblem(["models", alias, index, "provider"], context, definition.provider))
    })
  }
  problems.push(...keyPairProblem(["jev"], "'jev:' configuration", config.jev))
  for (const [name, server] of Object.entries(config.mcp_servers ?? {})) {
    const hasCommand = server.command !== undefined
    const hasUrl = server.url !== undefined
    if (hasCommand === hasUrl) {
      problems.push({
        path: ["mcp_servers", name],
        message: `mcp_servers.${name} has ` +
          (hasCommand ? "both 'command' and 'url'" : "neither 'command' nor 'url'") +
          "; set exactly one (stdio vs. streamable HTTP)"
      })
    }
  }
  return problems
}

const resolveRegistry = (dir: string, map: Readonly<Record<string, string>> | undefined) =>
  map === undefined
    ? undefined
    : Object.fromEntries(Object.entries(map).map(([k, v]) => [k, nodePath.resolve(dir, v)]))

/** Registry paths are relative to the file that defines them; make them absolute before merging. */
const resolveRegistryPaths = (config: ConfigFile, dir: string): ConfigFile => {
  const skills = resolveRegistry(dir, config.skills)
  const agents = resolveRegistry(dir, config.agents)
  const workflows = resolveRegistry(dir, config.workflows)
  return {
    ...config,
    ...(skills === undefined ? {} : { skills }),
    ...(agents === undefined ? {} : { agents }),
    ...(workflows === undefined ? {} : { workflows })
  }
}

// yaml's pretty errors append a source excerpt after the first line; it may show a key, so drop it.
const firstLine = (text: string) => text.split("\n")[0]!.trim().replace(/:$/, "")

/** A config file that decoded, and the cross-field rules it breaks (undefined when none). */
export interface CheckedConfig {
  readonly config: ConfigFile
  readonly invalid: ConfigError | undefined
}

/**
 * The config schema's decode, which words every error. The schema is built when its module is
 * evaluated: only a run that has a config file pays for it.
 */
const decodeBySchema = Effect.fnUntraced(function*(path: string, tree: YamlTree, raw: unknown) {
  const { configIssues, decodeConfigFile } = yield* Effect.promise(() => import("./schema.ts"))
  const decoded = decodeConfigFile(raw)
  if (Exit.isSuccess(decoded)) return decoded.value
  const error = Cause.squash(decoded.cause)
  const issues = typeof error === "object" && error !== null && "issue" in error
    ? configIssues(error.issue)
    : [{ path: [] as ReadonlyArray<PathSegment>, message: String(error) }]
  const lines: Array<number | undefined> = []
  const detail = issues.map((issue) => {
    const at = (issue.path ?? []).map((s) => (typeof s === "object" && s !== null && "key" in s ? s.key : s))
    const where = at.length === 0 ? "" : `${formatPath(at)}: `
    const line = lineOf(tree, at)
    lines.push(line)
    const message = at[0] === "models"
      ? namingModelId(valueAtPath(raw, ["models"]), at.slice(1), issueMessage(issue.message))
      : issueMessage(issue.message)
    return withLine(`${where}${message}`, line)
  })
  return yield* parseFailure(path, detail.join("; "), lines[0])
})

/**
 * Parses and checks one config file's text. `path` must be absolute: it names the file in errors and
 * anchors registry paths. Parse and schema errors (which leave nothing to use) fail; a file that
 * decodes is returned with its rule violations. Errors carry the YAML line; the line's text is never
 * quoted (it may hold a key).
 */
export const checkConfigText = Effect.fn("config.checkConfigText")(function*(path: string, text: string) {
  const parsed = parseYamlTree(text)
  if (!parsed.ok) return yield* parseFailure(path, parsed.message, parsed.line)
  const tree = parsed.tree
  const raw = yield* Effect.try({
    try: () => tree.toJS(tree.root, 1000),
    catch: (e) => parseFailure(path, firstLine(e instanceof Error ? e.message : String(e)))
  })
  // A top-level list would otherwise decode as an object with no known keys and pass unnoticed.
  if (raw !== null && raw !== undefined && (typeof raw !== "object" || Array.isArray(raw))) {
    const start = tree.root?.range?.[0]
    const line = start === undefined ? undefined : tree.line(start)
    return yield* parseFailure(
      path,
      withLine(`a configuration file must be a YAML mapping, got ${describeYamlValue(raw)}`, line),
      line
    )
  }
  // An empty file (or one holding only comments) is an empty config.
  const config = yield* decodeBySchema(path, tree, raw ?? {})
  const problems = semanticProblems(config)
  const lines = problems.map((p) => lineOf(tree, p.path))
  const invalid = problems.length === 0
    ? undefined
    : invalidConfig(path, problems.map((p, i) => withLine(p.message, lines[i])).join("; "), lines[0])
  return { config: resolveRegistryPaths(config, nodePath.dirname(path)), invalid } satisfies CheckedConfig
})

/** `checkConfigText`, failing on a rule violation too. */
export const parseConfigText = (path: string, text: string): Effect.Effect<ConfigFile, ConfigError> =>
  checkConfigText(path, text).pipe(
    Effect.flatMap(({ config, invalid }) => (invalid === undefined ? Effect.succeed(config) : Effect.fail(invalid)))
  )

const readConfigFile = Effect.fn("config.readConfigFile")(function*(path: string, waitForWriter: boolean) {
  const loader = yield* FileLoader
  const text = yield* loader.readText(path, { waitForWriter }).pipe(
    Effect.mapError((e) =>
      new ConfigError({ reason: { _tag: "ReadFailed", path, detail: e.detail } })
    )
  )
  return yield* checkConfigText(path, text)
})

// ---------------------------------------------------------------------------------------------------
// Merging

const mergeDefaults = (lower: DefaultSettings | undefined, upper: DefaultSettings | undefined) =>
  lower === undefined ? upper : upper === undefined ? lower : { ...lower, ...upper }

const mergeMaps = <V>(
  lower: Readonly<Record<string, V>> | undefined,
  upper: Readonly<Record<string, V>> | undefined
): Record<string, V> | undefined => lower === undefined && upper === undefined ? undefined : { ...lower, ...upper }

/** The maps of named definitions a config file holds. */
type Registry = "models" | "mcp_servers" | "skills" | "agents" | "prompts" | "workflows" | "tools"

/**
 * `upper` (project) over `lower` (global): registries key by key, `default` field by field,
 * `base_url` upper else lower, `api_key`/`api_key_cmd` as one pair from whichever file sets either,
 * `tool_policy` lists concatenated (a global deny stays a floor), `jev` upper else lower.
 */
export const mergeConfigs = (lower: ConfigFile, upper: ConfigFile): ConfigFile => {
  const keyLayer = upper.api_key !== undefined || upper.api_key_cmd !== undefined ? upper : lower
  const out: { -readonly [K in keyof ConfigFile]: ConfigFile[K] } = {}
  const baseUrl = upper.base_url ?? lower.base_url
  if (baseUrl !== undefined) out.base_url = baseUrl
  if (keyLayer.api_key !== undefined) out.api_key = keyLayer.api_key
  if (keyLayer.api_key_cmd !== undefined) out.api_key_cmd = keyLayer.api_key_cmd
  const defaults = mergeDefaults(lower.default, upper.default)
  if (defaults !== undefined) out.default = defaults
  const registry = <K extends Registry>(key: K) => {
    const merged = mergeMaps<unknown>(lower[key], upper[key])
    // The same map type on both sides, so the merge is one too.
    if (merged !== undefined) out[key] = merged as ConfigFile[K]
  }
  for (const key of ["models", "mcp_servers", "skills", "agents", "prompts", "workflows"] as const) registry(key)
  if (lower.tool_policy !== undefined || upper.tool_policy !== undefined) {
    out.tool_policy = {
      allow: [...(lower.tool_policy?.allow ?? []), ...(upper.tool_policy?.allow ?? [])],
      deny: [...(lower.tool_policy?.deny ?? []), ...(upper.tool_policy?.deny ?? [])]
    }
  }
  registry("tools")
  const jev = upper.jev ?? lower.jev
  if (jev !== undefined) out.jev = jev
  return out
}

// ---------------------------------------------------------------------------------------------------
// Loading

const isAbsent = (path: string) =>
  FileLoader.use((files) => files.stat(path)).pipe(
    Effect.as(false),
    Effect.catch((e) => Effect.succeed(errnoOf(e.os) === "ENOENT"))
  )

/** Every `api_key_cmd` a config file names, as GlobalKeyCmds tells them apart. */
const keyCmdsOf = (config: ConfigFile): Array<string> =>
  [config.api_key_cmd, ...Object.values(config.models ?? {}).flat().map((d) => d.provider.api_key_cmd)]
    .flatMap((spec) => (spec === undefined ? [] : [JSON.stringify(spec)]))

/**
 * `.env` first (unless `noEnv`), so every later `${VAR}` sees it; then the files: none
 * (`noConfig`), exactly `configPath`, or the global file under the first project file found from
 * `cwd` upward. The global file is the user's, not the checkout's: it is found, and its `api_key_cmd`s
 * run, with the environment lait started with.
 */
export const loadConfig = Effect.fn("config.loadConfig")(function*(options: LoadOptions) {
  const env = options.env ?? process.env
  const startEnv: Env = { ...env }
  const cwd = nodePath.resolve(options.cwd)
  const waitForWriter = options.waitForWriter ?? false
  const setByDotenv = options.noEnv ? [] : yield* loadDotenv({ cwd, env, waitForWriter })
  const loaded = yield* loadFiles(options, env, startEnv, cwd, waitForWriter)
  const warning = dotenvBaseUrlWarning(cwd, setByDotenv, loaded.config, env)
  if (warning !== undefined) yield* Console.error(warning)
  return loaded
})

const loadFiles = Effect.fn("config.loadFiles")(
  function*(options: LoadOptions, env: Env, startEnv: Env, cwd: string, waitForWriter: boolean) {
    if (options.noConfig) {
      const none: LoadedConfig = { config: {}, files: [], env, cwd, noConfig: true }
      return none
    }
    const paths: Array<string> = []
    let globalPath: string | undefined
    if (options.configPath !== undefined) {
      paths.push(nodePath.resolve(cwd, options.configPath))
    } else {
      globalPath = globalConfigPath(startEnv)
      if (globalPath !== undefined && (yield* isAbsent(globalPath))) globalPath = undefined
      if (globalPath !== undefined) paths.push(globalPath)
      const projectPath = yield* findProjectConfig(cwd)
      if (projectPath !== undefined) paths.push(projectPath)
    }
    const layers: Array<ConfigFile> = []
    const invalid: Array<ConfigError> = []
    const globalCommands: Array<string> = []
    for (const path of paths) {
      const checked = yield* readConfigFile(path, waitForWriter)
      if (checked.invalid !== undefined) {
        if (options.keepInvalid !== true) return yield* checked.invalid
        invalid.push(checked.invalid)
      }
      layers.push(checked.config)
      if (path === globalPath) globalCommands.push(...keyCmdsOf(checked.config))
    }
    // An explicit file is used as written; searched files merge over an empty config.
    const config = options.configPath !== undefined ? layers[0]! : layers.reduce<ConfigFile>(mergeConfigs, {})
    return {
      config,
      files: paths,
      env,
      cwd,
      origins: originsOf(paths, layers),
      ...(options.keepInvalid === true ? { invalid } : {}),
      ...(globalCommands.length === 0 ? {} : { globalKeyCmds: { commands: new Set(globalCommands), env: startEnv } })
    } satisfies LoadedConfig
  }
)
