// The process environment, read here and nowhere else outside src/platform (docs/architecture.md).
// What a command reads from it is handed on as an `Env` (config loading fills one from `.env`; a run
// gets it through RunContext), so a test gives a plain object instead. The entry's fast path reads
// what it needs in src/main.ts itself: it may load nothing but its own few modules.
import type { Env } from "./env.ts"

/** The live environment: `.env` loading fills it in place (src/config/dotenv.ts). */
export const processEnv = (): Env => process.env

/** Coloured output is wanted unless NO_COLOR is set or TERM is `dumb` (no-color.org). */
export const colorAllowed = (env: Env = processEnv()): boolean =>
  env["NO_COLOR"] === undefined && env["TERM"] !== "dumb"

/** LAIT_LOG: the log level asked for by the environment (src/cli/logging.ts). */
export const logLevelSetting = (env: Env = processEnv()): string | undefined => env["LAIT_LOG"]
