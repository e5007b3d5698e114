// Every way a model request fails, as one error class with a `reason`. The text of each reason is
// the one lait has always printed; its exit code is in core/errors.ts's table (`exitCodeByTag`):
// 4 when a model server was asked (or could not be), 1 when a cassette on disk is at fault.
// Plain Data classes, not Schema ones: nothing decodes or encodes them, and every replayed run loads
// this module, which would otherwise evaluate Effect Schema's modules for it.
import { Data } from "effect"
import { ReasonError } from "../core/reasonError.ts"
import { formatBytes, formatWait } from "../core/units.ts"

/** The server could not be reached, or the connection broke before the whole answer arrived. */
export class Unreachable extends Data.TaggedClass("Unreachable")<{
  /** As displayed: credentials masked. */
  readonly baseUrl: string
  /** The network failure, redacted. */
  readonly detail: string
}> {
  get message(): string {
    return `failed to reach '${this.baseUrl}': ${this.detail}`
  }
}

/** A streamed answer's connection broke after part of it had arrived. */
export class StreamBroken extends Data.TaggedClass("StreamBroken")<{
  readonly baseUrl: string
  /** Bytes of the body that had arrived. */
  readonly bytes: number
  /** The network failure, redacted. */
  readonly detail: string
}> {
  get message(): string {
    return `the stream from '${this.baseUrl}' broke off after ${this.bytes} bytes: ${this.detail}`
  }
}

/** One attempt (headers and the whole body) took longer than the request timeout. */
export class Timeout extends Data.TaggedClass("Timeout")<{
  readonly baseUrl: string
  readonly timeoutMillis: number
}> {
  get message(): string {
    return `failed to reach '${this.baseUrl}': timed out after ${formatWait(this.timeoutMillis)}`
  }
}

interface RetryAfter {
  readonly millis: number
  readonly askedMillis?: number
  readonly header?: "retry-after-ms"
}

/** The server answered with a status other than 2xx. */
export class HttpStatus extends Data.TaggedClass("HttpStatus")<{
  readonly baseUrl: string
  readonly status: number
  /** The server's error message (or body), redacted and shortened; absent when it sent none. */
  readonly detail?: string
  /** Set when the error body itself passed the response limit (then it was not read). */
  readonly bodyLimit?: number
  /** What a 429 or 503 asked to wait, capped (src/model/retry.ts). */
  readonly retryAfter?: RetryAfter
  /**
   * A 401 or 403: where the key sent came from (src/config/endpoints.ts's describeApiKeySource), or
   * null when none was configured. Never the key.
   */
  readonly keySource?: string | null
}> {
  get message(): string {
    const answered = `the model server at '${this.baseUrl}' answered HTTP ${this.status}`
    const said = this.bodyLimit !== undefined
      ? `${answered} (response from '${this.baseUrl}' exceeds ${formatBytes(this.bodyLimit)})`
      : this.detail === undefined
      ? answered
      : `${answered}: ${this.detail}`
    if (this.keySource === undefined) return said
    // A server's sentence ends with a period; the note follows it as one more clause.
    const clause = said.endsWith(".") ? said.slice(0, -1) : said
    return this.keySource === null
      ? `${clause}; no API key is configured: set OPENAI_API_KEY, pass --api-key, or set api_key (or api_key_cmd) ` +
        "in lait.config.yml"
      : `${clause}; check the API key (it came from ${this.keySource})`
  }
}

/** A 2xx answer lait cannot use. */
export class BadResponse extends Data.TaggedClass("BadResponse")<{
  readonly baseUrl: string
  readonly problem: "invalid-json" | "reported" | "unreadable" | "no-choices" | "empty-stream"
  /** What the server reported (`reported` only). */
  readonly detail?: string
  /**
   * `reported` inside a stream: the HTTP status the error stands for (src/model/errorBody.ts), which
   * decides whether it is retried and falls back as that HTTP answer would.
   */
  readonly status?: number
}> {
  get message(): string {
    const server = `the model server at '${this.baseUrl}'`
    switch (this.problem) {
      case "invalid-json":
        return `${server} returned invalid JSON`
      case "reported":
        return `${server} reported: ${this.detail ?? ""}`
      case "unreadable":
        return `${server} returned a response lait cannot read`
      case "no-choices":
        return `${server} returned no choices`
      case "empty-stream":
        // The original lait's words, then whose stream it was.
        return `API response contained no content in its first choice (the stream from '${this.baseUrl}' ` +
          "ended without any text or tool call)"
    }
  }
}

/** A 2xx answer longer than the response limit: the same request would get the same flood. */
export class ResponseTooLarge extends Data.TaggedClass("ResponseTooLarge")<{
  readonly baseUrl: string
  readonly limit: number
}> {
  get message(): string {
    return `response from '${this.baseUrl}' exceeds ${formatBytes(this.limit)}`
  }
}

/** Replay found no cassette for the request. */
export class CassetteMissing extends Data.TaggedClass("CassetteMissing")<{
  readonly path: string
  readonly dir: string
  readonly modelId: string
  /** The closest recording and where it differs (src/model/cassette/diff.ts), when there is one. */
  readonly hint?: string
  /**
   * The running command's way to record the request (src/model/recordHint.ts): its command line and
   * what must stay the same. Absent: `lait run`'s.
   */
  readonly record?: { readonly command: string; readonly same: string }
}> {
  get message(): string {
    const record = this.record ?? { command: `lait run --record ${this.dir}`, same: "the same workflow/input/vars" }
    return `no recorded cassette for this request (model '${this.modelId}') at '${this.path}'; ` +
      `run \`${record.command}\` first against ${record.same}, ` +
      `or check that they still match this recording` + (this.hint === undefined ? "" : `; ${this.hint}`)
  }
}

/** The cassette for the request exists but cannot be read, or does not hold a usable answer. */
export class CassetteInvalid extends Data.TaggedClass("CassetteInvalid")<{
  readonly path: string
  readonly stage: "read" | "parse"
  /** What is wrong, in one clause (printed after the message). */
  readonly problem: string
}> {
  get message(): string {
    return this.stage === "read"
      ? `failed to read cassette '${this.path}'`
      : `failed to parse cassette entry '${this.path}'`
  }
}

/** An `api: responses` model was asked for what that API does not offer (`feature`, as named). */
export class ResponsesUnsupported extends Data.TaggedClass("ResponsesUnsupported")<{
  readonly modelId: string
  readonly feature: string
  /** What to do instead; by default, another model. */
  readonly remedy?: string
}> {
  get message(): string {
    return `model '${this.modelId}' uses 'api: responses', which does not support ${this.feature}; ` +
      (this.remedy ?? "use a chat_completions model for this step")
  }
}

/** A cassette or cache entry (`what`) that must not be written: it holds the key, or cannot be read back. */
export class EntryRefused extends Data.TaggedClass("EntryRefused")<{
  readonly what: string
  readonly problem: string
}> {
  get message(): string {
    return `refusing to write ${this.what}: ${this.problem}`
  }
}

export type ModelErrorReason =
  | Unreachable
  | StreamBroken
  | Timeout
  | HttpStatus
  | BadResponse
  | ResponseTooLarge
  | CassetteMissing
  | CassetteInvalid
  | ResponsesUnsupported
  | EntryRefused

/** A status whose answer may change: a server error, a rate limit, a request timeout. */
const transientStatus = (status: number): boolean => status >= 500 || status === 429 || status === 408

export class ModelError extends ReasonError("ModelError", {
  describe: (reason: ModelErrorReason) => reason.message,
  /** What `renderChain` prints after the message: a cassette's problem. */
  cause: (reason) => reason._tag === "CassetteInvalid" ? reason.problem : undefined
}) {
  /** The HTTP status the server answered, if any (a trace's `error.type`). */
  get status(): number | undefined {
    return this.reason._tag === "HttpStatus" ? this.reason.status : undefined
  }

  /** Whether the same request may succeed later: worth a retry, and a reason to fall back. */
  get transient(): boolean {
    switch (this.reason._tag) {
      case "Unreachable":
      case "StreamBroken":
      case "Timeout":
        return true
      case "HttpStatus":
        return transientStatus(this.reason.status)
      case "BadResponse":
        return this.reason.status !== undefined && transientStatus(this.reason.status)
      default:
        return false
    }
  }
}

declare module "../core/errors.ts" {
  interface DomainErrors {
    readonly ModelError: ModelError
  }
}
