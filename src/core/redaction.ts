// The one redaction point of the process (docs/environment.md#secrets). Every secret the run comes to
// know is added here by whoever learns it (the loaded configuration and environment:
// src/config/secrets.ts; an `api_key_cmd` key once run; an endpoint's key when a request uses it; the
// OTLP exporter's headers), and every sink — stderr, `-v`/`-vv`, trace files, live OTLP, reports,
// sessions, history, checkpoints, `lait serve` answers — masks its text with `redact`, in
// every spelling src/core/secrets.ts knows. Process-wide on purpose: the sinks include plain writes
// (the logger, the error line at exit) that run outside any Effect context, and one process is one
// run (or one server) whose secrets only ever grow.
import type { Console } from "effect"
import { REDACTED, redactSecrets } from "./secrets.ts"

const known = new Set<string>()
// Longest first (what redactSecrets sorts by), kept so that each write does not sort again.
let ordered: ReadonlyArray<string> = []

/**
 * Values that cannot be credentials and whose masking would break the syntax of JSON text (a tool's
 * `env: {DEBUG: "true"}` must not turn `"passed":true` into `"passed":<redacted>`).
 */
const JSON_LITERAL = /^(?:true|false|null|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)$/

/** Adds secrets to mask from now on; empty values and JSON literals are not secrets. */
export const addSecrets = (values: Iterable<string | undefined>): void => {
  let added = false
  for (const value of values) {
    if (value === undefined || value.trim() === "" || JSON_LITERAL.test(value.trim()) || known.has(value)) continue
    known.add(value)
    added = true
  }
  if (added) ordered = [...known].sort((a, b) => b.length - a.length)
}

/**
 * Forgets every secret. For a run inside a test's process (src/cli/inProcess.ts), which starts, as a
 * new lait process does, knowing none.
 */
export const forgetSecrets = (): void => {
  known.clear()
  ordered = []
}

/** Every secret known so far. */
export const knownSecrets = (): ReadonlyArray<string> => ordered

/** `text` with every known secret, in every spelling, replaced by `<redacted>`. */
export const redact = (text: string): string => (ordered.length === 0 ? text : redactSecrets(text, ordered))

const MARKUP_ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&#39;" }
const escapeMarkup = (text: string) => text.replace(/[&<>"']/g, (c) => MARKUP_ESCAPES[c]!)

/**
 * `redact` for XML and HTML (JUnit and HTML reports): the secrets as the markup escapes them too, and
 * the mask itself escaped (`&lt;redacted&gt;`), so the document stays well-formed and shows `<redacted>`.
 */
export const redactMarkup = (text: string): string => {
  if (ordered.length === 0) return text
  const escaped = ordered.map(escapeMarkup).filter((s) => !known.has(s))
  return redactSecrets(text, [...ordered, ...escaped]).replaceAll(REDACTED, escapeMarkup(REDACTED))
}

const redactArgs = (args: ReadonlyArray<unknown>): Array<unknown> =>
  args.map((a) => (typeof a === "string" ? redact(a) : a))

/**
 * The Console every command runs with (src/cli/runProcess.ts): what `Console.error` and
 * `Console.warn` put on stderr goes through `redact` like every other diagnostic. stdout is not
 * masked here: a run's answer is the workflow's result, the user's (docs/environment.md#secrets);
 * what lait itself reports there (test and eval reports) is masked where it is made.
 */
export const redactingConsole = (console: Console.Console): Console.Console =>
  Object.assign(Object.create(console) as Console.Console, {
    error: (...args: ReadonlyArray<unknown>) => console.error(...redactArgs(args)),
    warn: (...args: ReadonlyArray<unknown>) => console.warn(...redactArgs(args))
  })
