// Text from outside lait quoted in a `lait:` error (a model's answer, a command's stderr, a
// collector's reply, a trace file's line, a template): the error stays one line, so the text is shown
// as an excerpt with its line breaks and other control characters escaped and its tail cut off with
// `…`. The error keeps the whole text (`wholeText`); `-v` prints it after the line (src/cli/runProcess.ts,
// docs/cli.md#errors-and-exit-codes).

import { escapeControls, hasControls } from "./terminalText.ts"

/** Characters of an excerpt before its `…`, unless a message asks for fewer. */
export const EXCERPT_CHARS = 200

/** The first `max` characters (code points, so a surrogate pair is never split) and whether that is all. */
const cut = (text: string, max: number): { readonly head: string; readonly whole: boolean } => {
  // Fast path: a text with no more UTF-16 units than `max` has no more code points either.
  if (text.length <= max) return { head: text, whole: true }
  const chars = [...text]
  return chars.length <= max ? { head: text, whole: true } : { head: chars.slice(0, max).join(""), whole: false }
}

/**
 * `text` on one line: `\n`, `\r`, `\t` and other control characters (ESC included, so a terminal is
 * never driven by what is quoted) escaped, cut after `max` characters with `…`. A backslash stays as
 * it is, so paths read naturally; quotedExcerpt is unambiguous.
 */
export const excerpt = (text: string, max: number = EXCERPT_CHARS): string => {
  const { head, whole } = cut(text, max)
  return `${escapeControls(head)}${whole ? "" : "…"}`
}

/** The excerpt as a JSON string (`"…"`, `\` and `"` escaped too), `…` after the closing quote when cut. */
export const quotedExcerpt = (text: string, max: number = EXCERPT_CHARS): string => {
  const { head, whole } = cut(text, max)
  return `${escapeControls(JSON.stringify(head))}${whole ? "" : "…"}`
}

/** Whether `excerpt(text, max)` shows less than the text itself (cut, or escaped). */
export const isAbridged = (text: string, max: number = EXCERPT_CHARS): boolean =>
  !cut(text, max).whole || hasControls(text)

/** What an error quotes only as an excerpt: `what` names it (`the model's answer`), `text` is all of it. */
export interface WholeText {
  readonly what: string
  readonly text: string
}

/** Where an error keeps the text it quotes (see WholeText); read by `wholeTextOf`. */
export const wholeText: unique symbol = Symbol.for("lait/core/wholeText")

/** The whole text an error (one link of a cause chain) quotes as an excerpt, if it is worth showing. */
export const wholeTextOf = (error: unknown): WholeText | undefined => {
  if (typeof error !== "object" || error === null || !(wholeText in error)) return undefined
  const whole = (error as { readonly [wholeText]: WholeText | undefined })[wholeText]
  return whole !== undefined && whole.text.length > 0 ? whole : undefined
}
