// examples/release-notes: the README's first command. Its cassettes replay from a copy of the example
// with no model server, a changed request misses with a diff, and record.ts reproduces the cassettes.
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as net from "node:net"
import * as path from "node:path"
import { startOpenAiServer } from "../fixtures/openai-server.ts"
import { lockPort1234 } from "../fixtures/port1234.ts"
import { outcome, prepareCli, workspace } from "./model-harness.ts"
import { repoRoot } from "./util.ts"

const example = path.join(repoRoot, "examples", "release-notes")
const ws = workspace("e2e-model-example")
// The example's alias points at port 1234, where this file listens; other test files do too.
let releasePort: (() => void) | undefined
beforeAll(async () => {
  releasePort = await lockPort1234()
  await prepareCli()
  fs.cpSync(example, path.join(ws.dir, "examples", "release-notes"), { recursive: true })
}, 300_000)
afterAll(() => {
  releasePort?.()
  ws.remove()
})

const command = ["run", "examples/release-notes/release-notes.yml", "--replay", "examples/release-notes/cassettes"]

const expectedNotes = [
  "# Release 0.9.0",
  "",
  "lait 0.9.0 makes model calls reproducible: record a run once, replay it offline, and keep going when a model " +
  "endpoint is down.",
  "",
  "- Record every model answer of a run with `--record DIR`; each answer is saved as a cassette named after its request.",
  "- Replay a recorded run with `--replay DIR`, fully offline: no request ever reaches a model server.",
  "- A damaged or expired cache entry is now treated as a miss and re-requested instead of failing the run.",
  "- Breaking: a model alias is now a list of endpoints, and lait falls back to the next one on a 5xx, a 429 or a " +
  "refused connection.",
  ""
].join("\n")

const port1234Free = (): Promise<boolean> =>
  new Promise((resolve) => {
    const probe = net.createServer()
    probe.once("error", () => resolve(false))
    probe.listen(1234, "127.0.0.1", () => probe.close(() => resolve(true)))
  })

describe("examples/release-notes", () => {
  test("replays from the recorded cassettes with no server: notes on stdout, progress and usage on stderr", async () => {
    const free = await port1234Free()
    // Where the workflow's alias points: if no program outside the tests holds the port, listen there and count.
    const listener = free ? startOpenAiServer({ port: 1234 }) : undefined
    try {
      const r = await ws.lait([...command, "--show-usage"])
      expect(outcome(r)).toEqual({
        code: 0,
        stdout: expectedNotes,
        stderr: [
          "==> release-notes: turns a commit log into release notes",
          "[1] changes",
          "[2] notable",
          "[3] bullets",
          "    -> iterating over 4 item(s)",
          "    -> item 1/4",
          "[4] bullet",
          "    -> item 2/4",
          "[5] bullet",
          "    -> item 3/4",
          "[6] bullet",
          "    -> item 4/4",
          "[7] bullet",
          "[8] headline",
          "usage:",
          "  changes: prompt=296 completion=188 total=484",
          "  bullet: prompt=346 completion=96 total=442 (4 requests)",
          "  headline: prompt=187 completion=31 total=218",
          "  total: prompt=829 completion=315 total=1144 (6 requests)",
          ""
        ].join("\n")
      })
      expect(listener?.requests ?? []).toHaveLength(0)
    } finally {
      await listener?.stop()
    }
  })

  test("another input is another request: the miss names the field that changed", async () => {
    const r = await ws.lait([...command, "--input", "version=1.0.0"])
    expect(r.code).toBe(1)
    expect(r.stdout).toBe("")
    expect(r.stderr).toStartWith("==> release-notes: turns a commit log into release notes\n[1] changes\n" +
      "lait: no recorded cassette for this request (model 'qwen2.5-7b-instruct') at 'examples/release-notes/cassettes/")
    expect(r.stderr).toContain(
      "differs at messages[1].content (recorded \"…ttached log for release 0.9.0: its kind, a one-l…\", " +
        "requested \"…ttached log for release 1.0.0: its kind, a one-l…\")\n"
    )
  })

  test("record.ts reproduces the committed cassettes (same keys, requests and answers)", async () => {
    if (!(await port1234Free())) {
      console.warn("note: 127.0.0.1:1234 is in use by a program outside the tests; skipping the re-recording check")
      return
    }
    const { record } = await import("../../examples/release-notes/record.ts")
    const out = path.join(ws.dir, "rerecorded")
    const result = await record(out)
    expect(result).toMatchObject({ code: 0, stdout: expectedNotes })
    const committed = path.join(example, "cassettes")
    const names = fs.readdirSync(committed).sort()
    expect(fs.readdirSync(out).sort()).toEqual(names)
    for (const name of names) {
      const strip = (file: string) => {
        const { recorded_at: _, ...rest } = JSON.parse(fs.readFileSync(file, "utf8")) as Record<string, unknown>
        return rest
      }
      expect(strip(path.join(out, name))).toEqual(strip(path.join(committed, name)))
    }
  }, 60_000)
})
