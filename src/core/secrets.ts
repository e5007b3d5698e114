// Finding and masking an API key in text that lait is about to print or store. A server that echoes
// the key may do so inside JSON, where a key holding `"`, `\` or `/` appears escaped (`\"`, `\\`, `\/`,
// or `\u0022`); inside a URL or a form, percent-encoded (`%2F`, either hex case, `+` for a space); or
// base64-encoded, e.g. a Basic authorization header repeated back, where the key sits at any byte
// offset of a larger blob. Every one of those spellings counts.

export const REDACTED = "<redacted>"

/** Keys shorter than this are not searched for: masking every "abc" in a body helps no one. */
const MIN_SECRET_LENGTH = 4

/** Shorter keys are not searched for base64-encoded: their encodings are too short to be telling. */
const MIN_BASE64_SECRET_LENGTH = 8

/** The ways JSON serializers write the key inside a string (the raw text is one of the plain forms). */
const jsonSpellings = (secret: string): ReadonlyArray<string> => {
  const json = JSON.stringify(secret).slice(1, -1)
  return [...new Set([json, json.replaceAll("/", "\\/")])].filter((s) => s !== secret)
}

/**
 * The base64 characters that depend only on the key's bytes when it starts `shift` bytes into a
 * larger encoded blob (0, 1 or 2: every alignment), in both alphabets.
 */
const base64Cores = (secret: string): ReadonlyArray<string> => {
  if (secret.length < MIN_BASE64_SECRET_LENGTH) return []
  const bytes = Buffer.from(secret, "utf8")
  const cores = new Set<string>()
  for (const shift of [0, 1, 2]) {
    for (const alphabet of ["base64", "base64url"] as const) {
      const encoded = Buffer.concat([Buffer.alloc(shift), bytes]).toString(alphabet)
      cores.add(encoded.slice(Math.ceil((8 * shift) / 6), Math.floor((8 * (shift + bytes.length)) / 6)))
    }
  }
  return [...cores]
}

const UNRESERVED = /^[A-Za-z0-9\-._~]$/
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
const hexDigit = (d: string) => (/[a-f]/.test(d) ? `[${d}${d.toUpperCase()}]` : d)

/**
 * The key raw or percent-encoded, character by character in any mix (servers differ in what they
 * encode); undefined when the key has nothing to encode, so its raw text is the only spelling.
 */
const percentPattern = (secret: string): RegExp | undefined => {
  const chars = [...secret]
  if (chars.every((c) => UNRESERVED.test(c))) return undefined
  const source = chars.map((c) => {
    if (UNRESERVED.test(c)) return escapeRegExp(c)
    const encoded = [...Buffer.from(c, "utf8")]
      .map((b) => `%${[...b.toString(16).padStart(2, "0")].map(hexDigit).join("")}`)
      .join("")
    return `(?:${escapeRegExp(c)}|${encoded}${c === " " ? "|\\+" : ""})`
  }).join("")
  return new RegExp(source, "g")
}

interface Forms {
  readonly json: ReadonlyArray<string>
  readonly percent: RegExp | undefined
  readonly base64: ReadonlyArray<string>
}

// The same keys are searched for in every text a run prints or stores: build their forms once.
const cached = new Map<string, Forms>()
const formsOf = (secret: string): Forms => {
  let forms = cached.get(secret)
  if (forms === undefined) {
    forms = { json: jsonSpellings(secret), percent: percentPattern(secret), base64: base64Cores(secret) }
    cached.set(secret, forms)
  }
  return forms
}

const replaceAll = (text: string, needle: string) => (text.includes(needle) ? text.split(needle).join(REDACTED) : text)

/** Masks the key as it appears in decoded text: raw, percent-encoded, base64-encoded. */
const redactPlain = (text: string, secret: string): string => {
  const forms = formsOf(secret)
  const unencoded = forms.percent === undefined ? replaceAll(text, secret) : text.replace(forms.percent, REDACTED)
  return forms.base64.reduce(replaceAll, unencoded)
}

/** Masks the key in decoded text, JSON-escaped spellings included (a body may quote escaped JSON). */
const redactText = (text: string, secret: string): string =>
  redactPlain(formsOf(secret).json.reduce(replaceAll, text), secret)

const redactJson = (value: unknown, secret: string): unknown => {
  if (typeof value === "string") {
    // A string may hold JSON text of its own (an OTLP attribute holding a trace's messages).
    const text = redactText(value, secret)
    return reserializedWithoutSecret(text, secret) ?? text
  }
  if (Array.isArray(value)) return value.map((v) => redactJson(v, secret))
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [redactText(k, secret), redactJson(v, secret)])
    )
  }
  return value
}

/**
 * JSON text whose decoded strings still hold the key (e.g. written with `\uXXXX` escapes), as the
 * compact JSON of the decoded value with the key masked; else undefined.
 */
const reserializedWithoutSecret = (text: string, secret: string): string | undefined => {
  const trimmed = text.trim()
  if (!trimmed.startsWith("{") && !trimmed.startsWith("[") && !trimmed.startsWith("\"")) return undefined
  // Without a backslash, JSON strings decode to their own text, which was searched already.
  if (!trimmed.includes("\\")) return undefined
  let parsed: unknown
  try {
    parsed = JSON.parse(trimmed)
  } catch {
    return undefined
  }
  const redacted = JSON.stringify(redactJson(parsed, secret))
  return redacted === JSON.stringify(parsed) ? undefined : redacted
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
  const replaced = redactText(text, secret)
  return reserializedWithoutSecret(replaced, secret) ?? replaced
}

/** Whether `text` holds `secret` in any spelling `redactSecret` masks. */
export const containsSecret = (
  text: string,
  secret: string | undefined,
  ignored: ReadonlyArray<string> = []
): boolean => searched(secret, ignored) && redactSecret(text, secret, ignored) !== text

/** `redactSecret` for several secrets; a longer one first, so a secret inside another is masked whole. */
export const redactSecrets = (
  text: string,
  secrets: ReadonlyArray<string | undefined>,
  ignored: ReadonlyArray<string> = []
): string =>
  secrets
    .filter((s): s is string => s !== undefined)
    .sort((a, b) => b.length - a.length)
    .reduce((out, secret) => redactSecret(out, secret, ignored), text)

/** Whether `text` holds any of `secrets` in any spelling. */
export const containsAnySecret = (
  text: string,
  secrets: ReadonlyArray<string | undefined>,
  ignored: ReadonlyArray<string> = []
): boolean => secrets.some((s) => containsSecret(text, s, ignored))

/**
 * The secrets of HTTP header values (`Authorization: Bearer sk-…`): each whole value, and its last
 * word when that is long enough to be a credential, since servers and proxies repeat either.
 */
export const headerSecrets = (values: ReadonlyArray<string>): ReadonlyArray<string> =>
  values.flatMap((value) => {
    const whole = value.trim()
    const credential = whole.split(/\s+/).at(-1) ?? ""
    return credential.length >= 8 && credential !== whole ? [whole, credential] : [whole]
  })

/** Keys shorter than this are shown as `<redacted>` alone: their last characters would be too much of them. */
const MIN_HINTED_KEY_LENGTH = 20

/**
 * A key as listings show it (`lait models`): its last four characters after `…`, enough to tell two
 * keys apart and never enough to use one; a short key is `<redacted>` outright.
 */
export const maskedKey = (key: string): string =>
  key.length >= MIN_HINTED_KEY_LENGTH ? `…${key.slice(-4)}` : REDACTED
