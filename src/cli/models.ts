// `lait models [--remote] [--json] [--base-url URL] [--api-key KEY] [--timeout SECONDS]`: the model
// aliases as requests resolve them, or (--remote) what each server lists (src/doctor/models.ts).
import { Effect, Option } from "effect"
import { Command, Flag } from "effect/cli"
import { switchFlag, valueFlag } from "./flags/make.ts"
import { LaitConfig } from "../config/LaitConfig.ts"
import { ArgumentError } from "../core/usageErrors.ts"
import { ModelHttp } from "../model/ModelHttp.ts"
import { configLayer } from "./config.ts"
import { printLine } from "./output.ts"

const DEFAULT_TIMEOUT_SECONDS = 10

export const timeoutFlag = Flag.Int("timeout").pipe(
  Flag.withMetavar("SECONDS"),
  Flag.withDescription(`How long one server, MCP server or api_key_cmd may take (default ${DEFAULT_TIMEOUT_SECONDS})`),
  Flag.optional
)

/** `--timeout` in milliseconds, checked: 1 s to an hour. */
export const checkTimeout = (flag: Option.Option<number>) => {
  const seconds = Option.getOrElse(flag, () => DEFAULT_TIMEOUT_SECONDS)
  return seconds >= 1 && seconds <= 3600
    ? Effect.succeed(seconds * 1000)
    : Effect.fail(
      new ArgumentError({
        reason: { _tag: "InvalidValue", flag: "--timeout <SECONDS>", value: String(seconds), expected: "1 to 3600" }
      })
    )
}

export const modelsCommand = Command.make(
  "models",
  {
    remote: switchFlag(
      "remote", "Ask each configured server's GET /models (with its key) instead of listing the aliases"
    ),
    json: switchFlag("json", "Print JSON"),
    baseUrl: valueFlag(
      "base-url", "URL", "Use this server (overrides OPENAI_BASE_URL and the config); with --remote, list only it"
    ),
    apiKey: Flag.Redacted("api-key").pipe(
      Flag.withMetavar("KEY"),
      Flag.withDescription("Use this API key (overrides OPENAI_API_KEY and the config)"),
      Flag.optional
    ),
    timeout: timeoutFlag
  },
  Effect.fn("cli.models")(function*({ remote, json, baseUrl, apiKey, timeout }) {
    const { config, env, cwd } = yield* LaitConfig
    const models = yield* Effect.promise(() => import("../doctor/models.ts"))
    const ctx = {
      config,
      env,
      cwd,
      overrides: { baseUrl: Option.getOrUndefined(baseUrl), apiKey: Option.getOrUndefined(apiKey) },
      timeoutMillis: yield* checkTimeout(timeout)
    }
    if (!remote) {
      const text = yield* models.listLocal(ctx, json)
      if (text !== undefined) yield* printLine(text)
      return
    }
    const { stdout, failure } = yield* models.listRemote(ctx, json)
    if (stdout !== "") yield* printLine(stdout)
    if (failure !== undefined) return yield* failure
  })
).pipe(
  Command.withDescription(
    "List the model aliases (primary and fallbacks, base URLs, masked keys, pricing); --remote: the servers' models"
  ),
  Command.provide(configLayer({ waitForWriter: true })),
  Command.provide(ModelHttp.layer)
)
