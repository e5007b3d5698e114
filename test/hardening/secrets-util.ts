// Helpers of the secrets sweep (test/hardening/secrets.test.ts): keys that differ in every encoding a
// leak could take, a search of every byte lait could have written or printed for all of those
// encodings, and an OTLP collector that echoes the bearer token back in its error answers (as some
// real ones do), so the export's error path is exercised with the key in the server's reply.
import * as fs from "node:fs"
import * as path from "node:path"

/**
 * A fresh key for one test. It holds `"`, `\` and `/` on purpose: its JSON-escaped forms (`\"`, `\\`,
 * `\/`) differ from the raw text, so a leak through JSON.stringify, or through a server's JSON error
 * body, is not missed by a search for the raw key alone. Every byte is valid in an HTTP header value.
 */
export const makeKey = (tag: string): string => `sk-hard-${tag}-"q"\\b/${crypto.randomUUID()}`

export interface Needle {
  /** How the key was encoded: raw, json, json-slash, url, url-lower, base64@0..2, base64url@0..2. */
  readonly form: string
  readonly text: string
}

/**
 * The base64 characters that depend only on the key's bytes when the key starts `shift` bytes into a
 * larger encoded blob (0, 1 or 2: the three alignments), so an embedded key is found too.
 */
const base64Core = (key: Buffer, shift: number, url: boolean): string => {
  const encoded = Buffer.concat([Buffer.alloc(shift), key]).toString(url ? "base64url" : "base64")
  return encoded.slice(Math.ceil((8 * shift) / 6), Math.floor((8 * (shift + key.length)) / 6))
}

/** Every form of `key` a search must look for. */
export const needlesOf = (key: string): ReadonlyArray<Needle> => {
  const json = JSON.stringify(key).slice(1, -1)
  const bytes = Buffer.from(key, "utf8")
  const forms: Array<Needle> = [
    { form: "raw", text: key },
    { form: "json", text: json },
    { form: "json-slash", text: json.replaceAll("/", "\\/") },
    // Percent-encoded, as in a URL's userinfo or query, or a server's echo of one (either hex case).
    { form: "url", text: encodeURIComponent(key) },
    { form: "url-lower", text: encodeURIComponent(key).replace(/%[0-9A-F]{2}/g, (h) => h.toLowerCase()) }
  ]
  for (const shift of [0, 1, 2]) {
    forms.push({ form: `base64@${shift}`, text: base64Core(bytes, shift, false) })
    forms.push({ form: `base64url@${shift}`, text: base64Core(bytes, shift, true) })
  }
  return forms
}

/** `where: form` for every needle found in `text`. */
export const hitsIn = (key: string, where: string, text: string): Array<string> =>
  needlesOf(key).filter((n) => text.includes(n.text)).map((n) => `${where}: ${n.form}`)

/** Every regular file under `root`, recursively (symlinks are not followed). */
export const walkFiles = (root: string): Array<string> => {
  const out: Array<string> = []
  const visit = (p: string) => {
    // Concurrent tests share the workspace: a temp file renamed away meanwhile is simply gone.
    const st = fs.lstatSync(p, { throwIfNoEntry: false })
    if (st === undefined) return
    if (st.isDirectory()) for (const entry of fs.readdirSync(p).sort()) visit(path.join(p, entry))
    else if (st.isFile()) out.push(p)
  }
  if (fs.existsSync(root)) visit(root)
  return out
}

export interface Sweep {
  /** Directories searched recursively (workspace, HOME, XDG dirs, TMPDIR given to lait). */
  readonly roots: ReadonlyArray<string>
  /** Absolute paths of files that hold the key on purpose (the user's .env, a literal in a config). */
  readonly owned: ReadonlyArray<string>
  /** Named texts: stdout/stderr of each run, bodies a server received, ... */
  readonly texts: ReadonlyArray<readonly [string, string]>
}

/** Every place (file or text) that holds `key` in any of its forms; empty when nothing leaked. */
export const findLeaks = (key: string, sweep: Sweep): Array<string> => {
  const owned = new Set(sweep.owned.map((p) => path.resolve(p)))
  const found: Array<string> = []
  for (const root of sweep.roots) {
    for (const file of walkFiles(root)) {
      if (owned.has(path.resolve(file))) continue
      // latin1 maps every byte to one char, so an ASCII needle matches whatever the file's encoding.
      let bytes: Buffer
      try {
        bytes = fs.readFileSync(file)
      } catch {
        continue // renamed away by a concurrent test's atomic write
      }
      found.push(...hitsIn(key, file, bytes.toString("latin1")))
    }
  }
  for (const [where, text] of sweep.texts) found.push(...hitsIn(key, where, text))
  return [...new Set(found)]
}

export interface EchoCollector {
  readonly url: string
  /** Every request: its Authorization header and raw body. */
  readonly requests: Array<{ readonly authorization: string | null; readonly body: string }>
  stop(): Promise<void>
}

/**
 * An OTLP endpoint that rejects every export and repeats the bearer token it got, the way some
 * collectors and proxies word an auth failure. `/json` answers 401 with a JSON body (the token
 * JSON-escaped), anything else 403 with plain text.
 */
export const startEchoCollector = (): EchoCollector => {
  const requests: Array<{ authorization: string | null; body: string }> = []
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const authorization = request.headers.get("authorization")
      requests.push({ authorization, body: await request.text() })
      if (new URL(request.url).pathname === "/json") {
        return Response.json({ code: 16, message: `invalid credentials: ${authorization}` }, { status: 401 })
      }
      return new Response(`forbidden: token ${authorization} is not allowed`, { status: 403 })
    }
  })
  return {
    url: `http://127.0.0.1:${server.port}`,
    requests,
    stop: async () => {
      await server.stop(true)
    }
  }
}
