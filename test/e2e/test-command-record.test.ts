// The committed cassettes of the `lait test` fixtures and of examples/tests are what their record.ts
// scripts produce today: same request keys (file names), same requests, same answers. So a fixture
// that drifted from its workflow (an edited prompt, a changed tool) is caught here, not by a
// confusing replay miss.
import { afterAll, describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as path from "node:path"
import { CASES as EXAMPLE_CASES, recordCase as recordExample } from "../../examples/tests/record.ts"
import { CASES as FIXTURE_CASES, recordCase as recordFixture } from "../fixtures/testing/record.ts"
import { ensureBinary, makeTempDir, repoRoot } from "./util.ts"

const work = makeTempDir("e2e-test-record")
afterAll(() => fs.rmSync(work, { recursive: true, force: true }))

/** name → content of every cassette in `dir`, model and tool cassettes alike (recorded_at left out). */
const cassettes = (dir: string) =>
  Object.fromEntries(
    fs.readdirSync(dir).sort().map((name) => {
      const { recorded_at: _, ...content } = JSON.parse(fs.readFileSync(path.join(dir, name), "utf8"))
      return [name, content]
    })
  )

type Recorder = (name: string, out: string) => Promise<{ code: number; stdout: string; stderr: string }>

/** Records with retries: another test may hold port 1234 for a moment. */
const recordWithRetry = async (record: Recorder, name: string, out: string) => {
  for (let attempt = 0;; attempt++) {
    const r = await record(name, out)
    if (r.code === 0 || !r.stderr.includes("cannot listen on 127.0.0.1:1234") || attempt >= 50) return r
    await Bun.sleep(200)
  }
}

const suites: ReadonlyArray<readonly [string, Readonly<Record<string, unknown>>, Recorder, string]> = [
  ["test/fixtures/testing", FIXTURE_CASES, recordFixture, path.join(repoRoot, "test/fixtures/testing/cassettes")],
  ["examples/tests", EXAMPLE_CASES, recordExample, path.join(repoRoot, "examples/tests/cassettes")]
]

for (const [label, cases, record, committed] of suites) {
  describe(label, () => {
    test("every case directory has a recording case, and back", () => {
      expect(fs.readdirSync(committed).sort()).toEqual(Object.keys(cases).sort())
    })
    for (const name of Object.keys(cases)) {
      test(`record.ts reproduces cassettes/${name}`, async () => {
        await ensureBinary()
        const out = path.join(work, label.replaceAll("/", "_"), name)
        const r = await recordWithRetry(record, name, out)
        expect({ code: r.code, stderr: r.stderr.split("\n").filter((l) => l.startsWith("lait:")) }).toEqual({ code: 0, stderr: [] })
        expect(cassettes(out)).toEqual(cassettes(path.join(committed, name)))
      }, 120_000)
    }
  })
}
