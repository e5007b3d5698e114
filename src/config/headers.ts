// The extra HTTP headers of a model endpoint (docs/config.md#provider-headers): a provider's
// `headers:` and the `--header 'Name: value'` flag of one-shot chat and `lait run`. Gateways route and
// authorise by header (Portkey's `x-portkey-provider`, Cloudflare's `cf-aig-authorization`, Azure's
// `api-key`), so every value is a secret of the run, masked like a key (src/config/secrets.ts).

/** An HTTP field name (RFC 9110 `token`). */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/

/**
 * Headers lait writes itself for the request to make sense: a value from the configuration would
 * either be overwritten by fetch or describe a body lait did not send.
 */
export const RESERVED_HEADERS: ReadonlySet<string> = new Set([
  "content-type",
  "content-length",
  "host",
  "transfer-encoding",
  "connection"
])

/**
 * Why `name: value` cannot be sent, or undefined when it can. Never quotes the value (it may be a
 * secret), nor a name that is not one (it may be a value written in the wrong place).
 */
export const headerProblem = (name: string, value: string): string | undefined => {
  if (!TOKEN.test(name)) return "the name is not a valid HTTP header name"
  if (RESERVED_HEADERS.has(name.toLowerCase())) return `'${name}' is set by lait itself`
  // fetch refuses these; a value must stay one header line.
  if (/[\r\n\0]/.test(value)) return `the value of '${name}' holds a line break or a NUL`
  try {
    new Headers([[name, value]])
  } catch {
    return `the value of '${name}' is not a valid HTTP header value`
  }
  return undefined
}

export type HeaderList = ReadonlyArray<readonly [name: string, value: string]>

/**
 * `--header` text (`Name: value`, as curl takes it) as a pair: the name before the first colon, the
 * value after it with surrounding blanks trimmed; else why not (the text may hold a secret, so the
 * reason never quotes it).
 */
export const parseHeaderFlag = (
  text: string
): { readonly header: readonly [string, string] } | { readonly problem: string } => {
  const colon = text.indexOf(":")
  if (colon === -1) return { problem: "expected 'NAME: VALUE'" }
  const name = text.slice(0, colon).trim()
  const value = text.slice(colon + 1).trim()
  if (name === "") return { problem: "the name before ':' is empty" }
  const problem = headerProblem(name, value)
  return problem === undefined ? { header: [name, value] } : { problem }
}

/**
 * `base` with `extra` on top, names in lower case (HTTP names are case-insensitive; a later header
 * replaces an earlier one of the same name).
 */
export const mergeHeaders = (base: Readonly<Record<string, string>>, extra: HeaderList): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const [name, value] of [...Object.entries(base), ...extra]) out[name.toLowerCase()] = value
  return out
}
