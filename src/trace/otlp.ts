// `lait trace export`: a trace file as one OTLP/HTTP JSON request (docs/traces.md#lait-trace-export).
//
// A small encoder of our own rather than effect/observability: its OtlpSerialization.layerJson is a
// JSON.stringify of a TraceData whose span type requires status, events, links and dropped counts
// (upstream sends none of them), and its attribute conversion sends arrays as arrayValue where
// upstream sends their JSON text; the ids and timestamps would have carried over, the body would not.
//
// Ids are derived from the file, as upstream does: the trace id is the first 16 bytes of SHA-256 over
// the raw file bytes, a span id the first 8 bytes of SHA-256 over (trace id hex ‖ seq as big-endian
// u64). Exporting the same file twice therefore yields the same trace, never a duplicate.
//
// A file without the span tree (the seed's events, as upstream and a plain `--trace-file` write them)
// becomes flat root spans exactly as upstream encodes them, whatever additive fields it carries. A
// file written with `--trace-spans` is a tree: `parent_span_id` is resolved to the parent event's
// derived id, names follow the GenAI conventions (`chat <model>`, `execute_tool <tool>`), tools and
// lait's own spans are INTERNAL. In both, a span whose attributes carry `error.type` (an event that
// failed) has status ERROR with the error's message, so any backend shows the failure: upstream
// sends no status at all, and a status is an addition its readers ignore.
import { Buffer } from "node:buffer"
import { createHash } from "node:crypto"
import { Attr } from "../core/tracing.ts"
import { type FileEvent, hasSpanTree } from "./file.ts"
import { compactJson, TraceNumber, TraceObject, type TraceValue } from "./json.ts"
import { unixNanosText } from "./time.ts"

export const SPAN_KIND_INTERNAL = 1
export const SPAN_KIND_CLIENT = 3
export const STATUS_CODE_ERROR = 2

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex")

export const traceIdOf = (fileBytes: Uint8Array): string =>
  hex(createHash("sha256").update(fileBytes).digest().subarray(0, 16))

export const spanIdOf = (traceId: string, seq: bigint): string => {
  const seqBytes = Buffer.alloc(8)
  seqBytes.writeBigUInt64BE(seq)
  return hex(createHash("sha256").update(Buffer.from(traceId, "utf8")).update(seqBytes).digest().subarray(0, 8))
}

/**
 * An OTLP AnyValue as upstream encodes it: strings and booleans as themselves, an integer that fits
 * in i64 as a decimal-string intValue, any other number as doubleValue, null as an empty string, and
 * arrays/objects as their compact JSON text.
 */
export const anyValue = (value: TraceValue): TraceObject => {
  if (typeof value === "string") return new TraceObject([["stringValue", value]])
  if (typeof value === "boolean") return new TraceObject([["boolValue", value]])
  if (value === null) return new TraceObject([["stringValue", ""]])
  if (value instanceof TraceNumber) {
    const integer = value.asI64
    return integer !== undefined
      ? new TraceObject([["intValue", integer.toString()]])
      : new TraceObject([["doubleValue", TraceNumber.float(value.value)]])
  }
  return new TraceObject([["stringValue", compactJson(value)]])
}

const keyValue = (key: string, value: TraceValue) => new TraceObject([["key", key], ["value", anyValue(value)]])

const stringAttribute = (e: FileEvent, key: string): string | undefined => {
  const v = e.attributes.get(key)
  return typeof v === "string" && v !== "" ? v : undefined
}

/** The span name: upstream's `<operation> <label>`, or in a tree the GenAI convention. */
const spanName = (e: FileEvent, tree: boolean): string => {
  if (!tree) return `${e.operation} ${e.label}`
  const subject = e.operation === "chat"
    ? stringAttribute(e, Attr.requestModel)
    : e.operation === "execute_tool"
    ? stringAttribute(e, Attr.toolName)
    : undefined
  return `${e.operation} ${subject ?? e.label}`
}

const spanKind = (e: FileEvent, tree: boolean): number => {
  if (!tree) return e.operation === "compact" ? SPAN_KIND_INTERNAL : SPAN_KIND_CLIENT
  return e.operation === "chat" ? SPAN_KIND_CLIENT : SPAN_KIND_INTERNAL
}

export interface OtlpOptions {
  readonly serviceName: string
  readonly scopeVersion: string
  /** More resource attributes after `service.name` (OTEL_RESOURCE_ATTRIBUTES). */
  readonly resourceAttributes?: ReadonlyArray<readonly [string, string]>
}

export type OtlpAttribute = readonly [string, TraceValue]

/** One span of an ExportTraceServiceRequest; status ERROR (with `statusMessage`, if any) when `failed`. */
export const otlpSpan = (span: {
  readonly traceId: string
  readonly spanId: string
  readonly parentSpanId: string | undefined
  readonly name: string
  readonly kind: number
  readonly start: bigint
  readonly end: bigint
  readonly attributes: ReadonlyArray<OtlpAttribute>
  readonly failed: boolean
  readonly statusMessage?: string | undefined
}): TraceObject =>
  new TraceObject([
    ["traceId", span.traceId],
    ["spanId", span.spanId],
    ...(span.parentSpanId !== undefined ? [["parentSpanId", span.parentSpanId] as const] : []),
    ["name", span.name],
    ["kind", TraceNumber.int(BigInt(span.kind))],
    ["startTimeUnixNano", unixNanosText(span.start)],
    ["endTimeUnixNano", unixNanosText(span.end)],
    ["attributes", span.attributes.map(([k, v]) => keyValue(k, v))],
    ...(span.failed
      ? [[
        "status",
        new TraceObject([
          ["code", TraceNumber.int(BigInt(STATUS_CODE_ERROR))],
          ...(span.statusMessage !== undefined ? [["message", span.statusMessage] as const] : [])
        ])
      ] as const]
      : [])
  ])

/**
 * How an event of a trace is sent, whether read from a file or recorded live: its span name, kind
 * and attributes (the operation, label and seq first, then the event's own), and whether it failed
 * (`error.type`), with `error.message` (else the type, as `cancelled`) as the status message.
 */
export const eventSpanFields = (e: FileEvent, tree: boolean) => ({
  name: spanName(e, tree),
  kind: spanKind(e, tree),
  start: e.start,
  end: e.end,
  attributes: [
    [Attr.operationName, e.operation],
    ["lait.label", e.label],
    ["lait.seq", TraceNumber.int(e.seq)],
    ...e.attributes.entries
  ] as ReadonlyArray<OtlpAttribute>,
  failed: e.attributes.has(Attr.errorType),
  statusMessage: stringAttribute(e, Attr.errorMessage) ?? stringAttribute(e, Attr.errorType)
})

/** The ExportTraceServiceRequest around `spans`: one resource, one `lait` scope. */
export const otlpRequest = (options: OtlpOptions, spans: ReadonlyArray<TraceObject>): TraceObject =>
  new TraceObject([[
    "resourceSpans",
    [
      new TraceObject([
        [
          "resource",
          new TraceObject([[
            "attributes",
            [["service.name", options.serviceName] as const, ...(options.resourceAttributes ?? [])].map(([k, v]) =>
              keyValue(k, v)
            )
          ]])
        ],
        [
          "scopeSpans",
          [
            new TraceObject([
              ["scope", new TraceObject([["name", "lait"], ["version", options.scopeVersion]])],
              ["spans", spans]
            ])
          ]
        ]
      ])
    ]
  ]])

/** The ExportTraceServiceRequest for `events` (sorted by seq) of the file whose bytes are `fileBytes`. */
export const encodeOtlp = (
  events: ReadonlyArray<FileEvent>,
  fileBytes: Uint8Array,
  options: OtlpOptions
): TraceObject => {
  const traceId = traceIdOf(fileBytes)
  const ids = events.map((e) => spanIdOf(traceId, e.seq))
  const tree = hasSpanTree(events)
  // The first event with a given span_id owns it; a parent that is not in the file leaves a root.
  const byFileSpanId = new Map<string, string>()
  if (tree) {
    events.forEach((e, i) => {
      if (e.span_id !== undefined && !byFileSpanId.has(e.span_id)) byFileSpanId.set(e.span_id, ids[i]!)
    })
  }
  const spans = events.map((e, i) =>
    otlpSpan({
      traceId,
      spanId: ids[i]!,
      parentSpanId: e.span_id !== undefined && typeof e.parent_span_id === "string"
        ? byFileSpanId.get(e.parent_span_id)
        : undefined,
      ...eventSpanFields(e, tree)
    })
  )
  return otlpRequest(options, spans)
}

/** The compact request body. */
export const otlpBody = (events: ReadonlyArray<FileEvent>, fileBytes: Uint8Array, options: OtlpOptions): string =>
  compactJson(encodeOtlp(events, fileBytes, options))

const REASONS: Readonly<Record<number, string>> = {
  100: "Continue",
  101: "Switching Protocols",
  102: "Processing",
  200: "OK",
  201: "Created",
  202: "Accepted",
  203: "Non Authoritative Information",
  204: "No Content",
  205: "Reset Content",
  206: "Partial Content",
  207: "Multi-Status",
  208: "Already Reported",
  226: "IM Used",
  300: "Multiple Choices",
  301: "Moved Permanently",
  302: "Found",
  303: "See Other",
  304: "Not Modified",
  305: "Use Proxy",
  307: "Temporary Redirect",
  308: "Permanent Redirect",
  400: "Bad Request",
  401: "Unauthorized",
  402: "Payment Required",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  406: "Not Acceptable",
  407: "Proxy Authentication Required",
  408: "Request Timeout",
  409: "Conflict",
  410: "Gone",
  411: "Length Required",
  412: "Precondition Failed",
  413: "Payload Too Large",
  414: "URI Too Long",
  415: "Unsupported Media Type",
  416: "Range Not Satisfiable",
  417: "Expectation Failed",
  418: "I'm a teapot",
  421: "Misdirected Request",
  422: "Unprocessable Entity",
  423: "Locked",
  424: "Failed Dependency",
  426: "Upgrade Required",
  428: "Precondition Required",
  429: "Too Many Requests",
  431: "Request Header Fields Too Large",
  451: "Unavailable For Legal Reasons",
  500: "Internal Server Error",
  501: "Not Implemented",
  502: "Bad Gateway",
  503: "Service Unavailable",
  504: "Gateway Timeout",
  505: "HTTP Version Not Supported",
  506: "Variant Also Negotiates",
  507: "Insufficient Storage",
  508: "Loop Detected",
  510: "Not Extended",
  511: "Network Authentication Required"
}

/** A status as upstream's HTTP client prints it: `404 Not Found`, `599 <unknown status code>`. */
export const statusText = (status: number): string => `${status} ${REASONS[status] ?? "<unknown status code>"}`
