import { describe, expect, test } from "bun:test"
import { mergeHeaders, parseHeaderFlag } from "../../src/config/headers.ts"

describe("--header text", () => {
  test("split at the first colon, both sides trimmed (curl's form)", () => {
    expect(parseHeaderFlag("X-Portkey-Provider: openai")).toEqual({ header: ["X-Portkey-Provider", "openai"] })
    expect(parseHeaderFlag("Authorization:Bearer a:b ")).toEqual({ header: ["Authorization", "Bearer a:b"] })
    expect(parseHeaderFlag("X-Empty:")).toEqual({ header: ["X-Empty", ""] })
  })

  test("what cannot be sent is a problem that never quotes the value", () => {
    expect(parseHeaderFlag("sk-secret")).toEqual({ problem: "expected 'NAME: VALUE'" })
    expect(parseHeaderFlag(" : sk-secret")).toEqual({ problem: "the name before ':' is empty" })
    expect(parseHeaderFlag("bad name: sk-secret")).toEqual({ problem: "the name is not a valid HTTP header name" })
    expect(parseHeaderFlag("Content-Length: 3")).toEqual({ problem: "'Content-Length' is set by lait itself" })
    expect(parseHeaderFlag("X-A: caf\u00e9\u2603")).toEqual({ problem: "the value of 'X-A' is not a valid HTTP header value" })
  })
})

test("mergeHeaders: names in lower case, a later header replaces one of the same name", () => {
  expect(mergeHeaders({ "X-A": "1", "x-b": "2" }, [["x-a", "3"], ["X-C", "4"]])).toEqual({ "x-a": "3", "x-b": "2", "x-c": "4" })
})
