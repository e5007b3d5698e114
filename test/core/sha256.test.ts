// sha256Hex is the request key of every cassette and cache entry: Bun's hasher and node:crypto (Deno's
// path) must agree on it for any text, and a replayed run must not load node:crypto at all.
import { expect, test } from "bun:test"
import { createHash } from "node:crypto"
import * as path from "node:path"
import { nodeSha256Hex, sha256Hex } from "../../src/core/sha256.ts"

const texts = ["", "a", "héllo wörld ✓ 🎉", "\u0000\uffff", "x".repeat(100_000), JSON.stringify({ messages: [{ role: "user", content: "hi" }] })]

test("Bun's hasher, the node:crypto fallback and createHash agree", () => {
  for (const text of texts) {
    const expected = createHash("sha256").update(text).digest("hex")
    expect(sha256Hex(text)).toBe(expected)
    expect(nodeSha256Hex(text)).toBe(expected)
  }
  expect(sha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
})

test("the replay client and the tool tape import no node:crypto (evaluating it costs milliseconds)", async () => {
  const root = path.resolve(import.meta.dir, "../..")
  for (const entry of ["src/model/Replay.ts", "src/tools/cassette/format.ts", "src/model/cassette/key.ts"]) {
    const result = await Bun.build({ entrypoints: [path.join(root, entry)], target: "bun", format: "esm" })
    expect(result.success).toBe(true)
    const code = await result.outputs[0]!.text()
    expect({ entry, imports: code.match(/^import .*["'](node:)?crypto["'];?$/gm) ?? [] }).toEqual({ entry, imports: [] })
  }
})
