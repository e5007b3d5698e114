// Loading `<cwd>/.env` into the environment (the format is parsed by ./env.ts). Values are
// never put in a message: they are often API keys.
import { Console, Effect } from "effect"
import * as nodePath from "node:path"
import { DOTENV_FILE, type Env, parseDotenv } from "./env.ts"
import { FileLoader } from "../platform/FileLoader.ts"
import { refusedDotenvVariable, refusedDotenvWarning } from "./dotenvRisk.ts"

export interface DotenvOptions {
  readonly cwd: string
  /** Filled in place (only keys that are unset). Defaults to `process.env`. */
  readonly env?: Env
  readonly waitForWriter?: boolean
}

/**
 * Loads `<cwd>/.env` into `env`, setting only variables that are not already set (a variable set to
 * the empty string counts as set). A missing file is fine. A variable a `.env` may not set (see
 * ./dotenvRisk.ts) is left alone with a `warning:`, set already or not. Returns the names it set.
 */
export const loadDotenv = Effect.fn("env.loadDotenv")(function*(options: DotenvOptions) {
  const env = options.env ?? process.env
  const path = nodePath.join(options.cwd, DOTENV_FILE)
  // Absence is the common case and not an error; anything else (a directory, no permission, a FIFO
  // without writer) is reported by FileLoader.
  const loader = yield* FileLoader
  const present = yield* loader.stat(path).pipe(
    Effect.as(true),
    Effect.catch((e) => Effect.succeed(e.reason._tag !== "NotFound"))
  )
  if (!present) return [] as ReadonlyArray<string>
  const text = yield* loader.readText(path, { waitForWriter: options.waitForWriter ?? false })
  const pairs = yield* Effect.fromResult(parseDotenv(text))
  const set: Array<string> = []
  for (const [key, value] of pairs) {
    const controls = refusedDotenvVariable(key)
    if (controls !== undefined) {
      yield* Console.error(refusedDotenvWarning(path, key, controls))
    } else if (env[key] === undefined) {
      env[key] = value
      set.push(key)
    }
  }
  return set as ReadonlyArray<string>
})
