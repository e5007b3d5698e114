import { afterAll, describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { type KeyInput, keyMaterial, requestKey } from "../../../src/model/cassette/key.ts"
import { movedRecordings as searchMoved } from "../../../src/model/cassette/moved.ts"
import { FileLoader } from "../../../src/platform/FileLoader.ts"
import { Effect } from "effect"

/** The search reads through FileLoader; run it to its answer. */
const movedRecordings = (...args: Parameters<typeof searchMoved>) =>
  Effect.runSync(searchMoved(...args).pipe(Effect.provide(FileLoader.layer)))

const root = fs.mkdtempSync(path.join(os.tmpdir(), "lait-cassette-moved-"))
afterAll(() => fs.rmSync(root, { recursive: true, force: true }))

const input = (base_url: string, content = "hi", model_id = "m"): KeyInput => ({
  base_url,
  model_id,
  max_tokens: 5,
  messages: [{ role: "user", content }],
  tools: [],
  response_format: null
})

/** A cassette as `lait run --record` writes it: named by the key, the request stored. */
const write = (dir: string, k: KeyInput, answer = "ok") => {
  fs.mkdirSync(dir, { recursive: true })
  const file = path.join(dir, `${requestKey(k)}.json`)
  fs.writeFileSync(file, JSON.stringify({ recorded_at: "2026-01-01T00:00:00Z", request: JSON.parse(keyMaterial(k)), response: { answer } }))
  return file
}

describe("movedRecordings", () => {
  test("finds the recording that differs only in the base URL; never one that differs elsewhere", () => {
    const dir = path.join(root, "one")
    const file = write(dir, input("http://a/v1"))
    write(dir, input("http://a/v1", "other prompt"))
    write(dir, input("http://a/v1", "hi", "other-model"))
    fs.writeFileSync(path.join(dir, "tool-x.json"), JSON.stringify({ kind: "tool", request: { base_url: "http://a/v1" } }))
    expect(movedRecordings(dir, input("http://b/v1"))).toEqual([{ path: file, recordedUrl: "http://a/v1" }])
    expect(movedRecordings(dir, input("http://b/v1", "unrecorded"))).toEqual([])
    expect(movedRecordings(path.join(root, "nowhere"), input("http://b/v1"))).toEqual([])
  })

  test("sees a recording added later (the directory changed), and lists every match", () => {
    const dir = path.join(root, "two")
    const first = write(dir, input("http://a/v1"))
    expect(movedRecordings(dir, input("http://b/v1")).map((m) => m.path)).toEqual([first])
    const second = write(dir, input("http://c/v1"))
    expect(movedRecordings(dir, input("http://b/v1")).map((m) => m.path)).toEqual([first, second].sort())
  })

  test("reads the directory once: a file rewritten in place (the directory unchanged) is not read again", () => {
    const dir = path.join(root, "cached")
    const file = write(dir, input("http://a/v1"))
    fs.utimesSync(dir, 1_700_000_000, 1_700_000_000)
    expect(movedRecordings(dir, input("http://b/v1"))).toHaveLength(1)
    fs.writeFileSync(file, "{}")
    fs.utimesSync(dir, 1_700_000_000, 1_700_000_000)
    expect(movedRecordings(dir, input("http://b/v1"))).toHaveLength(1)
  })
})
