// Reading a request body whole with a cap and a deadline (src/platform/httpBody.ts), for a web
// Request as `lait proxy` gets it: a body of a declared length, and one streamed without a length.
import { expect, test } from "bun:test"
import { readJsonRequest } from "../../src/platform/httpBody.ts"

const url = "http://127.0.0.1:1/v1/chat/completions"

const withLength = (text: string, declared = String(Buffer.byteLength(text))) =>
  new Request(url, { method: "POST", headers: { "content-length": declared }, body: text })

/** A body in chunks, without a length; `end: false` leaves it open, `fail` breaks it. */
const streamed = (chunks: ReadonlyArray<string>, end: "close" | "open" | "fail" = "close") =>
  new Request(url, {
    method: "POST",
    body: new ReadableStream<Uint8Array>({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(new TextEncoder().encode(chunk))
        if (end === "close") controller.close()
        if (end === "fail") controller.error(new Error("connection reset"))
      }
    }),
    duplex: "half"
  } as RequestInit)

test("a body of a declared length is parsed", async () => {
  expect(await readJsonRequest(withLength('{"model":"m","n":1}'), 5_000, 1_000)).toEqual({
    ok: true,
    json: { model: "m", n: 1 }
  })
})

test("a declared length over the cap is refused before anything is read", async () => {
  expect(await readJsonRequest(withLength("{}", "1001"), 5_000, 1_000)).toEqual({ ok: false, problem: "too-large" })
})

test("a streamed body is read chunk by chunk, and refused once it passes the cap", async () => {
  expect(await readJsonRequest(streamed(['{"a":', '"日本"}']), 5_000, 1_000)).toEqual({ ok: true, json: { a: "日本" } })
  const flood = streamed(Array.from({ length: 20 }, () => "x".repeat(100)), "open")
  expect(await readJsonRequest(flood, 5_000, 1_000)).toEqual({ ok: false, problem: "too-large" })
})

test("a body that is not JSON, one that never ends, and one that breaks", async () => {
  expect(await readJsonRequest(withLength("not json"), 5_000, 1_000)).toEqual({ ok: false, problem: "not-json" })
  expect(await readJsonRequest(streamed(['{"a":'], "open"), 50, 1_000)).toEqual({ ok: false, problem: "timeout" })
  expect(await readJsonRequest(streamed(['{"a":'], "fail"), 5_000, 1_000)).toEqual({ ok: false, problem: "aborted" })
})

test("no body at all is not JSON", async () => {
  expect(await readJsonRequest(new Request(url, { method: "POST" }), 5_000, 1_000)).toEqual({
    ok: false,
    problem: "not-json"
  })
})
