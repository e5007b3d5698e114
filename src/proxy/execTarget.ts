// What an `exec:` target is (docs/apps.md#exec-targets), apart from running it (./exec.ts): read by the
// test-file and eval-file loaders, which must not load the proxy to parse a file.

export interface ExecTarget {
  readonly argv: readonly [string, ...Array<string>]
  /** `stdin` (default): the input is written to stdin; `arg`: appended as the last argument. */
  readonly inputMode: "stdin" | "arg"
  /** Added to (and over) lait's environment; the OPENAI_* variables of the proxy win over both. */
  readonly env: Readonly<Record<string, string>>
  readonly timeoutSeconds: number
}

/** A default long enough for an app that asks a model several times, short of hanging a suite. */
export const DEFAULT_EXEC_TIMEOUT_SECONDS = 300

/**
 * A command line split into words as a POSIX shell would, without expanding anything: blanks
 * separate words; '...' keeps everything; "..." keeps everything but `\"` and `\\`; a backslash
 * outside quotes keeps the next character. Undefined for an unterminated quote.
 */
export const splitCommandLine = (text: string): Array<string> | undefined => {
  const words: Array<string> = []
  let word: string | undefined
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!
    if (c === " " || c === "\t" || c === "\n") {
      if (word !== undefined) words.push(word)
      word = undefined
    } else if (c === "'") {
      const end = text.indexOf("'", i + 1)
      if (end === -1) return undefined
      word = (word ?? "") + text.slice(i + 1, end)
      i = end
    } else if (c === '"') {
      let j = i + 1
      let part = ""
      while (j < text.length && text[j] !== '"') {
        if (text[j] === "\\" && (text[j + 1] === '"' || text[j + 1] === "\\")) j++
        part += text[j]
        j++
      }
      if (j >= text.length) return undefined
      word = (word ?? "") + part
      i = j
    } else if (c === "\\" && i + 1 < text.length) {
      word = (word ?? "") + text[++i]
    } else {
      word = (word ?? "") + c
    }
  }
  if (word !== undefined) words.push(word)
  return words
}


/** An `http:` target (docs/apps.md#http-targets): a running service asked once per input. */
export interface HttpTarget {
  /** Templates over `{{input}}` and `{{vars.x}}`. */
  readonly url: string
  readonly method: "GET" | "POST" | "PUT" | "PATCH"
  readonly headers: Readonly<Record<string, string>>
  /** Text (a template) or any JSON value whose strings are templates; undefined: no body. */
  readonly body: unknown
  /** Picks the output from the JSON answer; undefined: the answer's text. */
  readonly outputJq: string | undefined
  readonly timeoutSeconds: number
}

/**
 * `exec:` with its options as an ExecTarget (undefined without `exec:`), or what is wrong with them:
 * the options without `exec:`, a command line that does not split.
 */
export const execTarget = (
  value: {
    readonly exec?: string | ReadonlyArray<string>
    readonly input_mode?: "stdin" | "arg"
    readonly env?: Readonly<Record<string, string>> | null
    readonly timeout?: number
  }
): ExecTarget | undefined | string => {
  if (value.exec === undefined) {
    const stray = (["input_mode", "env", "timeout"] as const).find((key) => value[key] !== undefined)
    return stray === undefined ? undefined : `'${stray}' needs 'exec'`
  }
  const argv = typeof value.exec === "string" ? splitCommandLine(value.exec) : [...value.exec]
  if (argv === undefined) return "exec: the command line has an unterminated quote"
  const [program, ...args] = argv
  if (program === undefined || program === "") return "exec: the command line names no program"
  return {
    argv: [program, ...args],
    inputMode: value.input_mode ?? "stdin",
    env: value.env ?? {},
    timeoutSeconds: value.timeout ?? DEFAULT_EXEC_TIMEOUT_SECONDS
  }
}

/** An `http:` mapping as an HttpTarget. */
export const httpTarget = (
  http: {
    readonly url: string
    readonly method?: HttpTarget["method"]
    readonly headers?: Readonly<Record<string, string>> | null
    readonly body?: unknown
  },
  outputJq: string | undefined,
  timeout: number | undefined
): HttpTarget => ({
  url: http.url,
  method: http.method ?? (http.body === undefined ? "GET" : "POST"),
  headers: http.headers ?? {},
  body: http.body,
  outputJq,
  timeoutSeconds: timeout ?? DEFAULT_EXEC_TIMEOUT_SECONDS
})

