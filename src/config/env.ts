// Environment handling shared by config, workflows and tools: `${VAR}` expansion and `.env` parsing
// (loading the file is src/config/dotenv.ts).
// Both return tagged errors instead of throwing, and neither ever puts a variable's *value* in a message
// (values are often API keys).
import { Effect, Result } from "effect"
import { ConfigError } from "./configErrors.ts"
import { REDACTED } from "../core/secrets.ts"

/**
 * The environment lait reads: the process's in production (src/config/environment.ts, handed down by
 * the command), a plain object in tests. Always passed: core imports nothing from config.
 */
export type Env = Record<string, string | undefined>

export interface ExpandOptions {
  /**
   * The value is a secret (an api_key): the two error messages that quote the whole value show
   * `<redacted>` instead, so a typo in a key never prints the key.
   */
  readonly secret?: boolean
}

const NAME = /^[A-Za-z0-9_]+$/

/**
 * Replaces every `${NAME}` in `value` with the variable's value. There is no escape syntax and a bare
 * `$X` stays literal. A variable set to the empty string is accepted; an unset one is an error.
 */
export const expandVarsResult = (
  value: string,
  env: Env,
  options?: ExpandOptions
): Result.Result<string, ConfigError> => {
  const quoted = options?.secret === true ? `"${REDACTED}"` : JSON.stringify(value)
  let out = ""
  let rest = value
  while (true) {
    const start = rest.indexOf("${")
    if (start === -1) break
    out += rest.slice(0, start)
    const afterBrace = rest.slice(start + 2)
    const end = afterBrace.indexOf("}")
    if (end === -1) {
      return Result.fail(new ConfigError({ reason: { _tag: "UnterminatedPlaceholder", quoted } }))
    }
    const name = afterBrace.slice(0, end)
    if (!NAME.test(name)) {
      return Result.fail(new ConfigError({ reason: { _tag: "BadPlaceholder", name, quoted } }))
    }
    const resolved = env[name]
    if (resolved === undefined) {
      return Result.fail(new ConfigError({ reason: { _tag: "UnsetVariable", name } }))
    }
    out += resolved
    rest = afterBrace.slice(end + 1)
  }
  return Result.succeed(out + rest)
}

/** `expandVarsResult` as an Effect, for use inside `Effect.gen`. */
export const expandVars = (value: string, env: Env, options?: ExpandOptions) =>
  Effect.fromResult(expandVarsResult(value, env, options))

/** Expands every element; the first failure wins. */
export const expandList = (values: ReadonlyArray<string>, env: Env) =>
  Effect.forEach(values, (v) => expandVars(v, env))

/** Expands every value (keys are left alone); the first failure wins. */
export const expandMap = (values: Readonly<Record<string, string>>, env: Env) =>
  Effect.map(
    Effect.forEach(Object.entries(values), ([k, v]) => Effect.map(expandVars(v, env), (x) => [k, x] as const)),
    (entries) => Object.fromEntries(entries) as Record<string, string>
  )

// ---------------------------------------------------------------------------------------------------
// .env

export const DOTENV_FILE = ".env"

const KEY = /^[A-Za-z_][A-Za-z0-9_]*$/

const ESCAPES: Record<string, string> = {
  n: "\n",
  r: "\r",
  t: "\t",
  "\\": "\\",
  "\"": "\"",
  "'": "'",
  $: "$",
  "0": "\0"
}

/** Parses one value (the text after `=`); returns the value or a reason that names no content. */
const parseValue = (raw: string): Result.Result<string, string> => {
  const text = raw.trimStart()
  const afterClose = (remainder: string): Result.Result<void, string> => {
    const tail = remainder.trimStart()
    return tail === "" || tail.startsWith("#")
      ? Result.succeed(undefined)
      : Result.fail("unexpected text after the closing quote")
  }
  if (text.startsWith("'")) {
    const close = text.indexOf("'", 1)
    if (close === -1) return Result.fail("unterminated single-quoted value (multi-line values are not supported)")
    const tail = afterClose(text.slice(close + 1))
    return Result.isFailure(tail) ? Result.fail(tail.failure) : Result.succeed(text.slice(1, close))
  }
  if (text.startsWith("\"")) {
    let out = ""
    for (let i = 1; i < text.length; i++) {
      const c = text[i]!
      if (c === "\"") {
        const tail = afterClose(text.slice(i + 1))
        return Result.isFailure(tail) ? Result.fail(tail.failure) : Result.succeed(out)
      }
      if (c === "\\") {
        const next = text[i + 1]
        if (next === undefined) break
        const replacement = ESCAPES[next]
        if (replacement === undefined) {
          return Result.fail(`unsupported escape sequence '\\${next}' in a double-quoted value`)
        }
        out += replacement
        i++
        continue
      }
      out += c
    }
    return Result.fail("unterminated double-quoted value (multi-line values are not supported)")
  }
  // A bare value ends at a ` #` comment; a `#` glued to the value (`a#b`) is part of it.
  const comment = text.search(/[ \t]#/)
  return Result.succeed((comment === -1 ? text : text.slice(0, comment)).trimEnd())
}

/**
 * Parses `.env` text into ordered `[key, value]` pairs. Errors name the 1-based line number and never
 * the line's content (it may hold a secret).
 */
export const parseDotenv = (
  text: string,
  file: string = DOTENV_FILE
): Result.Result<ReadonlyArray<readonly [string, string]>, ConfigError> => {
  const pairs: Array<readonly [string, string]> = []
  const lines = text.split("\n")
  for (let index = 0; index < lines.length; index++) {
    const fail = (reason: string) =>
      Result.fail(new ConfigError({ reason: { _tag: "DotenvSyntax", file, line: index + 1, detail: reason } }))
    let line = lines[index]!.replace(/\r$/, "").trim()
    if (index === 0) line = line.replace(/^\uFEFF/, "")
    if (line === "" || line.startsWith("#")) continue
    const exported = /^export[ \t]+/.exec(line)
    if (exported !== null) line = line.slice(exported[0].length)
    const eq = line.indexOf("=")
    if (eq === -1) return fail("expected KEY=VALUE")
    const key = line.slice(0, eq).trim()
    if (key === "") return fail("expected KEY=VALUE")
    if (!KEY.test(key)) {
      return fail("invalid variable name (must be letters, digits and '_', not starting with a digit)")
    }
    const value = parseValue(line.slice(eq + 1))
    if (Result.isFailure(value)) return fail(value.failure)
    pairs.push([key, value.success])
  }
  return Result.succeed(pairs)
}
