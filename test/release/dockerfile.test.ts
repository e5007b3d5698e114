// Docker cannot run here (no daemon, no image registry), so the Dockerfile's one piece of logic, the
// unpack stage's RUN script, is run with sh against archives made on the spot, with its two paths
// (/release, /lait) moved into a temporary folder; .dockerignore must let those archives through.
import { afterAll, describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as path from "node:path"
import { TARGETS } from "../../scripts/release.ts"
import { makeTempDir, repoRoot, run } from "../e2e/util.ts"

const dockerfile = fs.readFileSync(path.join(repoRoot, "Dockerfile"), "utf8")
const work = makeTempDir("dockerfile")
afterAll(() => fs.rmSync(work, { recursive: true, force: true }))

/** The unpack stage's RUN command, as sh would get it. */
const unpackScript = (): string => {
  const start = dockerfile.indexOf("RUN set -eu;")
  const end = dockerfile.indexOf("\n\n", start)
  return dockerfile.slice(start + "RUN ".length, end).replace(/\\\n/g, "\n")
}

/** A release folder with a fake lait for each musl target, and its SHA256SUMS. */
const fakeRelease = (dir: string): void => {
  fs.mkdirSync(dir, { recursive: true })
  const sums: Array<string> = []
  for (const arch of ["x64", "arm64"]) {
    const name = `lait-9.9.9-linux-${arch}-musl`
    fs.mkdirSync(path.join(dir, name))
    fs.writeFileSync(path.join(dir, name, "lait"), `#!/bin/sh\necho ${arch}\n`)
    Bun.spawnSync(["tar", "-czf", `${name}.tar.gz`, name], { cwd: dir })
    fs.rmSync(path.join(dir, name), { recursive: true })
    const hash = new Bun.CryptoHasher("sha256").update(fs.readFileSync(path.join(dir, `${name}.tar.gz`))).digest("hex")
    sums.push(`${hash}  ${name}.tar.gz\n`)
  }
  fs.writeFileSync(path.join(dir, "SHA256SUMS"), sums.join(""))
}

const unpack = (dir: string, targetArch: string) => {
  const out = path.join(dir, "out")
  fs.mkdirSync(out, { recursive: true })
  const script = unpackScript().replace("cd /release;", `cd '${dir}/release';`).replace(/ \/lait$/, ` '${out}/lait'`)
  return run(["sh", "-c", script], { cwd: dir, env: { PATH: process.env["PATH"], TARGETARCH: targetArch } })
}

describe("Dockerfile", () => {
  test("the unpack stage checks and unpacks the musl archive of the build platform", async () => {
    for (const [targetArch, arch] of [["amd64", "x64"], ["arm64", "arm64"]] as const) {
      const dir = path.join(work, targetArch)
      fakeRelease(path.join(dir, "release"))
      const r = await unpack(dir, targetArch)
      expect(r.stderr).toBe("")
      expect(r.code).toBe(0)
      expect(r.stdout).toBe(`lait-9.9.9-linux-${arch}-musl.tar.gz: OK\n`)
      expect(fs.statSync(path.join(dir, "out", "lait")).mode & 0o777).toBe(0o755)
      expect(fs.readFileSync(path.join(dir, "out", "lait"), "utf8")).toContain(`echo ${arch}`)
    }
  })

  test("a corrupted archive or an unknown platform fails the build", async () => {
    const dir = path.join(work, "corrupt")
    fakeRelease(path.join(dir, "release"))
    fs.appendFileSync(path.join(dir, "release", "lait-9.9.9-linux-x64-musl.tar.gz"), "x")
    const corrupt = await unpack(dir, "amd64")
    expect(corrupt.code).not.toBe(0)
    expect(fs.existsSync(path.join(dir, "out", "lait"))).toBe(false)
    const other = await unpack(dir, "s390x")
    expect(other.code).toBe(1)
    expect(other.stderr).toBe("no lait build for s390x\n")
  })

  test(".dockerignore lets in exactly the musl archives of the release and SHA256SUMS", () => {
    const rules = fs.readFileSync(path.join(repoRoot, ".dockerignore"), "utf8").split("\n")
      .filter((l) => l.startsWith("!")).map((l) => new Bun.Glob(l.slice(1)))
    const files = [...TARGETS.map((t) => `dist/release/lait-0.2.0-${t}.tar.gz`), "dist/release/SHA256SUMS"]
    const admitted = files.filter((f) => rules.some((g) => g.match(f)))
    expect(admitted.sort()).toEqual([
      "dist/release/SHA256SUMS",
      "dist/release/lait-0.2.0-linux-arm64-musl.tar.gz",
      "dist/release/lait-0.2.0-linux-x64-musl.tar.gz"
    ])
  })
})
