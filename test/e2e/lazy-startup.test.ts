// What the compiled binary builds before a `lait run` gets to work. effect/cli's module-level
// Intl.Segmenter (ICU break data, ≈ 2 ms) is made lazy by a build plugin (build.ts): a run that never
// measures help text must not build one. Observed with a preload (BUN_OPTIONS reaches a compiled
// binary) that counts the segmenters made.
import { afterAll, beforeAll, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as path from "node:path"
import { makeTempDir, runCli } from "./util.ts"

let dir = ""
beforeAll(() => {
  dir = makeTempDir("lazy-startup")
  fs.writeFileSync(
    path.join(dir, "count.ts"),
    `const Original = Intl.Segmenter
let made = 0
;(Intl as { Segmenter: unknown }).Segmenter = class extends Original {
  constructor(...args: ConstructorParameters<typeof Original>) {
    super(...args)
    made++
  }
}
process.on("exit", () => require("node:fs").writeSync(2, "segmenters made: " + made + "\\n"))
`
  )
  fs.writeFileSync(path.join(dir, "wf.yml"), "steps:\n  - stop: true\n")
})
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

const counted = (args: ReadonlyArray<string>) =>
  runCli(args, {
    cwd: dir,
    binary: true,
    env: { ...process.env, NO_COLOR: "1", BUN_OPTIONS: `--preload ${path.join(dir, "count.ts")}` }
  })

test("lait run builds no Intl.Segmenter; help, which measures text, still does", async () => {
  const ran = await counted(["run", "wf.yml", "41"])
  expect({ code: ran.code, stdout: ran.stdout }).toEqual({ code: 0, stdout: "41\n" })
  expect(ran.stderr).toContain("segmenters made: 0\n")
  const help = await counted(["run", "--help"])
  expect(help.code).toBe(0)
  expect(help.stderr).toMatch(/segmenters made: [1-9]/)
}, 120_000)
