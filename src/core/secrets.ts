// Finding and masking an API key in text that lait is about to print or store. A server that echoes
// the key does so inside JSON, where a key holding `"`, `\` or `/` appears escaped (`\"`, `\\`, `\/`,
// or `\u0022`), so looking for the raw text alone is not enough: every JSON-escaped spelling counts.

export const REDACTED = "<redacted>"

/** Keys shorter than this are not searched for: masking every "abc" in a body helps no one. */
const MIN_SECRET_LENGTH = 4

/** The raw key and the ways JSON serializers write it inside a string. */
const spellings = (secret: string): ReadonlyArray<string> => {
  const json = JSON.stringify(secret).slice(1, -1)
  return [...new Set([secret, json, json.replaceAll("/", "\\/")])]
}

const hasSpelling = (text: string, secret: string) => spellings(secret).some((s) => text.includes(s))

const replaceSpellings = (text: string, secret: string) =>
  spellings(secret).reduce((out, s) => out.split(s).join(REDACTED), text)

const redactJson = (value: unknown, secret: string): unknown => {
  if (typeof value === "string") return value.split(secret).join(REDACTED)
  if (Array.isArray(value)) return value.map((v) => redactJson(v, secret))
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k.split(secret).join(REDACTED), redactJson(v, secret)])
    )
  }
  return value
}

/** JSON text whose decoded strings still hold the key (any escape spelling), decoded; else undefined. */
const parsedWithSecret = (text: string, secret: string): unknown => {
  const trimmed = text.trim()
  if (!trimmed.startsWith("{") && !trimmed.startsWith("[") && !trimmed.startsWith("\"")) return undefined
  try {
    const parsed: unknown = JSON.parse(trimmed)
    return JSON.stringify(parsed).includes(JSON.stringify(secret).slice(1, -1)) ? parsed : undefined
  } catch {
    return undefined
  }
}

const searched = (secret: string | undefined, ignored: ReadonlyArray<string>): secret is string =>
  secret !== undefined && secret.length >= MIN_SECRET_LENGTH && !ignored.includes(secret)

/**
 * `text` with every spelling of `secret` replaced by `<redacted>`. JSON text that still holds the key
 * after that (written with `\uXXXX` escapes) is re-serialized compactly with the key masked.
 * `ignored`: values that are not secrets (the dummy key sent to local servers).
 */
export const redactSecret = (text: string, secret: string | undefined, ignored: ReadonlyArray<string> = []): string => {
  if (!searched(secret, ignored)) return text
  const replaced = replaceSpellings(text, secret)
  const parsed = parsedWithSecret(replaced, secret)
  return parsed === undefined ? replaced : JSON.stringify(redactJson(parsed, secret))
}

/** Whether `text` holds `secret` in any spelling `redactSecret` masks. */
export const containsSecret = (text: string, secret: string | undefined, ignored: ReadonlyArray<string> = []): boolean =>
  searched(secret, ignored) && (hasSpelling(text, secret) || parsedWithSecret(text, secret) !== undefined)
