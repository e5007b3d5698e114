// The `script` assertion (docs/testing.md#script): a command of the user's judges the output. It
// starts in the definition file's directory, without a shell, reads `{"output", "input", "vars",
// "case"}` as JSON on stdin and prints `{"pass": bool, "score": 0..1, "reason": "..."}` on stdout. A
// non-zero exit, a timeout or a verdict that is not that JSON is a failure that could not be checked
// (a `not:` around it does not pass): its stderr or the problem is the reason.
import { Duration, Effect, Schema } from "effect"
import { renderChain } from "../core/errors.ts"
import type { Json } from "../core/json.ts"
import { parseJsonText } from "../core/jsonDepth.ts"
import { runCommand } from "../platform/process.ts"
import type { ScriptAssertion } from "./assertions.ts"

export const DEFAULT_SCRIPT_TIMEOUT_SECONDS = 30

/**
 * A command line split into words as a POSIX shell would, without expansions: blanks separate words,
 * '…' keeps everything, "…" keeps everything but `\"`, `\\`, `\$` and `` \` ``, a backslash outside
 * quotes keeps the next character. A string is returned for an unterminated quote or escape.
 */
export const splitCommandLine = (line: string): ReadonlyArray<string> | string => {
  const words: Array<string> = []
  let word = ""
  let inWord = false
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!
    if (/\s/.test(ch)) {
      if (inWord) words.push(word)
      word = ""
      inWord = false
      continue
    }
    inWord = true
    if (ch === "'") {
      const end = line.indexOf("'", i + 1)
      if (end < 0) return "unterminated single quote"
      word += line.slice(i + 1, end)
      i = end
    } else if (ch === "\"") {
      for (i++;; i++) {
        if (i >= line.length) return "unterminated double quote"
        const c = line[i]!
        if (c === "\"") break
        if (c === "\\" && i + 1 < line.length && "\"\\$`".includes(line[i + 1]!)) word += line[++i]!
        else word += c
      }
    } else if (ch === "\\") {
      if (i + 1 >= line.length) return "a backslash at the end of the line"
      word += line[++i]!
    } else {
      word += ch
    }
  }
  if (inWord) words.push(word)
  return words
}

/** The argv of a `command:`: the list as given, or the words of the line (a string: why not). */
export const scriptArgv = (command: ScriptAssertion["command"]): ReadonlyArray<string> | string => {
  const argv = typeof command === "string" ? splitCommandLine(command) : command
  if (typeof argv === "string") return `command ${JSON.stringify(command)}: ${argv}`
  return argv.length === 0 || argv[0] === "" ? "the command is empty" : argv
}

const Verdict = Schema.Struct({
  pass: Schema.Boolean,
  score: Schema.optionalKey(Schema.NullOr(Schema.Finite.check(Schema.isBetween({ minimum: 0, maximum: 1 })))),
  reason: Schema.optionalKey(Schema.NullOr(Schema.String))
})
const decodeVerdict = Schema.decodeUnknownExit(Verdict)

export interface ScriptPayload {
  readonly output: string
  readonly input: Json
  readonly vars: Readonly<Record<string, Json>>
  readonly case: string
}

export type ScriptOutcome =
  | { readonly pass: boolean; readonly score: number | undefined; readonly reason: string | undefined }
  | { readonly broken: string }

export const runScript = (
  assertion: ScriptAssertion,
  payload: ScriptPayload,
  cwd: string | undefined
): Effect.Effect<ScriptOutcome> =>
  Effect.gen(function*() {
    const argv = scriptArgv(assertion.command)
    if (typeof argv === "string") return { broken: `script ${argv}` }
    const seconds = assertion.timeout ?? DEFAULT_SCRIPT_TIMEOUT_SECONDS
    const ran = yield* runCommand({
      argv,
      stdin: JSON.stringify(payload),
      // "" is the process's own directory (a definition file named without a directory).
      ...(cwd === undefined || cwd === "" ? {} : { cwd })
    }).pipe(
      Effect.timeoutOrElse({
        duration: Duration.seconds(seconds),
        orElse: () => Effect.fail(`timed out after ${seconds}s`)
      }),
      Effect.result
    )
    if (ran._tag === "Failure") {
      const why = typeof ran.failure === "string" ? ran.failure : renderChain(ran.failure)
      return { broken: `script failed: ${why}` }
    }
    let printed: unknown
    try {
      printed = parseJsonText(ran.success)
    } catch (e) {
      return { broken: `script printed no JSON verdict (${e instanceof Error ? e.message : e}): ${ran.success}` }
    }
    const verdict = decodeVerdict(printed)
    if (verdict._tag === "Failure") {
      return { broken: `script printed ${ran.success}, not {"pass": bool, "score": 0..1, "reason": "..."}` }
    }
    const { pass, score, reason } = verdict.value
    return { pass, score: score ?? undefined, reason: reason ?? undefined }
  })
