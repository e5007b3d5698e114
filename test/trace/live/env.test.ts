// The OTEL_* variables as the OpenTelemetry SDK specification defines them (src/trace/live/env.ts).
import { describe, expect, test } from "bun:test"
import { liveExportSettings, tracesEndpoint } from "../../../src/trace/live/env.ts"

describe("the traces endpoint", () => {
  test("the base endpoint gets /v1/traces (one slash), the traces endpoint is used as given and wins", () => {
    expect(tracesEndpoint({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318" })).toBe("http://c:4318/v1/traces")
    expect(tracesEndpoint({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318/base/" })).toBe("http://c:4318/base/v1/traces")
    expect(tracesEndpoint({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://t/custom" })).toBe("http://t/custom")
    expect(tracesEndpoint({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c", OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://t/x" }))
      .toBe("http://t/x")
    // An empty value is unset.
    expect(tracesEndpoint({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: " ", OTEL_EXPORTER_OTLP_ENDPOINT: "http://c" }))
      .toBe("http://c/v1/traces")
    expect(tracesEndpoint({})).toBeUndefined()
  })
})

describe("liveExportSettings", () => {
  test("off without an endpoint, with OTEL_SDK_DISABLED=true (any case) and with OTEL_TRACES_EXPORTER=none", () => {
    expect(liveExportSettings({})).toBeUndefined()
    expect(liveExportSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c", OTEL_SDK_DISABLED: "TRUE" })).toBeUndefined()
    expect(liveExportSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c", OTEL_TRACES_EXPORTER: "none" })).toBeUndefined()
    expect(liveExportSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c", OTEL_SDK_DISABLED: "false" })?.url)
      .toBe("http://c/v1/traces")
    expect(liveExportSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c", OTEL_TRACES_EXPORTER: "console,otlp" })?.url)
      .toBe("http://c/v1/traces")
  })

  test("defaults: service lait, 3 s flush, 10 s per request, 5 s delay, batches of 512, no problems", () => {
    expect(liveExportSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c" })).toEqual({
      url: "http://c/v1/traces",
      headers: [],
      serviceName: "lait",
      resourceAttributes: [],
      flushTimeoutMs: 3000,
      requestTimeoutMs: 10000,
      scheduleDelayMs: 5000,
      maxBatchSize: 512,
      problems: []
    })
  })

  test("headers: trimmed, percent-decoded, the traces list wins per name; bad entries are reported, not quoted", () => {
    const settings = liveExportSettings({
      OTEL_EXPORTER_OTLP_ENDPOINT: "http://c",
      OTEL_EXPORTER_OTLP_HEADERS: " Authorization = Bearer%20s3cret ,x-a=1,broken,=v,x-b=%zz",
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: "X-A=2"
    })!
    expect(settings.headers).toEqual([["Authorization", "Bearer s3cret"], ["X-A", "2"]])
    expect(settings.problems).toEqual([
      "ignoring entry 3 of OTEL_EXPORTER_OTLP_HEADERS: expected key=value with a percent-encoded value",
      "ignoring entry 4 of OTEL_EXPORTER_OTLP_HEADERS: expected key=value with a percent-encoded value",
      "ignoring entry 5 of OTEL_EXPORTER_OTLP_HEADERS: expected key=value with a percent-encoded value"
    ])
    expect(settings.problems.join("\n")).not.toContain("zz")
  })

  test("the resource: OTEL_SERVICE_NAME over service.name in OTEL_RESOURCE_ATTRIBUTES over lait", () => {
    const env = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://c", OTEL_RESOURCE_ATTRIBUTES: "service.name=from-attrs,team=a%2Cb" }
    expect(liveExportSettings(env)).toMatchObject({ serviceName: "from-attrs", resourceAttributes: [["team", "a,b"]] })
    expect(liveExportSettings({ ...env, OTEL_SERVICE_NAME: "svc" })).toMatchObject({
      serviceName: "svc",
      resourceAttributes: [["team", "a,b"]]
    })
  })

  test("timeouts and batching from OTEL_BSP_* and OTEL_EXPORTER_OTLP_*TIMEOUT; a bad number is reported and ignored", () => {
    const settings = liveExportSettings({
      OTEL_EXPORTER_OTLP_ENDPOINT: "http://c",
      OTEL_BSP_EXPORT_TIMEOUT: "1500",
      OTEL_EXPORTER_OTLP_TIMEOUT: "7000",
      OTEL_EXPORTER_OTLP_TRACES_TIMEOUT: "soon",
      OTEL_BSP_SCHEDULE_DELAY: "100",
      OTEL_BSP_MAX_EXPORT_BATCH_SIZE: "0",
      OTEL_EXPORTER_OTLP_PROTOCOL: "grpc"
    })!
    expect(settings).toMatchObject({ flushTimeoutMs: 1500, requestTimeoutMs: 7000, scheduleDelayMs: 100, maxBatchSize: 1 })
    expect(settings.problems).toEqual([
      "lait exports spans as OTLP/HTTP JSON only; OTEL_EXPORTER_OTLP_PROTOCOL 'grpc' is ignored",
      "ignoring OTEL_EXPORTER_OTLP_TRACES_TIMEOUT: expected a whole number of milliseconds"
    ])
  })
})
