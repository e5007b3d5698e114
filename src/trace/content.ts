// Secrets in a trace file. A trace may hold what the model saw and said (`--trace-content`) and the
// text of errors, so everything `lait config show` masks, every API key lait knows, and every
// credential in a URL is masked in every string of every event before the file is written, in
// every spelling the logs mask (raw, JSON-escaped, percent- or base64-encoded: src/core/secrets.ts).
import { DUMMY_API_KEY } from "../config/endpoints.ts"
import type { Json } from "../core/json.ts"
import { knownSecrets } from "../core/redaction.ts"
import { redactSecrets } from "../core/secrets.ts"
import type { RecordedEvent } from "./RunTracer.ts"

export { configSecrets } from "../config/secrets.ts"

const redactValue = (value: Json, mask: (text: string) => string): Json => {
  if (typeof value === "string") return mask(value)
  if (Array.isArray(value)) return value.map((v) => redactValue(v, mask))
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [mask(k), redactValue(v, mask)]))
  }
  return value
}

/** The events with every secret masked in their labels and attribute strings. */
export const redactEvents = (
  events: ReadonlyArray<RecordedEvent>,
  secrets: Iterable<string>
): ReadonlyArray<RecordedEvent> => {
  // The run's own (src/core/redaction.ts) and the caller's.
  const list = [...new Set([...knownSecrets(), ...secrets])]
  if (list.length === 0) return events
  // The dummy key sent to local servers is no secret: masking it would hide model names and URLs.
  const mask = (text: string) => redactSecrets(text, list, [DUMMY_API_KEY])
  return events.map((e) => ({
    ...e,
    label: mask(e.label),
    attributes: redactValue(e.attributes as Json, mask) as Readonly<Record<string, Json>>
  }))
}
