// The committed cassettes of the `lait test` fixtures and of examples/tests are what their record.ts
// scripts produce today: same request keys (file names), same requests, same answers. So a fixture
// that drifted from its workflow (an edited prompt, a changed tool) is caught here, not by a
// confusing replay miss.
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as path from "node:path"
import { CASES as EXAMPLE_CASES, recordCase as recordExample } from "../../examples/tests/record.ts"
import { lockPort1234 } from "../fixtures/port1234.ts"
import { CASES as FIXTURE_CASES, recordCase as recordFixture } from "../fixtures/testing/record.ts"
import { ensureBinary, makeTempDir, repoRoot } from "./util.ts"

const work = makeTempDir("e2e-test-record")
// The recordings listen on port 1234, where the cassettes point; other files listen there too.
let releasePort: (() => void) | undefined
beforeAll(async () => {
  releasePort = await lockPort1234()
  await ensureBinary()
}, 600_000)
afterAll(() => {
  releasePort?.()
  fs.rmSync(work, { recursive: true, force: true })
})

/** name → content of every cassette in `dir`, model and tool cassettes alike (recorded_at left out). */
const cassettes = (dir: string) =>
  Object.fromEntries(
    fs.readdirSync(dir).sort().map((name) => {
      const { recorded_at: _, ...content } = JSON.parse(fs.readFileSync(path.join(dir, name), "utf8"))
      return [name, content]
    })
  )

type Recorder = (name: string, out: string) => Promise<{ code: number; stdout: string; stderr: string }>

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
        const out = path.join(work, label.replaceAll("/", "_"), name)
        const r = await record(name, out)
        expect({ code: r.code, stderr: r.stderr.split("\n").filter((l) => l.startsWith("lait:")) }).toEqual({ code: 0, stderr: [] })
        expect(cassettes(out)).toEqual(cassettes(path.join(committed, name)))
      }, 120_000)
    }
  })
}
