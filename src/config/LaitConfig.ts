// The loaded, merged configuration of this invocation, plus the endpoint/key resolution every model
// request goes through. Built once per command from the global flags (see src/cli/config.ts).
import { Context, Effect, Layer, LogLevel, Redacted } from "effect"
import * as nodePath from "node:path"
import { type Env, expandVars } from "./env.ts"
import { ConfigError } from "./configErrors.ts"
import type { ApiKeyCmdOptions } from "./apiKeyCmd.ts"
import { describeEndpointSources, type EndpointOverrides, type Endpoints, resolveEndpoints } from "./endpoints.ts"
import type { ConfigOrigins, LoadedConfig, LoadOptions } from "./load.ts"
import type { ConfigFile, ModelMap } from "./schema.ts"
import type { HeaderList } from "./headers.ts"
import { headerSecrets } from "../core/secrets.ts"

export interface LaitConfigOptions extends LoadOptions {
  /** api_key_cmd limits; tests shorten the timeout. */
  readonly apiKeyCmd?: ApiKeyCmdOptions
  /** `--header`: sent to the primary endpoint of every model this invocation resolves. */
  readonly headers?: HeaderList
}

export interface ResolveModelOptions {
  readonly workflowModels?: ModelMap | undefined
  readonly overrides?: EndpointOverrides | undefined
}

export interface LaitConfigService {
  /** Merged config, values unexpanded; registry paths absolute. */
  readonly config: ConfigFile
  /** Files merged, lowest precedence first (global, then project); empty when none was loaded. */
  readonly files: ReadonlyArray<string>
  /** The environment after `.env` (process.env in production). Read `${VAR}`s and OPENAI_* here. */
  readonly env: Env
  readonly cwd: string
  /** `--no-config`: no file was looked for. */
  readonly noConfig: boolean
  /** Endpoints for a model name (workflow alias > config alias > raw id), primary first. */
  readonly resolveEndpoints: (
    model: string,
    options?: ResolveModelOptions
  ) => Effect.Effect<Endpoints, ConfigError>
  /** `${VAR}` expansion against `env`. */
  readonly expand: (value: string) => Effect.Effect<string, ConfigError>
}

// Loaded on first use: the config schema is built when its module is evaluated (a few ms), and
// start-up must not pay that for commands that never read the config (--version, --help, schema, ...).
// Whatever the configuration and the environment hold is a secret of the run from here on
// (src/config/secrets.ts).
const loadConfig = (options: LaitConfigOptions) =>
  Effect.flatMap(Effect.promise(() => Promise.all([import("./load.ts"), import("./secrets.ts")])), ([load, secrets]) =>
    Effect.tap(load.loadConfig(options), (loaded) =>
      Effect.sync(() =>
        secrets.registerSecrets([
          ...secrets.configSecrets(loaded.config, loaded.env),
          ...headerSecrets((options.headers ?? []).map(([, value]) => value))
        ])
      )))

/**
 * `-v` says where each endpoint's base URL and key came from, once per distinct endpoint: models
 * are resolved for every step run, and the answer only changes with the workflow's own `models:`.
 */
const logSources = (seen: Set<string>, model: string, endpoints: Endpoints) =>
  Effect.flatMap(LogLevel.isEnabled("Debug"), (enabled) => {
    if (!enabled) return Effect.void
    const fresh = endpoints.map((e) => describeEndpointSources(model, e)).filter((line) => !seen.has(line))
    for (const line of fresh) seen.add(line)
    return Effect.forEach(fresh, (line) => Effect.logDebug(line), { discard: true })
  })

/** A config file as a message shows it: relative to the working directory when it is under it. */
const shownFile = (cwd: string, file: string) => {
  const relative = nodePath.relative(cwd, file)
  return relative === "" || relative.startsWith("..") || nodePath.isAbsolute(relative) ? file : relative
}

/** `loaded.origins` with each file as shown (the key's source named on a 401/403). */
const shownOrigins = (loaded: LoadedConfig): ConfigOrigins | undefined => {
  const origins = loaded.origins
  if (origins === undefined) return undefined
  const models = Object.fromEntries(Object.entries(origins.models).map(([k, f]) => [k, shownFile(loaded.cwd, f)]))
  return { models, ...(origins.apiKey === undefined ? {} : { apiKey: shownFile(loaded.cwd, origins.apiKey) }) }
}

const registerResolved = (env: Env, options: ResolveModelOptions | undefined) =>
  options?.workflowModels === undefined && options?.overrides?.apiKey === undefined
    ? Effect.void
    : Effect.map(Effect.promise(() => import("./secrets.ts")), (secrets) => {
      const key = options.overrides?.apiKey
      secrets.registerSecrets([
        ...secrets.modelMapSecrets(options.workflowModels, env),
        typeof key === "string" || key === undefined ? key : Redacted.value(key)
      ])
    })

const make = (loaded: LoadedConfig, apiKeyCmd?: ApiKeyCmdOptions, headers?: HeaderList): LaitConfigService => {
  const logged = new Set<string>()
  const origins = shownOrigins(loaded)
  return {
    config: loaded.config,
    files: loaded.files,
    env: loaded.env,
    cwd: loaded.cwd,
    noConfig: loaded.noConfig ?? false,
    resolveEndpoints: (model, options) =>
      resolveEndpoints(model, loaded.config, loaded.env, {
        workflowModels: options?.workflowModels,
        overrides: headers === undefined || headers.length === 0
          ? options?.overrides
          : { ...options?.overrides, headers: [...headers, ...(options?.overrides?.headers ?? [])] },
        apiKeyCmd: {
          cwd: loaded.cwd,
          ...apiKeyCmd,
          ...(loaded.globalKeyCmds === undefined ? {} : { global: loaded.globalKeyCmds })
        },
        origins
      }).pipe(
        // A workflow's own `models:` and `--api-key` are secrets of the run too.
        Effect.tap(() => registerResolved(loaded.env, options)),
        Effect.tap((endpoints) => logSources(logged, model, endpoints))
      ),
    expand: (value) => expandVars(value, loaded.env)
  }
}

export class LaitConfig extends Context.Service<LaitConfig, LaitConfigService>()("lait/config/LaitConfig") {
  /** Loads `.env` and the config files; needs FileLoader (from the app layer). */
  static readonly layer = (options: LaitConfigOptions) =>
    Layer.effect(
      LaitConfig,
      Effect.map(loadConfig(options), (loaded) => LaitConfig.of(make(loaded, options.apiKeyCmd, options.headers)))
    )

  /** Options computed by an effect (e.g. from the CLI's global flags). */
  static readonly layerFrom = <E, R>(options: Effect.Effect<LaitConfigOptions, E, R>) =>
    Layer.effect(
      LaitConfig,
      Effect.gen(function*() {
        const resolved = yield* options
        const loaded = yield* loadConfig(resolved)
        return LaitConfig.of(make(loaded, resolved.apiKeyCmd, resolved.headers))
      })
    )

  /** An in-memory config (no files, no `.env`), for other modules' tests. */
  static readonly layerTest = (
    config: ConfigFile,
    options?: { readonly env?: Env; readonly cwd?: string; readonly files?: ReadonlyArray<string> }
  ) =>
    Layer.succeed(
      LaitConfig,
      LaitConfig.of(
        make({ config, env: options?.env ?? {}, cwd: options?.cwd ?? process.cwd(), files: options?.files ?? [] })
      )
    )
}

/**
 * `model is required for <subject>; set <places>, or default.model in '<config file>'`. Without a
 * config file the message says where none was found instead of pointing at a file that does not
 * exist. `config` is undefined where no configuration is provided at all (library use).
 */
export const modelRequired = (
  subject: string,
  places: ReadonlyArray<string>,
  config: LaitConfigService | undefined
): ConfigError => {
  const required = (reason: { readonly places: ReadonlyArray<string>; readonly why?: string }) =>
    new ConfigError({ reason: { _tag: "ModelRequired", subject, ...reason } })
  if (config === undefined) return required({ places: [...places, "default.model in lait.config.yml"] })
  const file = config.files.at(-1)
  if (file !== undefined) return required({ places: [...places, `default.model in '${file}'`] })
  const why = config.noConfig
    ? "--no-config: no config file was read"
    : `no lait.config.yml found from '${config.cwd}' upward`
  return required({ places, why })
}
