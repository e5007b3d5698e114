// Text from files and model answers on its way to a terminal: listings (`lait runs list`, `lait
// sessions list|show`, `lait cassettes ls`, the eval text report), warnings and the `lait: ` error line.
// A file name, a run id or an answer can hold control characters — ESC starts a sequence that moves
// the cursor, rewrites the title or hides what follows, CR overwrites the line — so those are shown as
// the JSON escapes `lait cassettes ls` has always printed (`\n`, `\u001b`), never sent raw. Error
// excerpts (src/core/excerpt.ts) escape with the same rule.

// C0 (U+0000–U+001F), DEL and C1 (U+0080–U+009F): what terminals act on; and the line and paragraph
// separators, which break a line in editors and logs. Printable text, whatever the script, is left alone.
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g
const CONTROL_BUT_LINES = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029]/g

/** Whether `text` holds a character escapeControls escapes. */
export const hasControls = (text: string): boolean => /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(text)

const escapeOne = (ch: string): string => {
  switch (ch) {
    case "\n":
      return "\\n"
    case "\r":
      return "\\r"
    case "\t":
      return "\\t"
    default:
      return `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`
  }
}

/**
 * `text` with every control character as `\uXXXX`. `keepLines`: newline and tab stay (multi-line
 * content such as an answer); everything else — CR included — is escaped.
 */
export const escapeControls = (text: string, options?: { readonly keepLines?: boolean }): string =>
  text.replace(options?.keepLines === true ? CONTROL_BUT_LINES : CONTROL, escapeOne)
