// Base URLs may carry credentials: `https://user:password@host/...`, or a key in the query string
// (`?api-key=...`, Azure and other gateways). Every URL lait prints or stores goes through
// `displayUrl`; the values themselves are handed to the redactors by `urlCredentials`, so a server that
// echoes them is masked too. The URL actually requested keeps them (`joinUrl`).
import { REDACTED } from "./secrets.ts"

// The parts of a URL as written. Parsing by hand, not with `new URL`, keeps every other byte exactly
// as the user wrote it (no added `/`, no default port dropped, no re-encoding).
interface Parts {
  /** `https://`, or "" for text without a scheme. */
  readonly scheme: string
  /** Userinfo without its `@`; undefined when there is none. */
  readonly userinfo: string | undefined
  readonly host: string
  readonly path: string
  /** With its `?`, or "". */
  readonly query: string
  /** With its `#`, or "". */
  readonly fragment: string
}

const split = (url: string): Parts => {
  const scheme = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//.exec(url)?.[0] ?? ""
  const rest = url.slice(scheme.length)
  // The authority ends at the first `/`, `\` (a `/` to WHATWG for http and https), `?` or `#`; its last
  // `@` ends the userinfo, as the URL parser reads it.
  const authorityEnd = rest.search(/[/\\?#]/)
  const authority = authorityEnd === -1 ? rest : rest.slice(0, authorityEnd)
  const afterAuthority = authorityEnd === -1 ? "" : rest.slice(authorityEnd)
  const at = authority.lastIndexOf("@")
  const hashAt = afterAuthority.indexOf("#")
  const beforeFragment = hashAt === -1 ? afterAuthority : afterAuthority.slice(0, hashAt)
  const queryAt = beforeFragment.indexOf("?")
  return {
    scheme,
    userinfo: at === -1 ? undefined : authority.slice(0, at),
    host: authority.slice(at + 1),
    path: queryAt === -1 ? beforeFragment : beforeFragment.slice(0, queryAt),
    query: queryAt === -1 ? "" : beforeFragment.slice(queryAt),
    fragment: hashAt === -1 ? "" : afterAuthority.slice(hashAt)
  }
}

const decode = (text: string): string => {
  try {
    return decodeURIComponent(text.replaceAll("+", " "))
  } catch {
    return text
  }
}

/** Words that end the name of a parameter holding a credential (`api-key`, `x-amz-security-token`, `sig`). */
const CREDENTIAL_WORDS = new Set([
  "key",
  "apikey",
  "token",
  "secret",
  "password",
  "passwd",
  "pwd",
  "sig",
  "signature",
  "credential",
  "credentials",
  "auth",
  "authorization",
  "session"
])

/** `api-key`, `api_key`, `key`, `token`, `access_token`, `sig`, `signature`, `password`, ... (any case). */
export const isCredentialParam = (name: string): boolean => {
  const words = decode(name).toLowerCase().split(/[-_.\s]+/).filter((w) => w !== "")
  const last = words.at(-1)
  return last !== undefined && CREDENTIAL_WORDS.has(last)
}

interface Param {
  readonly name: string
  readonly value: string | undefined
}

/** `a=1&b` (a query or fragment without its leading `?`/`#`) as written. */
const params = (text: string): Array<Param> =>
  text.split("&").map((pair) => {
    const eq = pair.indexOf("=")
    return eq === -1 ? { name: pair, value: undefined } : { name: pair.slice(0, eq), value: pair.slice(eq + 1) }
  })

/** A query or fragment with the values of credential parameters replaced. */
const maskParams = (section: string): string => {
  if (section.length <= 1) return section
  const masked = params(section.slice(1)).map(({ name, value }) =>
    value !== undefined && value !== "" && isCredentialParam(name)
      ? `${name}=${REDACTED}`
      : value === undefined
      ? name
      : `${name}=${value}`
  )
  return `${section[0]}${masked.join("&")}`
}

/** The userinfo with its secret replaced: the password, or a lone user name (often a token itself). */
const maskUserinfo = (userinfo: string): string => {
  const colon = userinfo.indexOf(":")
  if (colon === -1) return userinfo === "" ? userinfo : REDACTED
  return colon === userinfo.length - 1 ? userinfo : `${userinfo.slice(0, colon)}:${REDACTED}`
}

/**
 * `url` as lait prints and stores it: the userinfo's password (or a lone user name) and the values of
 * credential-like query and fragment parameters become `<redacted>`; everything else is unchanged.
 */
export const displayUrl = (url: string): string => {
  const p = split(url)
  const userinfo = p.userinfo === undefined ? "" : `${maskUserinfo(p.userinfo)}@`
  return `${p.scheme}${userinfo}${p.host}${p.path}${maskParams(p.query)}${maskParams(p.fragment)}`
}

/**
 * The secrets `displayUrl` hides, as written and percent-decoded: what a server may echo back (in
 * either spelling) and must be redacted from its answers.
 */
export const urlCredentials = (url: string): ReadonlyArray<string> => {
  const p = split(url)
  const found: Array<string> = []
  if (p.userinfo !== undefined && p.userinfo !== "") {
    const colon = p.userinfo.indexOf(":")
    found.push(colon === -1 ? p.userinfo : p.userinfo.slice(colon + 1))
  }
  for (const section of [p.query, p.fragment]) {
    if (section.length <= 1) continue
    for (const { name, value } of params(section.slice(1))) {
      if (value !== undefined && value !== "" && isCredentialParam(name)) found.push(value)
    }
  }
  return [...new Set(found.filter((s) => s !== "").flatMap((s) => [s, decode(s)]))]
}

/**
 * `base` + `path` (`/chat/completions`), the path going before the base's query string:
 * `https://h/openai/v1?api-version=1` → `https://h/openai/v1/chat/completions?api-version=1`.
 * A fragment is never sent, so it is dropped.
 */
export const joinUrl = (base: string, path: string): string => {
  const p = split(base)
  const userinfo = p.userinfo === undefined ? "" : `${p.userinfo}@`
  return `${p.scheme}${userinfo}${p.host}${p.path.replace(/\/+$/, "")}${path}${p.query}`
}
