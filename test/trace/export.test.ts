// exportTrace in-process against the local OTLP receiver: the cases the e2e test does not cover
// (a collector that never answers, header names and values the HTTP layer would reject, secrets).
import { afterAll, beforeAll, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Effect, Exit, Layer } from "effect"
import { FetchHttpClient } from "effect/http"
import { renderChain } from "../../src/core/errors.ts"
import { FileLoader } from "../../src/platform/FileLoader.ts"
import { type ExportOptions, exportTrace, parseHeaders } from "../../src/trace/export.ts"
import { type OtlpReceiver, startOtlpReceiver } from "../fixtures/otlp-receiver.ts"
import { TREE_TRACE } from "./fixtures.ts"

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "lait-trace-export-"))
const file = path.join(dir, "run.jsonl")
let receiver: OtlpReceiver
beforeAll(() => {
  fs.writeFileSync(file, TREE_TRACE)
  receiver = startOtlpReceiver()
})
afterAll(async () => {
  await receiver.stop()
  fs.rmSync(dir, { recursive: true, force: true })
})

const exportWith = async (options: Partial<ExportOptions>) => {
  const exit = await Effect.runPromiseExit(
    exportTrace({ file, url: `${receiver.url}/v1/traces`, headers: [], serviceName: "lait", env: {}, ...options }).pipe(
      Effect.provide(Layer.mergeAll(FileLoader.layer, FetchHttpClient.layer))
    )
  )
  if (Exit.isSuccess(exit)) return "ok"
  const reason = exit.cause.reasons[0]
  return reason?._tag === "Fail" ? renderChain(reason.error) : String(exit.cause)
}

test("a collector that accepts the request and never answers is a send failure after the timeout", async () => {
  const url = `${receiver.url}/slow`
  expect(await exportWith({ url, timeout: "200 millis" })).toBe(`failed to send spans to '${url}': no answer within 200ms`)
})

test("header names and values the HTTP layer would reject are reported before sending", async () => {
  const url = `${receiver.url}/v1/traces`
  const before = receiver.requests.length
  expect(await exportWith({ headers: ["Bad Name=x"] })).toBe(`failed to send spans to '${url}': invalid header name 'Bad …'`)
  expect(await exportWith({ headers: ["X-Token=${T}"], env: { T: "a\r\nInjected: yes" } })).toBe(
    `failed to send spans to '${url}': invalid value for header 'X-Token'`
  )
  expect(receiver.requests.length).toBe(before)
})

test("parseHeaders: split at the first '=', name trimmed, value expanded; a secret value is never quoted", () => {
  expect(Effect.runSync(parseHeaders([" A =b=c", "Auth=Bearer ${TOKEN}", "Empty="], { TOKEN: "t0k" }))).toEqual([
    ["A", "b=c"],
    ["Auth", "Bearer t0k"],
    ["Empty", ""]
  ])
  const exit = Effect.runSyncExit(parseHeaders(["Auth=sk-secret ${UNCLOSED"], {}))
  const reason = Exit.isFailure(exit) ? exit.cause.reasons[0] : undefined
  expect(reason?._tag === "Fail" ? renderChain(reason.error) : "").toBe(
    "--header 'Auth': unterminated '${' placeholder in \"<redacted>\""
  )
})

test("a malformed --header is quoted only up to its name: what follows may be a credential", () => {
  const failure = (headers: ReadonlyArray<string>) => {
    const exit = Effect.runSyncExit(parseHeaders(headers, {}))
    const reason = Exit.isFailure(exit) ? exit.cause.reasons[0] : undefined
    return reason?._tag === "Fail" ? renderChain(reason.error) : ""
  }
  expect(failure(["X-Token"])).toBe("--header 'X-Token' must be NAME=VALUE")
  expect(failure(["Authorization: Bearer sk-secret"])).toBe("--header 'Authorization: …' must be NAME=VALUE")
  expect(failure(["Authorization Bearer sk-secret"])).toBe("--header 'Authorization …' must be NAME=VALUE")
})

test("an error body that repeats a header value (or its credential) is printed with the value masked", async () => {
  const echo = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: (request) =>
      new Response(`token ${request.headers.get("authorization")?.split(" ")[1]} rejected; got ${JSON.stringify(request.headers.get("authorization"))}`, { status: 401 })
  })
  try {
    const url = `http://127.0.0.1:${echo.port}/v1/traces`
    expect(await exportWith({ url, headers: ["Authorization=Bearer ${T}"], env: { T: "sk-\"quoted\"-token" } })).toBe(
      `OTLP endpoint '${url}' answered 401 Unauthorized: token <redacted> rejected; got "<redacted>"`
    )
    // `Authorization: Basic dXNlcjpwYXNz==` splits at the padding: the name part is not echoed.
    expect(await exportWith({ url, headers: ["Authorization: Basic dXNlcjpwYXNz=="] })).toBe(
      `failed to send spans to '${url}': invalid header name 'Authorization: …'`
    )
  } finally {
    await echo.stop(true)
  }
})
