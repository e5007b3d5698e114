// The OpenTelemetry SDK environment variables lait honours (docs/traces.md#live-export), read from the
// process environment only: live export is configured before `.env` and lait.config.yml are loaded,
// and a collector's credentials belong to the shell or the CI job, not to a project file.
// Pure and cheap on purpose: every `lait run`, `test` and `eval` reads it; the exporter itself is
// loaded only when this finds an endpoint.
import type { Env } from "../../config/env.ts"

export interface OtlpEnv {
  /** Where spans are POSTed. */
  readonly url: string
  readonly headers: ReadonlyArray<readonly [string, string]>
  readonly serviceName: string
  /** OTEL_RESOURCE_ATTRIBUTES, in order, without `service.name` (serviceName holds the winner). */
  readonly resourceAttributes: ReadonlyArray<readonly [string, string]>
  /** How long lait waits at exit for spans still to be sent (OTEL_BSP_EXPORT_TIMEOUT). */
  readonly flushTimeoutMs: number
  /** How long one POST may take (OTEL_EXPORTER_OTLP_TRACES_TIMEOUT, OTEL_EXPORTER_OTLP_TIMEOUT). */
  readonly requestTimeoutMs: number
  /** How long a finished span may wait before its batch is sent (OTEL_BSP_SCHEDULE_DELAY). */
  readonly scheduleDelayMs: number
  /** A batch is sent at once when it reaches this many spans (OTEL_BSP_MAX_EXPORT_BATCH_SIZE). */
  readonly maxBatchSize: number
  /** Variables set but unusable, as `warning:` texts (header and attribute values are never quoted). */
  readonly problems: ReadonlyArray<string>
}

/** The spec's default export timeout is 30 s; a CLI that waits that long at exit after a dead collector looks hung. */
export const DEFAULT_FLUSH_TIMEOUT_MS = 3_000
export const DEFAULT_REQUEST_TIMEOUT_MS = 10_000
export const DEFAULT_SCHEDULE_DELAY_MS = 5_000
export const DEFAULT_MAX_BATCH_SIZE = 512
export const DEFAULT_SERVICE_NAME = "lait"

// The spec: an empty value means unset, and so does a value of only blanks.
const read = (env: Env, name: string): string | undefined => {
  const value = env[name]?.trim()
  return value === undefined || value === "" ? undefined : value
}

/** OTEL_SDK_DISABLED=true (any case) turns every signal off, whatever else is set. */
export const sdkDisabled = (env: Env): boolean => read(env, "OTEL_SDK_DISABLED")?.toLowerCase() === "true"

/**
 * The traces endpoint: the signal-specific variable as given, else the base endpoint with `v1/traces`
 * appended (after a `/` unless it ends with one), as the OTLP exporter spec defines it.
 */
export const tracesEndpoint = (env: Env): string | undefined => {
  const specific = read(env, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
  if (specific !== undefined) return specific
  const base = read(env, "OTEL_EXPORTER_OTLP_ENDPOINT")
  if (base === undefined) return undefined
  return base.endsWith("/") ? `${base}v1/traces` : `${base}/v1/traces`
}

const decode = (text: string): string | undefined => {
  try {
    return decodeURIComponent(text)
  } catch {
    return undefined
  }
}

/**
 * `key1=value1,key2=value2` (the W3C Baggage-like list of OTEL_EXPORTER_OTLP_HEADERS and
 * OTEL_RESOURCE_ATTRIBUTES): blanks around keys and values trimmed, values percent-decoded. An entry
 * without `=`, with an empty key or with a bad escape is skipped and reported by `name` and position.
 */
export const parseKeyValueList = (
  text: string,
  name: string,
  problems: Array<string>
): Array<readonly [string, string]> => {
  const pairs: Array<readonly [string, string]> = []
  text.split(",").forEach((entry, index) => {
    if (entry.trim() === "") return
    const eq = entry.indexOf("=")
    const key = eq === -1 ? "" : entry.slice(0, eq).trim()
    const value = eq === -1 ? undefined : decode(entry.slice(eq + 1).trim())
    if (key === "" || value === undefined) {
      problems.push(`ignoring entry ${index + 1} of ${name}: expected key=value with a percent-encoded value`)
      return
    }
    pairs.push([key, value])
  })
  return pairs
}

const wholeNumber = (
  env: Env,
  names: ReadonlyArray<string>,
  fallback: number,
  problems: Array<string>,
  unit = " of milliseconds"
): number => {
  for (const name of names) {
    const raw = read(env, name)
    if (raw === undefined) continue
    if (/^\d{1,9}$/.test(raw)) return Number(raw)
    problems.push(`ignoring ${name}: expected a whole number${unit}`)
  }
  return fallback
}

/** Headers of the traces endpoint: the general list, then the traces list, a later key winning (case-blind). */
export const otlpHeaders = (env: Env, problems: Array<string>): Array<readonly [string, string]> => {
  const merged = new Map<string, readonly [string, string]>()
  for (const name of ["OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_TRACES_HEADERS"]) {
    const raw = read(env, name)
    if (raw === undefined) continue
    for (const pair of parseKeyValueList(raw, name, problems)) merged.set(pair[0].toLowerCase(), pair)
  }
  return [...merged.values()]
}

/** The resource: OTEL_SERVICE_NAME wins over a `service.name` in OTEL_RESOURCE_ATTRIBUTES, then `lait`. */
export const otlpResource = (
  env: Env,
  problems: Array<string>
): { readonly serviceName: string; readonly attributes: ReadonlyArray<readonly [string, string]> } => {
  const raw = read(env, "OTEL_RESOURCE_ATTRIBUTES")
  const listed = raw === undefined ? [] : parseKeyValueList(raw, "OTEL_RESOURCE_ATTRIBUTES", problems)
  const byKey = new Map(listed.map((pair) => [pair[0], pair] as const))
  const serviceName = read(env, "OTEL_SERVICE_NAME") ?? byKey.get("service.name")?.[1] ?? DEFAULT_SERVICE_NAME
  byKey.delete("service.name")
  return { serviceName, attributes: [...byKey.values()] }
}

/**
 * What live export needs, or undefined when it is off: no endpoint, OTEL_SDK_DISABLED=true, or
 * OTEL_TRACES_EXPORTER naming no `otlp` exporter (`none`). Only OTLP/HTTP with JSON bodies is spoken;
 * another OTEL_EXPORTER_OTLP_PROTOCOL is reported and JSON sent anyway.
 */
export const liveExportSettings = (env: Env): OtlpEnv | undefined => {
  const url = tracesEndpoint(env)
  if (url === undefined || sdkDisabled(env)) return undefined
  const exporters = read(env, "OTEL_TRACES_EXPORTER")
  if (exporters !== undefined && !exporters.split(",").some((e) => e.trim() === "otlp")) return undefined
  const problems: Array<string> = []
  const protocol = read(env, "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL") ?? read(env, "OTEL_EXPORTER_OTLP_PROTOCOL")
  if (protocol !== undefined && protocol !== "http/json") {
    problems.push(`lait exports spans as OTLP/HTTP JSON only; OTEL_EXPORTER_OTLP_PROTOCOL '${protocol}' is ignored`)
  }
  const headers = otlpHeaders(env, problems)
  const { serviceName, attributes } = otlpResource(env, problems)
  const batch = wholeNumber(env, ["OTEL_BSP_MAX_EXPORT_BATCH_SIZE"], DEFAULT_MAX_BATCH_SIZE, problems, "")
  return {
    url,
    headers,
    serviceName,
    resourceAttributes: attributes,
    flushTimeoutMs: wholeNumber(env, ["OTEL_BSP_EXPORT_TIMEOUT"], DEFAULT_FLUSH_TIMEOUT_MS, problems),
    requestTimeoutMs: wholeNumber(
      env,
      ["OTEL_EXPORTER_OTLP_TRACES_TIMEOUT", "OTEL_EXPORTER_OTLP_TIMEOUT"],
      DEFAULT_REQUEST_TIMEOUT_MS,
      problems
    ),
    scheduleDelayMs: wholeNumber(env, ["OTEL_BSP_SCHEDULE_DELAY"], DEFAULT_SCHEDULE_DELAY_MS, problems),
    maxBatchSize: Math.max(1, batch),
    problems
  }
}
