import { afterAll, describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { closestRecording } from "../../src/model/cassetteDiff.ts"
import type { KeyInput } from "../../src/model/requestKey.ts"

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
})
