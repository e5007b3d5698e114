// Who may reach `lait serve --mcp --http` (docs/serve.md#who-may-connect) and `lait proxy`
// (docs/apps.md): the address it binds, the Host header (against DNS rebinding), the Origin header (a
// browser page of another site, as MCP's streamable HTTP transport requires servers to check) and the
// bearer token.
import { createHash, timingSafeEqual } from "node:crypto"

export interface HttpAddress {
  readonly host: string
  readonly port: number
}

/** `HOST:PORT`, `[IPv6]:PORT`, or a bare `PORT` (bound to 127.0.0.1); undefined when it is neither. */
export const parseHttpAddress = (text: string): HttpAddress | undefined => {
  const match = /^(?:(\[[0-9A-Fa-f:.]+\]|[^:[\]]*):)?(\d{1,5})$/.exec(text.trim())
  if (match === null) return undefined
  const port = Number(match[2])
  if (port > 65_535) return undefined
  const host = match[1] === undefined || match[1] === "" ? "127.0.0.1" : match[1].replace(/^\[(.*)\]$/, "$1")
  return { host, port }
}

/**
 * Whether a bind address (as `parseHttpAddress` gives it: no brackets) only listens on this machine:
 * `localhost`, 127.0.0.0/8 and ::1 (also as an IPv4-mapped address). `0.0.0.0`, `::` and every name or
 * address of an interface are not.
 */
export const isLoopbackHost = (host: string): boolean => {
  const h = host.toLowerCase().replace(/^\[(.*)\]$/, "$1")
  if (h === "localhost" || h === "::1" || /^(0{0,4}:){7}0{0,3}1$/.test(h)) return true
  const v4 = h.startsWith("::ffff:") ? h.slice("::ffff:".length) : h
  return /^127(\.\d{1,3}){3}$/.test(v4)
}

const LOOPBACK_NAMES = ["localhost", "127.0.0.1", "[::1]"]

/** Whether a request's Host header may reach the server (a DNS-rebinding page names its own host). */
export const hostAllowed = (header: string | undefined, allowed: ReadonlyArray<string>): boolean => {
  if (header === undefined || header === "") return false
  const host = header.toLowerCase()
  const name = host.startsWith("[") ? host.slice(0, host.indexOf("]") + 1) : host.split(":")[0]!
  if (LOOPBACK_NAMES.includes(name)) return true
  return allowed.some((entry) => {
    const wanted = entry.toLowerCase()
    return wanted === host || wanted === name
  })
}

/** `scheme://host[:port]` as browsers send it in Origin (lower case, no default port); undefined if not one. */
export const normalizeOrigin = (text: string): string | undefined => {
  let url: URL
  try {
    url = new URL(text.trim())
  } catch {
    return undefined
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return undefined
  if (url.pathname !== "/" || url.search !== "" || url.hash !== "" || url.username !== "") return undefined
  return url.origin.toLowerCase()
}

/**
 * Whether a request's Origin header may reach the server. No header: not a browser page's request,
 * allowed (the token, when set, still applies). With one: loopback origins (any scheme and port) when
 * the server is bound to loopback, and any origin of `--allow-origin`.
 */
export const originAllowed = (
  header: string | undefined,
  options: { readonly loopback: boolean; readonly allowed: ReadonlyArray<string> }
): boolean => {
  if (header === undefined) return true
  const origin = normalizeOrigin(header)
  if (origin === undefined) return false
  if (options.loopback && isLoopbackHost(new URL(origin).hostname)) return true
  return options.allowed.includes(origin)
}

const digest = (text: string) => createHash("sha256").update(text, "utf8").digest()

/**
 * A check of `Authorization: Bearer <token>`, comparing digests in constant time, so neither the
 * token's length nor how much of it a guess got right shows in how long the answer takes.
 */
export const bearerCheck = (token: string): (header: string | undefined) => boolean => {
  const wanted = digest(token)
  return (header) => {
    const match = header === undefined ? null : /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header)
    // Digest something anyway, so a request without the header costs what a wrong one does.
    const given = digest(match?.[1] ?? "")
    return timingSafeEqual(given, wanted) && match !== null
  }
}
