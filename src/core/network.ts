// Why a request got no answer, in the words a user acts on. The runtime's own texts ("Unable to
// connect. Is the computer able to access the url?", "pass `verbose: true` to fetch()") are written
// for the programmer holding the fetch call, not for someone running lait. Model requests, MCP servers
// over HTTP and `lait trace export` all say it the same way.
import { errnoOf } from "./osError.ts"

const PLAIN: Readonly<Record<string, string>> = {
  ECONNREFUSED: "connection refused",
  ConnectionRefused: "connection refused",
  ECONNRESET: "connection reset",
  ConnectionReset: "connection reset",
  EPIPE: "connection reset",
  ConnectionClosed: "connection reset",
  ENOTFOUND: "host not found",
  EAI_NONAME: "host not found",
  EAI_AGAIN: "host not found (the DNS lookup failed; try again later)",
  DNSException: "host not found",
  ETIMEDOUT: "timed out",
  ConnectionTimeout: "timed out",
  UND_ERR_CONNECT_TIMEOUT: "timed out",
  EHOSTUNREACH: "host unreachable",
  ENETUNREACH: "network unreachable",
  ERR_INVALID_URL: "invalid URL",
  InvalidURL: "invalid URL",
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: "the server's TLS certificate is not trusted",
  SELF_SIGNED_CERT_IN_CHAIN: "the server's TLS certificate is not trusted",
  DEPTH_ZERO_SELF_SIGNED_CERT: "the server's TLS certificate is not trusted",
  CERT_HAS_EXPIRED: "the server's TLS certificate has expired",
  ERR_TLS_CERT_ALTNAME_INVALID: "the server's TLS certificate is for another host"
}

/** The runtime's advice to the programmer, cut from a message that has nothing better. */
const RUNTIME_ADVICE = [
  /\s*Is the computer able to access the url\?/,
  /\s*For more information, pass `verbose: true`.*$/
]

/** Effect's HttpClientError keeps the fetch error in `reason.cause`; SDKs wrap it in `cause`. */
const causesOf = (error: unknown): ReadonlyArray<unknown> => {
  const out: Array<unknown> = []
  let current: unknown = error
  for (let depth = 0; depth < 6 && current !== undefined && current !== null; depth++) {
    out.push(current)
    if (typeof current !== "object") break
    const next = current as { reason?: unknown; cause?: unknown }
    current = typeof next.reason === "object" && next.reason !== null ? next.reason : next.cause
  }
  return out
}

/**
 * `connection refused`, `connection reset`, `host not found`, ...; for a failure without a known
 * code, the innermost message without the runtime's advice.
 */
export const describeNetworkFailure = (error: unknown): string => {
  const chain = causesOf(error)
  for (const e of chain) {
    const code = errnoOf(e)
    if (code !== undefined && PLAIN[code] !== undefined) return PLAIN[code]
    if (typeof e === "object" && e !== null && (e as { _tag?: unknown })._tag === "InvalidUrlError") {
      return "invalid URL"
    }
  }
  const innermost = [...chain].reverse().find((e) => e instanceof Error || typeof e === "string")
  let text = innermost instanceof Error ? innermost.message : typeof innermost === "string" ? innermost : String(error)
  for (const advice of RUNTIME_ADVICE) text = text.replace(advice, "")
  // Bun prefixes the code (`ECONNREFUSED: ...`); a code not in the table still reads as the code.
  text = text.replace(/^TypeError: /, "").trim()
  return text === "" ? "the connection failed" : text
}
