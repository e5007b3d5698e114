// The pure parts of `lait serve --mcp`: reading --http ADDR, the Host header check against DNS
// rebinding, loopback addresses, the Origin and token checks, and the input schema a workflow tool
// is offered with.
import { describe, expect, test } from "bun:test"
import type { Workflow } from "../../src/lang/model.ts"
import { workflowInputSchema } from "../../src/serve/catalog.ts"
import {
  bearerCheck,
  hostAllowed,
  isLoopbackHost,
  normalizeOrigin,
  originAllowed,
  parseHttpAddress
} from "../../src/platform/httpAccess.ts"

describe("--http ADDR", () => {
  test.each([
    ["127.0.0.1:8765", { host: "127.0.0.1", port: 8765 }],
    ["0.0.0.0:0", { host: "0.0.0.0", port: 0 }],
    ["localhost:80", { host: "localhost", port: 80 }],
    ["[::1]:9000", { host: "::1", port: 9000 }],
    ["8765", { host: "127.0.0.1", port: 8765 }],
    [":8765", { host: "127.0.0.1", port: 8765 }]
  ])("%s", (text, expected) => {
    expect(parseHttpAddress(text)).toEqual(expected)
  })

  test.each(["", "host", "host:", "1.2.3.4:65536", "::1:80", "a:b:80", "127.0.0.1:80/mcp"])("%p is refused", (text) => {
    expect(parseHttpAddress(text)).toBeUndefined()
  })
})

describe("the Host header check", () => {
  test("loopback names pass on any port; nothing else does unless allowed", () => {
    for (const host of ["localhost", "localhost:8765", "127.0.0.1:1", "[::1]:8765", "LOCALHOST:2"]) {
      expect(hostAllowed(host, [])).toBe(true)
    }
    for (const host of [undefined, "", "evil.example", "evil.example:8765", "127.0.0.1.evil.example", "localhost.evil"]) {
      expect(hostAllowed(host, [])).toBe(false)
    }
  })

  test("--allowed-host NAME allows any port, NAME:PORT that port only", () => {
    expect(hostAllowed("lait.internal:9", ["lait.internal"])).toBe(true)
    expect(hostAllowed("lait.internal", ["lait.internal"])).toBe(true)
    expect(hostAllowed("lait.internal:9", ["lait.internal:8"])).toBe(false)
    expect(hostAllowed("lait.internal:8", ["Lait.Internal:8"])).toBe(true)
  })
})

const workflow = (fields: Partial<Workflow>): Workflow => ({
  path: "/w/wf.yml",
  dir: "/w",
  inputs: [],
  defaults: {},
  models: {},
  schemas: {},
  agents: {},
  steps: [],
  ...fields
})

describe("a workflow tool's input schema", () => {
  test("without inputs: a required text `input`", () => {
    expect(workflowInputSchema(workflow({}), undefined)).toEqual({
      type: "object",
      properties: { input: { type: "string", description: expect.any(String) } },
      required: ["input"]
    })
  })

  test("with an input_schema, `input` is that schema", () => {
    const schema = { type: "object", properties: { n: { type: "integer" } }, required: ["n"] }
    const offered = workflowInputSchema(workflow({}), schema)
    expect((offered["properties"] as Record<string, unknown>)["input"]).toEqual({
      description: expect.any(String),
      ...schema
    })
  })

  test("declared inputs: `inputs` with each schema, required unless defaulted; `input` optional", () => {
    const offered = workflowInputSchema(
      workflow({
        inputs: [
          { name: "who", schema: { type: "string" }, description: "the name" },
          { name: "n", schema: { type: "integer", description: "own" }, default: 1, description: "ignored" }
        ]
      }),
      undefined
    )
    expect(offered["required"]).toEqual(["inputs"])
    expect((offered["properties"] as Record<string, unknown>)["inputs"]).toEqual({
      type: "object",
      description: "Values for the workflow's declared 'inputs:'.",
      properties: { who: { type: "string", description: "the name" }, n: { type: "integer", description: "own" } },
      required: ["who"]
    })
  })

  test("only defaulted inputs: nothing is required", () => {
    const offered = workflowInputSchema(
      workflow({ inputs: [{ name: "n", schema: { type: "integer" }, default: 1 }] }),
      undefined
    )
    expect(offered["required"]).toEqual([])
  })
})

describe("who may connect", () => {
  test("loopback bind addresses", () => {
    for (const host of ["127.0.0.1", "127.1.2.3", "localhost", "::1", "[::1]", "0:0:0:0:0:0:0:1", "::ffff:127.0.0.1"]) {
      expect({ host, loopback: isLoopbackHost(host) }).toEqual({ host, loopback: true })
    }
    for (const host of ["0.0.0.0", "::", "192.168.1.2", "10.0.0.1", "example.com", "127.0.0.1.example.com", "::ffff:10.0.0.1"]) {
      expect({ host, loopback: isLoopbackHost(host) }).toEqual({ host, loopback: false })
    }
  })

  test("Origin: none passes; loopback origins only on a loopback bind; the allow-list anywhere", () => {
    const allowed = [normalizeOrigin("https://App.Example:443")!]
    expect(allowed).toEqual(["https://app.example"])
    expect(originAllowed(undefined, { loopback: false, allowed: [] })).toBe(true)
    expect(originAllowed("http://localhost:5173", { loopback: true, allowed: [] })).toBe(true)
    expect(originAllowed("http://[::1]:80", { loopback: true, allowed: [] })).toBe(true)
    expect(originAllowed("http://localhost:5173", { loopback: false, allowed: [] })).toBe(false)
    expect(originAllowed("https://app.example", { loopback: false, allowed })).toBe(true)
    for (const origin of ["null", "", "http://app.example", "https://app.example:8443", "file://", "http://localhost.evil"]) {
      expect({ origin, ok: originAllowed(origin, { loopback: true, allowed }) }).toEqual({ origin, ok: false })
    }
  })

  test("the bearer check wants exactly `Bearer <token>`", () => {
    const check = bearerCheck("s3cret")
    expect(check("Bearer s3cret")).toBe(true)
    expect(check("bearer  s3cret ")).toBe(true)
    for (const header of [undefined, "", "s3cret", "Bearer", "Bearer s3cre", "Bearer s3cretx", "Basic s3cret", "Bearer s3cret x"]) {
      expect({ header, ok: check(header) }).toEqual({ header, ok: false })
    }
  })
})
