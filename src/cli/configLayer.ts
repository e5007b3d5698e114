// `configLayer`: the one way commands load the config from the global flags (--config, --no-config,
// --no-env). Without effect/cli: the lean `lait run` path (src/cli/leanRun.ts) builds it too.
import { Effect, Layer } from "effect"
import { type HeaderList, parseHeaderFlag } from "../config/headers.ts"
import { LaitConfig } from "../config/LaitConfig.ts"
import { ArgumentError } from "../core/usageErrors.ts"
import { globalOptions } from "./settings.ts"

/** The `--header 'Name: value'` flags, checked: a malformed one is a usage error (exit 2). */
const parseHeaderFlags = (flags: ReadonlyArray<string>): Effect.Effect<HeaderList, ArgumentError> =>
  Effect.forEach(flags, (text) => {
    const parsed = parseHeaderFlag(text)
    return "header" in parsed
      ? Effect.succeed(parsed.header)
      : Effect.fail(new ArgumentError({ reason: { _tag: "BadHeaderFlag", problem: parsed.problem } }))
  })

/**
 * LaitConfig for this invocation. `waitForWriter`: commands that may take a while anyway wait
 * (cancellably) for a writer on a FIFO config, e.g. `--config <(decrypt lait.config.yml)`;
 * synchronous ones (lint, listings) fail at once instead.
 */
export const configLayer = (
  options?: {
    readonly waitForWriter?: boolean
    /** `--header` as given: sent to the primary endpoint of every model resolved. */
    readonly headers?: ReadonlyArray<string>
  }
) =>
  Layer.effectDiscard(
    Effect.flatMap(LaitConfig, ({ files }) =>
      Effect.logDebug(
        files.length === 0 ? "config: no file loaded" : `config: loaded ${files.map((f) => `'${f}'`).join(", ")}`
      ))
  ).pipe(
    Layer.provideMerge(
      LaitConfig.layerFrom(
        Effect.zipWith(globalOptions, parseHeaderFlags(options?.headers ?? []), (g, headers) => ({
          cwd: process.cwd(),
          configPath: g.configPath,
          noConfig: g.noConfig,
          noEnv: g.noEnv,
          waitForWriter: options?.waitForWriter ?? false,
          ...(headers.length === 0 ? {} : { headers })
        })).pipe(Effect.tap((o) =>
          Effect.logDebug(
            `settings: cwd='${o.cwd}' config=${o.configPath === undefined ? "(search)" : `'${o.configPath}'`} ` +
              `no-config=${o.noConfig} no-env=${o.noEnv}`
          )
        ))
      )
    )
  )
