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
