// `configLayer`: the one way commands load the config from the global flags (--config, --no-config,
// --no-env). Without effect/cli: the lean `lait run` path (src/cli/leanRun.ts) builds it too.
import { Effect, Layer } from "effect"
import { LaitConfig } from "../config/LaitConfig.ts"
import { globalOptions } from "./settings.ts"

/**
 * LaitConfig for this invocation. `waitForWriter`: commands that may take a while anyway wait
 * (cancellably) for a writer on a FIFO config, e.g. `--config <(decrypt lait.config.yml)`;
 * synchronous ones (lint, listings) fail at once instead.
 */
export const configLayer = (options?: { readonly waitForWriter?: boolean }) =>
  Layer.effectDiscard(
    Effect.flatMap(LaitConfig, ({ files }) =>
      Effect.logDebug(
        files.length === 0 ? "config: no file loaded" : `config: loaded ${files.map((f) => `'${f}'`).join(", ")}`
      ))
  ).pipe(
    Layer.provideMerge(
      LaitConfig.layerFrom(
        Effect.map(globalOptions, (g) => ({
          cwd: process.cwd(),
          configPath: g.configPath,
          noConfig: g.noConfig,
          noEnv: g.noEnv,
          waitForWriter: options?.waitForWriter ?? false
        })).pipe(Effect.tap((o) =>
          Effect.logDebug(
            `settings: cwd='${o.cwd}' config=${o.configPath === undefined ? "(search)" : `'${o.configPath}'`} ` +
              `no-config=${o.noConfig} no-env=${o.noEnv}`
          )
        ))
      )
    )
  )
