// Sending a trace file to an OTLP/HTTP collector: one POST, every outcome reported as upstream does
// (docs/traces.md#lait-trace-export). Header values may hold secrets (`${TOKEN}`), so they are never printed or logged.
import { Console, Duration, Effect } from "effect"
import { HttpClient, HttpClientRequest } from "effect/http"
import { type Env, expandVars } from "../config/env.ts"
import { renderChain } from "../core/errors.ts"
import { describeNetworkFailure } from "../core/network.ts"
import { headerSecrets, redactSecrets } from "../core/secrets.ts"
import { displayUrl, urlCredentials } from "../core/urls.ts"
import { VERSION } from "../version.ts"
import { readTraceFile } from "./file.ts"
import { otlpBody, statusText } from "./otlp.ts"
import { TraceError } from "./TraceError.ts"

/** A collector that accepts the connection and never answers should not hang an export forever. */
export const EXPORT_TIMEOUT = Duration.seconds(60)

export interface ExportOptions {
  readonly file: string
  readonly url: string
  /** `NAME=VALUE` as given on the command line. */
  readonly headers: ReadonlyArray<string>
  /** Headers already resolved (OTEL_EXPORTER_OTLP_HEADERS), sent before those of the command line. */
  readonly envHeaders?: ReadonlyArray<readonly [string, string]>
  readonly serviceName: string
  /** More resource attributes after service.name (OTEL_RESOURCE_ATTRIBUTES). */
  readonly resourceAttributes?: ReadonlyArray<readonly [string, string]>
  /** Where `${VAR}` in header values is looked up (process env after `.env`). */
  readonly env: Env
  /** How long to wait for the collector's answer (default EXPORT_TIMEOUT). */
  readonly timeout?: Duration.Input
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/

/**
 * How a malformed `--header` (or its name) is quoted: up to its first `:` or blank.
 * `Authorization: Bearer sk-…` (curl's spelling) is the likely typo, and what follows the name is a credential.
 */
const quoteMalformed = (header: string): string => {
  const cut = header.search(/[:\s]/)
  return cut === -1 ? header : `${header.slice(0, cut + 1).trimEnd()} …`
}

/** `--header NAME=VALUE` list → headers; split at the first `=`, name trimmed, value `${VAR}`-expanded. */
export const parseHeaders = (
  headers: ReadonlyArray<string>,
  env: Env
): Effect.Effect<ReadonlyArray<readonly [string, string]>, TraceError> =>
  Effect.forEach(headers, (header) => {
    const eq = header.indexOf("=")
    if (eq === -1) {
      return Effect.fail(new TraceError({ reason: { _tag: "HeaderMalformed", header: quoteMalformed(header) } }))
    }
    const name = header.slice(0, eq)
    return expandVars(header.slice(eq + 1), env, { secret: true }).pipe(
      Effect.mapError((cause) =>
        new TraceError({ reason: { _tag: "HeaderValue", name: quoteMalformed(name), detail: renderChain(cause) } })
      ),
      Effect.map((value) => [name.trim(), value] as const)
    )
  })

/** Posts the spans of `options.file`; the notes (`nothing to export`, `exported N spans`) go to stderr. */
export const exportTrace = Effect.fn("trace.export")(function*(options: ExportOptions) {
  const { bytes, events } = yield* readTraceFile(options.file, { waitForWriter: true })
  if (events.length === 0) {
    yield* Console.error(`note: '${options.file}' has no events; nothing to export`)
    return
  }
  const body = otlpBody(events, bytes, {
    serviceName: options.serviceName,
    scopeVersion: VERSION,
    resourceAttributes: options.resourceAttributes ?? []
  })
  const headers = [...(options.envHeaders ?? []), ...(yield* parseHeaders(options.headers, options.env))]
  // The collector's URL may hold a key (`?api-key=…`, `user:pass@`): printed masked, masked in its answers.
  const url = displayUrl(options.url)
  const sendFailure = (cause: string) =>
    new TraceError({ reason: { _tag: "SendFailed", url, detail: redactSecrets(cause, urlCredentials(options.url)) } })
  for (const [name, value] of headers) {
    // `Authorization: Basic dXNlcjpwYXNz==` splits at the padding's `=`: the "name" holds the credential.
    if (!TOKEN.test(name)) return yield* sendFailure(`invalid header name '${quoteMalformed(name)}'`)
    if (/[\r\n\0]/.test(value)) return yield* sendFailure(`invalid value for header '${name}'`)
  }

  const http = yield* HttpClient.HttpClient
  const request = HttpClientRequest.post(options.url).pipe(
    HttpClientRequest.bodyText(body, "application/json"),
    HttpClientRequest.setHeaders(Object.fromEntries(headers))
  )
  yield* Effect.logDebug(`POST ${url} (${events.length} span(s), ${body.length} bytes)`)
  const timeout = Duration.fromInputUnsafe(options.timeout ?? EXPORT_TIMEOUT)
  const response = yield* http.execute(request).pipe(
    Effect.flatMap((res) => Effect.map(res.text, (text) => ({ status: res.status, text }))),
    // The request carries the user's spans; lait's own tracing context has no business in it.
    Effect.provideService(HttpClient.TracerPropagationEnabled, false),
    Effect.timeoutOrElse({
      duration: timeout,
      orElse: () => Effect.fail(sendFailure(`no answer within ${Duration.format(timeout)}`))
    }),
    Effect.mapError((e) => (e instanceof TraceError ? e : sendFailure(describeNetworkFailure(e)))),
    // Upstream reports Ctrl-C here as a typed cancellation; main exits 128 + signo and prints no error
    // for an interruption, so the line is written on the way out.
    Effect.onInterrupt(() => Console.error("lait: trace export was cancelled"))
  )
  if (response.status < 200 || response.status >= 300) {
    // Collectors and proxies may repeat the token they rejected.
    const secrets = [...headerSecrets(headers.map(([, value]) => value)), ...urlCredentials(options.url)]
    const detail = redactSecrets(response.text, secrets).trim()
    return yield* new TraceError({ reason: { _tag: "Rejected", url, status: statusText(response.status), detail } })
  }
  yield* Console.error(`note: exported ${events.length} span${events.length === 1 ? "" : "s"} to '${url}'`)
})
