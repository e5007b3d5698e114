// `npm run release` (scripts/release.ts) and install.sh, end to end and without the internet.
//
// Building every target takes minutes and about 1.3 GB of runtimes, so this suite builds only what it
// needs: the target install.sh picks for this machine and linux-arm64 (run under qemu). The build runs
// with npm unable to reach any registry and an empty runtime cache, after putting the runtimes into
// npm's cache: that is the "works offline once the runtimes are cached" promise. The complete release
// (all 11 targets) is the last test, run by hand with LAIT_RELEASE_FULL=1.
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as path from "node:path"
import pkg from "../../package.json" with { type: "json" }
import { TARGETS } from "../../scripts/release.ts"
import { makeTempDir, repoRoot, run } from "../e2e/util.ts"
import { qemuAarch64 } from "./qemu.ts"

const work = makeTempDir("release")
const out = path.join(work, "release")
const installSh = path.join(repoRoot, "install.sh")
const commit = Bun.spawnSync(["git", "rev-parse", "--short=7", "HEAD"], { cwd: repoRoot }).stdout.toString().trim()
// What install.sh picks here; the archive for it is the one the install tests download.
const hostTarget = Bun.spawnSync(["sh", installSh, "--print-target"]).stdout.toString().trim()
const qemu = await qemuAarch64()

/** npm that cannot reach any registry: every request goes to a closed port, and fails at once. */
const offlineNpm = {
  npm_config_proxy: "http://127.0.0.1:9",
  npm_config_https_proxy: "http://127.0.0.1:9",
  npm_config_fetch_retries: "0"
}
const npmPackageOf = (target: string) =>
  `@oven/bun-${target.replace("arm64", "aarch64")}@${Bun.version}`

const release = (args: ReadonlyArray<string>, env: Record<string, string>) =>
  run([process.execPath, path.join(repoRoot, "scripts", "release.ts"), ...args], {
    cwd: work,
    env: { ...process.env, ...env },
    timeoutMs: 600_000
  })

const unpack = (archive: string, into: string): string => {
  fs.mkdirSync(into, { recursive: true })
  const r = Bun.spawnSync(["tar", "-xzf", archive, "-C", into])
  if (r.exitCode !== 0) throw new Error(`tar -xzf ${archive}: ${r.stderr.toString()}`)
  return into
}

let built: Awaited<ReturnType<typeof release>> | undefined

beforeAll(async () => {
  expect(hostTarget).toMatch(/^(linux|darwin)-(x64|arm64)/)
  // The only network use of the suite: fill npm's cache (a no-op when the runtimes are there already).
  for (const target of new Set([hostTarget, "linux-arm64"])) {
    const r = await run(["npm", "cache", "add", npmPackageOf(target), "--prefer-offline"], { cwd: work, timeoutMs: 300_000 })
    if (r.code !== 0) throw new Error(`npm cache add ${npmPackageOf(target)} failed: ${r.stderr}`)
  }
  const runtimes = path.join(work, "runtimes")
  built = await release(["--target", hostTarget, "--target", "linux-arm64", "--out", out], {
    ...offlineNpm,
    LAIT_BUILD_CACHE: runtimes
  })
}, 600_000)

afterAll(() => fs.rmSync(work, { recursive: true, force: true }))

describe("npm run release", () => {
  test("builds the archives offline from npm's cache, with SHA256SUMS, and reports each size", () => {
    expect(built?.stderr).not.toContain("cannot")
    expect(built?.code).toBe(0)
    const names = [`lait-${pkg.version}-${hostTarget}.tar.gz`, `lait-${pkg.version}-linux-arm64.tar.gz`]
    expect(fs.readdirSync(out).sort()).toEqual([...names, "SHA256SUMS", "install.sh"].sort())
    for (const name of names) expect(built?.stdout).toMatch(new RegExp(`${name.replace(/\./g, "\\.")}\\s+\\d+\\.\\d MiB`))
    // The file `sha256sum -c` reads, covering every file but itself.
    const sums = fs.readFileSync(path.join(out, "SHA256SUMS"), "utf8")
    expect(sums.trimEnd().split("\n").map((l) => l.split("  ")[1]).sort()).toEqual([...names, "install.sh"].sort())
    const check = Bun.spawnSync(["sha256sum", "-c", "SHA256SUMS"], { cwd: out })
    expect(check.exitCode).toBe(0)
  }, 60_000)

  test("each archive holds lait, README.md and LICENSE in one folder; lait is executable", () => {
    for (const target of [hostTarget, "linux-arm64"]) {
      const name = `lait-${pkg.version}-${target}`
      const listing = Bun.spawnSync(["tar", "-tvzf", path.join(out, `${name}.tar.gz`)]).stdout.toString()
      const entries = listing.trim().split("\n").map((l) => ({ mode: l.slice(0, 10), path: l.split(/\s+/).at(-1)! }))
      expect(entries.map((e) => e.path).sort()).toEqual([`${name}/`, `${name}/LICENSE`, `${name}/README.md`, `${name}/lait`])
      expect(entries.find((e) => e.path === `${name}/lait`)?.mode).toBe("-rwxr-xr-x")
    }
  }, 60_000)

  test("the host binary reports its version, commit and target", async () => {
    const dir = unpack(path.join(out, `lait-${pkg.version}-${hostTarget}.tar.gz`), path.join(work, "host"))
    const lait = path.join(dir, `lait-${pkg.version}-${hostTarget}`, "lait")
    expect(await run([lait, "--version"], { cwd: work })).toMatchObject({ code: 0, stdout: `lait ${pkg.version} (${commit})\n` })
    const info = JSON.parse((await run([lait, "--version", "--json"], { cwd: work })).stdout)
    expect(info).toMatchObject({ version: pkg.version, commit, target: `bun-${hostTarget}` })
  }, 60_000)

  test.skipIf(qemu.path === undefined)(
    `the linux-arm64 binary runs --version under qemu${qemu.path === undefined ? ` (skipped: ${qemu.reason})` : ""}`,
    async () => {
      const dir = unpack(path.join(out, `lait-${pkg.version}-linux-arm64.tar.gz`), path.join(work, "arm64"))
      const lait = path.join(dir, `lait-${pkg.version}-linux-arm64`, "lait")
      const r = await run([qemu.path!, "-L", qemu.sysroot!, lait, "--version", "--json"], { cwd: work, timeoutMs: 120_000 })
      expect(r).toMatchObject({ code: 0, stderr: "" })
      expect(JSON.parse(r.stdout)).toMatchObject({ version: pkg.version, commit, target: "bun-linux-arm64" })
    },
    150_000
  )

  test("a runtime that cannot be fetched: one line naming the target, exit 1, the old release kept", async () => {
    const old = path.join(work, "old-release")
    fs.mkdirSync(old)
    fs.writeFileSync(path.join(old, "SHA256SUMS"), "previous\n")
    const r = await release(["--target", "linux-arm64-musl", "--out", old], {
      ...offlineNpm,
      LAIT_BUILD_CACHE: path.join(work, "empty-runtimes"),
      npm_config_cache: path.join(work, "empty-npm-cache")
    })
    expect(r.code).toBe(1)
    expect(r.stdout).toBe("")
    const lines = r.stderr.trimEnd().split("\n").filter((l) => !l.includes(": fetching "))
    expect(lines).toHaveLength(1)
    expect(lines[0]).toStartWith("release: cannot build target linux-arm64-musl: cannot fetch @oven/bun-linux-aarch64-musl@")
    expect(fs.readdirSync(old)).toEqual(["SHA256SUMS"])
    expect(fs.readFileSync(path.join(old, "SHA256SUMS"), "utf8")).toBe("previous\n")
    expect(fs.readdirSync(work).filter((f) => f.endsWith(".tmp"))).toEqual([])
  }, 120_000)

  test("usage errors exit 2 before building anything", async () => {
    for (const [args, message] of [
      [["--target", "plan9-x64"], "unknown target 'plan9-x64'"],
      [["--out"], "--out needs a value"],
      [["--fast"], "unknown flag '--fast'"]
    ] as const) {
      const r = await release(args, {})
      expect(r).toMatchObject({ code: 2, stdout: "" })
      expect(r.stderr).toStartWith(`release: ${message}`)
    }
  }, 60_000)
})

describe("install.sh against a local https server", () => {
  // A certificate for 127.0.0.1 made for this run; curl and wget are told to trust it through their
  // own settings (CURL_CA_BUNDLE, a wgetrc), so install.sh runs unchanged.
  const tls = path.join(work, "tls")
  fs.mkdirSync(tls, { recursive: true })
  const made = Bun.spawnSync(
    ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=127.0.0.1",
      "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", path.join(tls, "key.pem"), "-out", path.join(tls, "cert.pem")]
  )
  if (made.exitCode !== 0) throw new Error(`openssl req: ${made.stderr.toString()}`)
  fs.writeFileSync(path.join(tls, "wgetrc"), `ca_certificate = ${path.join(tls, "cert.pem")}\n`)
  const trust = { CURL_CA_BUNDLE: path.join(tls, "cert.pem"), WGETRC: path.join(tls, "wgetrc") }

  // A PATH with everything but curl, so install.sh takes its wget branch.
  const withoutCurl = path.join(work, "path-without-curl")
  fs.mkdirSync(withoutCurl, { recursive: true })
  for (const dir of (process.env["PATH"] ?? "").split(":").reverse()) {
    if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) continue
    for (const name of fs.readdirSync(dir)) {
      if (name === "curl") continue
      fs.rmSync(path.join(withoutCurl, name), { force: true })
      fs.symlinkSync(path.join(dir, name), path.join(withoutCurl, name))
    }
  }

  /** Serves `dir` (https unless `plain`); `/go/NAME` redirects to `redirect + NAME`. Counts requests. */
  const serve = (dir: string, options: { plain?: boolean; redirect?: string } = {}) => {
    const seen: Array<string> = []
    const server = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      ...(options.plain === true
        ? {}
        : { tls: { cert: Bun.file(path.join(tls, "cert.pem")), key: Bun.file(path.join(tls, "key.pem")) } }),
      fetch: (req) => {
        const pathname = new URL(req.url).pathname
        seen.push(pathname)
        if (options.redirect !== undefined && pathname.startsWith("/go/")) {
          return Response.redirect(options.redirect + path.basename(pathname), 302)
        }
        const file = path.join(dir, path.basename(pathname))
        return fs.existsSync(file) ? new Response(Bun.file(file)) : new Response("not found", { status: 404 })
      }
    })
    return Object.assign(server, { seen })
  }
  const httpsUrl = (server: { port: number | undefined }) => `https://127.0.0.1:${server.port}`

  const install = (baseUrl: string, dir: string, extra: Record<string, string> = {}) =>
    run(["sh", installSh], {
      cwd: work,
      env: { PATH: process.env["PATH"], HOME: work, LAIT_INSTALL_BASE_URL: baseUrl, LAIT_INSTALL_DIR: dir, ...trust, ...extra },
      timeoutMs: 120_000
    })

  test("detects this machine's target, checks the archive and installs lait", async () => {
    const server = serve(out)
    try {
      const dir = path.join(work, "bin-good")
      const r = await install(httpsUrl(server), dir)
      expect(r.stderr).toContain(`installed lait ${pkg.version} (${commit}) to ${dir}/lait`)
      expect(r).toMatchObject({ code: 0, stdout: "" })
      expect(fs.readdirSync(dir)).toEqual(["lait"])
      expect(await run([path.join(dir, "lait"), "--version"], { cwd: work })).toMatchObject({
        code: 0,
        stdout: `lait ${pkg.version} (${commit})\n`
      })
    } finally {
      await server.stop(true)
    }
  }, 150_000)

  test("refuses a corrupted archive: exit 1, checksum mismatch, the installed lait untouched", async () => {
    const corrupt = path.join(work, "corrupt")
    fs.cpSync(out, corrupt, { recursive: true })
    const archive = path.join(corrupt, `lait-${pkg.version}-${hostTarget}.tar.gz`)
    const bytes = fs.readFileSync(archive)
    bytes[bytes.length >> 1]! ^= 0xff
    fs.writeFileSync(archive, bytes)
    const server = serve(corrupt)
    try {
      const dir = path.join(work, "bin-corrupt")
      fs.mkdirSync(dir)
      fs.writeFileSync(path.join(dir, "lait"), "the previous lait\n")
      const r = await install(httpsUrl(server), dir)
      expect(r.code).toBe(1)
      expect(r.stderr).toContain(`lait-install: checksum mismatch for lait-${pkg.version}-${hostTarget}.tar.gz`)
      expect(r.stderr).toContain("not installing")
      expect(fs.readdirSync(dir)).toEqual(["lait"])
      expect(fs.readFileSync(path.join(dir, "lait"), "utf8")).toBe("the previous lait\n")
    } finally {
      await server.stop(true)
    }
  }, 150_000)

  test("a release without this target's archive, and an unreachable server, are one-line errors", async () => {
    const server = serve(out)
    try {
      const missing = await install(httpsUrl(server), path.join(work, "bin-missing"), {
        LAIT_INSTALL_TARGET: "linux-x64-musl-baseline"
      })
      expect(missing.code).toBe(1)
      expect(missing.stderr).toBe(
        `lait-install: the release at ${httpsUrl(server)} has no archive for linux-x64-musl-baseline\n`
      )
    } finally {
      await server.stop(true)
    }
    const down = await install("https://127.0.0.1:9", path.join(work, "bin-down"))
    expect(down.code).toBe(1)
    expect(down.stderr).toContain("lait-install: cannot download https://127.0.0.1:9/SHA256SUMS")
    expect(fs.existsSync(path.join(work, "bin-down"))).toBe(false)
  }, 60_000)

  test("https only: an http base URL is refused before any request, and so is a redirect to http", async () => {
    const plain = serve(out, { plain: true })
    const secure = serve(out, { redirect: `http://127.0.0.1:${plain.port}/` })
    try {
      const dir = path.join(work, "bin-http")
      const http = await install(`http://127.0.0.1:${plain.port}`, dir)
      expect(http).toMatchObject({
        code: 1,
        stderr: "lait-install: LAIT_INSTALL_BASE_URL must be an https:// URL (for a local folder use LAIT_INSTALL_FROM)\n"
      })
      const downgraded = await install(`${httpsUrl(secure)}/go`, dir)
      expect(downgraded.code).toBe(1)
      expect(downgraded.stderr).toContain(`lait-install: cannot download ${httpsUrl(secure)}/go/SHA256SUMS`)
      // Only the https server was asked; curl did not follow the redirect to http.
      expect(secure.seen).toEqual(["/go/SHA256SUMS"])
      expect(plain.seen).toEqual([])
      expect(fs.existsSync(dir)).toBe(false)
    } finally {
      await plain.stop(true)
      await secure.stop(true)
    }
  }, 60_000)

  test("with wget only: follows https redirects, refuses one to http", async () => {
    const plain = serve(out, { plain: true })
    const target = serve(out)
    const hop = serve(out, { redirect: `${httpsUrl(target)}/` })
    const down = serve(out, { redirect: `http://127.0.0.1:${plain.port}/` })
    try {
      const dir = path.join(work, "bin-wget")
      const good = await install(`${httpsUrl(hop)}/go`, dir, { PATH: withoutCurl })
      expect(good.stderr).toContain(`installed lait ${pkg.version} (${commit}) to ${dir}/lait`)
      expect(good.code).toBe(0)
      expect(target.seen).toEqual(["/SHA256SUMS", `/lait-${pkg.version}-${hostTarget}.tar.gz`])

      const bad = await install(`${httpsUrl(down)}/go`, path.join(work, "bin-wget-down"), { PATH: withoutCurl })
      expect(bad.code).toBe(1)
      expect(bad.stderr).toContain(`lait-install: refusing http://127.0.0.1:${plain.port}/SHA256SUMS: only https is allowed`)
      expect(plain.seen).toEqual([])
    } finally {
      for (const s of [plain, target, hop, down]) await s.stop(true)
    }
  }, 150_000)
})

describe("install.sh from a local folder (LAIT_INSTALL_FROM, air-gapped)", () => {
  // curl and wget that fail loudly come first on PATH: an install that touched the network would say so.
  const noNet = path.join(work, "no-network-bin")
  fs.mkdirSync(noNet, { recursive: true })
  for (const tool of ["curl", "wget"]) {
    fs.writeFileSync(path.join(noNet, tool), `#!/bin/sh\necho "${tool} was called: $*" >&2\nexit 99\n`, { mode: 0o755 })
  }
  const installFrom = (from: string, dir: string, extra: Record<string, string> = {}) =>
    run(["sh", installSh], {
      cwd: work,
      env: { PATH: `${noNet}:${process.env["PATH"]}`, HOME: work, LAIT_INSTALL_FROM: from, LAIT_INSTALL_DIR: dir, ...extra },
      timeoutMs: 120_000
    })

  test("installs the archive from the folder after checking it, without curl or wget", async () => {
    const dir = path.join(work, "bin-from")
    const r = await installFrom(out, dir, { LAIT_VERSION: pkg.version })
    expect(r.stderr).not.toContain("was called")
    expect(r.stderr).toContain(`lait-install: installing lait-${pkg.version}-${hostTarget}.tar.gz from ${out}`)
    expect(r.stderr).toContain(`installed lait ${pkg.version} (${commit}) to ${dir}/lait`)
    expect(r).toMatchObject({ code: 0, stdout: "" })
    expect((await run([path.join(dir, "lait"), "--version"], { cwd: work })).stdout).toBe(`lait ${pkg.version} (${commit})\n`)
  }, 150_000)

  test("a corrupted archive, a missing SHA256SUMS, another version, a missing folder: one line, exit 1", async () => {
    const corrupt = path.join(work, "from-corrupt")
    fs.cpSync(out, corrupt, { recursive: true })
    const archive = path.join(corrupt, `lait-${pkg.version}-${hostTarget}.tar.gz`)
    const bytes = fs.readFileSync(archive)
    bytes[bytes.length >> 1]! ^= 0xff
    fs.writeFileSync(archive, bytes)
    const dir = path.join(work, "bin-from-bad")
    const bad = await installFrom(corrupt, dir)
    expect(bad.code).toBe(1)
    expect(bad.stderr).toContain(`lait-install: checksum mismatch for lait-${pkg.version}-${hostTarget}.tar.gz`)
    expect(fs.existsSync(dir)).toBe(false)

    const nosums = path.join(work, "from-nosums")
    fs.mkdirSync(nosums)
    fs.copyFileSync(path.join(out, `lait-${pkg.version}-${hostTarget}.tar.gz`), path.join(nosums, `lait-${pkg.version}-${hostTarget}.tar.gz`))
    expect(await installFrom(nosums, dir)).toMatchObject({ code: 1, stderr: `lait-install: ${nosums} holds no SHA256SUMS\n` })

    const other = await installFrom(out, dir, { LAIT_VERSION: "0.0.1" })
    expect(other).toMatchObject({ code: 1, stderr: `lait-install: the release at ${out} has no archive for ${hostTarget} (version 0.0.1)\n` })

    const gone = path.join(work, "no-such-folder")
    expect(await installFrom(gone, dir)).toMatchObject({ code: 1, stderr: `lait-install: LAIT_INSTALL_FROM '${gone}' is not a folder\n` })
    expect(await installFrom(out, dir, { LAIT_INSTALL_BASE_URL: "http://127.0.0.1:9" })).toMatchObject({
      code: 1,
      stderr: "lait-install: set LAIT_INSTALL_FROM or LAIT_INSTALL_BASE_URL, not both\n"
    })
    expect(fs.existsSync(dir)).toBe(false)
  }, 150_000)
})

const full = process.env["LAIT_RELEASE_FULL"] === "1"
test.skipIf(!full)(
  `npm run release builds every target${full ? "" : " (skipped: slow, about 1.3 GB of runtimes; run with LAIT_RELEASE_FULL=1)"}`,
  async () => {
    const all = path.join(work, "full")
    const r = await release(["--out", all], {})
    expect(r.stderr).not.toContain("cannot")
    expect(r.code).toBe(0)
    const names = TARGETS.map((t) => `lait-${pkg.version}-${t}${t.startsWith("windows-") ? ".zip" : ".tar.gz"}`)
    expect(fs.readdirSync(all).sort()).toEqual([...names, "SHA256SUMS", "install.sh"].sort())
    expect(Bun.spawnSync(["sha256sum", "-c", "SHA256SUMS"], { cwd: all }).exitCode).toBe(0)
    for (const t of TARGETS.filter((t) => t.startsWith("windows-"))) {
      const zip = path.join(all, `lait-${pkg.version}-${t}.zip`)
      expect(Bun.spawnSync(["unzip", "-tq", zip]).exitCode).toBe(0)
      const exe = Bun.spawnSync(["unzip", "-p", zip, `lait-${pkg.version}-${t}/lait.exe`]).stdout
      expect(exe.subarray(0, 2).toString()).toBe("MZ")
    }
  },
  1_800_000
)
