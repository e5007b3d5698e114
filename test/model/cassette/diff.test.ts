import { afterAll, describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { closestRecording as searchClosest } from "../../../src/model/cassette/diff.ts"
import { FileLoader } from "../../../src/platform/FileLoader.ts"
import { Effect } from "effect"
import type { KeyInput } from "../../../src/model/cassette/key.ts"

/** The search reads through FileLoader; run it to its answer. */
const closestRecording = (...args: Parameters<typeof searchClosest>) =>
  Effect.runSync(searchClosest(...args).pipe(Effect.provide(FileLoader.layer)))

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "lait-cassette-diff-"))
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

const request: KeyInput = {
  base_url: "http://127.0.0.1:9/v1",
  model_id: "fake",
  messages: [{ role: "user", content: "hi" }],
  tools: [],
  response_format: null
}

describe("closestRecording", () => {
  test("a FIFO named *.json in the cassette directory is skipped, never opened (it would block)", () => {
    const cassettes = path.join(dir, "fifo")
    fs.mkdirSync(cassettes)
    expect(Bun.spawnSync(["mkfifo", path.join(cassettes, "0000.json")]).exitCode).toBe(0)
    expect(closestRecording(cassettes, request)).toBeUndefined()
  })

  test("a directory named *.json is skipped", () => {
    const cassettes = path.join(dir, "dir")
    fs.mkdirSync(path.join(cassettes, "0000.json"), { recursive: true })
    expect(closestRecording(cassettes, request)).toBeUndefined()
  })

  test("a replay path that is a file says so", () => {
    const file = path.join(dir, "workflow.yml")
    fs.writeFileSync(file, "steps: []\n")
    expect(closestRecording(file, request)).toBe(`'${file}' is a file, not a cassette directory`)
  })

  test("a missing directory keeps its message", () => {
    const missing = path.join(dir, "nowhere")
    expect(closestRecording(missing, request)).toBe(`the cassette directory '${missing}' does not exist or cannot be read`)
  })

  test("tool cassettes (tool-*.json) are never a model request's closest recording", () => {
    const cassettes = path.join(dir, "tools-only")
    fs.mkdirSync(cassettes)
    // Even one that looks like a model cassette: the name decides.
    fs.writeFileSync(path.join(cassettes, "tool-abc.json"), JSON.stringify({ kind: "tool", request, result: "x" }))
    fs.writeFileSync(path.join(cassettes, "tool-list-fs.json"), JSON.stringify({ kind: "tool-list", tools: [] }))
    expect(closestRecording(cassettes, request)).toBe(`'${cassettes}' holds no recordings`)
  })

  test("base URL credentials are compared and shown masked on both sides; a difference only there is explained", () => {
    const cassettes = path.join(dir, "credentials")
    fs.mkdirSync(cassettes)
    const recorded = (base_url: string) => JSON.stringify({ request: { base_url, model_id: "fake", messages: [{ role: "user", content: "hi" }] } })
    fs.writeFileSync(path.join(cassettes, "a.json"), recorded("https://me:<redacted>@h/v1?api-key=<redacted>"))
    // Same URL, another key: nothing to show but why the key still differs.
    const otherKey = closestRecording(cassettes, { ...request, base_url: "https://me:pw2@h/v1?api-key=k2" })
    expect(otherKey).toBe(
      `the closest recording, '${path.join(cassettes, "a.json")}', matches in every field it stores ` +
        "(a base URL's credentials are stored masked, yet a different one is a different request)"
    )
    // An older cassette holding the credentials as written: shown masked too.
    fs.writeFileSync(path.join(cassettes, "a.json"), recorded("https://me:old-password@h/v1"))
    const hint = closestRecording(cassettes, { ...request, base_url: "https://me:new-password@g/v1" })
    expect(hint).toContain(`differs at base_url (recorded "https://me:<redacted>@h/v1", requested "https://me:<redacted>@g/v1")`)
  })
})
