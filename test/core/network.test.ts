// How a request that got no answer is described: the runtime's codes become plain words wherever the
// error sits (a bare fetch error, Effect's HttpClientError, an SDK's wrapper), and what has no code
// loses the runtime's advice to programmers.
import { expect, test } from "bun:test"
import { describeNetworkFailure } from "../../src/core/network.ts"

const fetchError = (code: string, message: string) => Object.assign(new TypeError(message), { code })

test("codes become plain words, however deep the fetch error sits", () => {
  const refused = fetchError("ECONNREFUSED", "ECONNREFUSED: Unable to connect. Is the computer able to access the url?")
  expect(describeNetworkFailure(refused)).toBe("connection refused")
  expect(describeNetworkFailure({ _tag: "HttpClientError", reason: { _tag: "TransportError", cause: refused } })).toBe(
    "connection refused"
  )
  expect(describeNetworkFailure(new Error("wrapped", { cause: refused }))).toBe("connection refused")
  expect(describeNetworkFailure(fetchError("ECONNRESET", "ECONNRESET: The socket connection was closed unexpectedly."))).toBe(
    "connection reset"
  )
  expect(describeNetworkFailure(fetchError("ENOTFOUND", "getaddrinfo ENOTFOUND nowhere.invalid"))).toBe("host not found")
  expect(describeNetworkFailure(fetchError("ETIMEDOUT", "x"))).toBe("timed out")
  expect(describeNetworkFailure({ reason: { _tag: "InvalidUrlError" } })).toBe("invalid URL")
})

test("without a known code: the innermost message, without the runtime's advice", () => {
  expect(describeNetworkFailure(fetchError("EWHATEVER", "EWHATEVER: Unable to connect. Is the computer able to access the url?"))).toBe(
    "EWHATEVER: Unable to connect."
  )
  expect(
    describeNetworkFailure(new TypeError("socket closed. For more information, pass `verbose: true` in the second argument to fetch()"))
  ).toBe("socket closed.")
  expect(describeNetworkFailure("plain text")).toBe("plain text")
})
