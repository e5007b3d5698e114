// `npm run release`: one archive per supported platform in dist/release/, plus SHA256SUMS.
//
//   bun scripts/release.ts [--target <name>]... [--out <dir>]
//
// Each target is compiled by build.ts (which fetches the target's Bun runtime through npm once, so a
// second run works offline from npm's cache) and packed as lait-<version>-<target>.tar.gz (.zip for
// Windows) holding lait[.exe], README.md and LICENSE under a lait-<version>-<target>/ folder; install.sh
// is published beside them.
// Everything is assembled in a staging folder that replaces <dir> only when every target succeeded:
// a failed release leaves no partial archive and no stale SHA256SUMS.
import { copyFile, mkdir, readdir, rename, rm, stat } from "node:fs/promises"
import { basename, join, relative, resolve } from "node:path"

const root = resolve(import.meta.dir, "..")
const usage = "usage: bun scripts/release.ts [--target <name>]... [--out <dir>]   e.g. --target linux-arm64"

/** Every platform a release ships, named as in the archive names (Bun's target without `bun-`). */
export const TARGETS = [
  "linux-x64",
  "linux-x64-baseline",
  "linux-arm64",
  "linux-x64-musl",
  "linux-x64-musl-baseline",
  "linux-arm64-musl",
  "darwin-x64",
  "darwin-x64-baseline",
  "darwin-arm64",
  "windows-x64",
  "windows-x64-baseline"
] as const

const fail = (message: string, code = 1): never => {
  process.stderr.write(`release: ${message}\n`)
  process.exit(code)
}

const parseArgs = (args: ReadonlyArray<string>): { targets: Array<string>; out: string } => {
  const targets: Array<string> = []
  let out = join(root, "dist", "release")
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    if (arg === "--help" || arg === "-h") {
      process.stdout.write(`${usage}\ntargets: ${TARGETS.join(", ")}\n`)
      process.exit(0)
    }
    const [flag, inline] = arg.startsWith("--") && arg.includes("=") ? arg.split(/=(.*)/s, 2) : [arg, undefined]
    if (flag !== "--target" && flag !== "--out") {
      return fail(`unknown ${arg.startsWith("-") ? "flag" : "argument"} '${arg}' (${usage})`, 2)
    }
    const value = inline ?? args[++i]
    if (value === undefined || value === "" || value.startsWith("-")) return fail(`${flag} needs a value (${usage})`, 2)
    if (flag === "--out") out = resolve(value)
    else if (!(TARGETS as ReadonlyArray<string>).includes(value)) {
      return fail(`unknown target '${value}'; the targets are ${TARGETS.join(", ")}`, 2)
    } else if (!targets.includes(value)) targets.push(value)
  }
  return { targets: targets.length === 0 ? [...TARGETS] : targets, out }
}

interface Output {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

const exec = async (argv: ReadonlyArray<string>, cwd: string): Promise<Output> => {
  const proc = Bun.spawn([...argv], { cwd, stdin: "ignore", stdout: "pipe", stderr: "pipe" })
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited
  ])
  return { code, stdout, stderr }
}

const mib = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(1)} MiB`

/** Compiles one target with build.ts; the binary's path in dist/. */
const compile = async (target: string): Promise<string> => {
  const r = await exec([process.execPath, join(root, "build.ts"), "--target", `bun-${target}`], root)
  // build.ts reports a missing runtime (no network, no npm cache) as its last stderr line.
  const lines = r.stderr.trim().split("\n").filter((l) => l !== "")
  for (const line of lines.slice(0, r.code === 0 ? undefined : -1)) {
    if (line.startsWith("build.ts: fetching ")) process.stderr.write(`release: ${target}: ${line.slice(10)}\n`)
  }
  if (r.code !== 0) {
    const reason = (lines.at(-1) ?? `build.ts exited with ${r.code}`).replace(/^build\.ts: /, "")
    throw new Error(`cannot build target ${target}: ${reason}`)
  }
  return join(root, "dist", `lait-bun-${target}${target.startsWith("windows-") ? ".exe" : ""}`)
}

const gnuTar = async (): Promise<boolean> => (await exec(["tar", "--version"], root)).stdout.includes("GNU tar")

/** Packs `dir` (a folder inside `cwd`) as `archive`. */
const pack = async (cwd: string, dir: string, archive: string, gnu: boolean): Promise<void> => {
  // Same owner and order on every machine, so that the archives differ only where the files do.
  const argv = archive.endsWith(".zip")
    ? ["zip", "-q", "-X", "-r", archive, dir]
    : ["tar", ...(gnu ? ["--owner=0", "--group=0", "--numeric-owner", "--sort=name"] : []), "-czf", archive, dir]
  const r = await exec(argv, cwd)
  if (r.code !== 0) throw new Error(`${argv[0]} failed for ${basename(archive)}: ${r.stderr.trim().split("\n")[0]}`)
}

const sha256 = async (path: string): Promise<string> => {
  const hasher = new Bun.CryptoHasher("sha256")
  for await (const chunk of Bun.file(path).stream()) hasher.update(chunk)
  return hasher.digest("hex")
}

const main = async (): Promise<void> => {
  const { targets, out } = parseArgs(process.argv.slice(2))
  const { version } = (await Bun.file(join(root, "package.json")).json()) as { version: string }
  const needsZip = targets.some((t) => t.startsWith("windows-"))
  if (needsZip && Bun.which("zip") === null) {
    return fail("the Windows archives are .zip files and `zip` is not on PATH; install it (apt-get install zip)")
  }
  if (Bun.which("tar") === null) return fail("`tar` is not on PATH")
  const gnu = await gnuTar()

  const staging = `${out}.${process.pid}.tmp`
  await rm(staging, { recursive: true, force: true })
  await mkdir(staging, { recursive: true })
  const started = performance.now()
  const rows: Array<{ target: string; archive: string; binary: number; size: number }> = []
  try {
    for (const target of targets) {
      const binary = await compile(target)
      const name = `lait-${version}-${target}`
      const dir = join(staging, name)
      await mkdir(dir)
      const exe = target.startsWith("windows-") ? "lait.exe" : "lait"
      const binarySize = (await stat(binary)).size
      // --out may be on another file system than dist/, where rename cannot go.
      await rename(binary, join(dir, exe)).catch(async () => {
        await copyFile(binary, join(dir, exe))
        await rm(binary, { force: true })
      })
      await Bun.write(join(dir, "README.md"), Bun.file(join(root, "README.md")))
      await Bun.write(join(dir, "LICENSE"), Bun.file(join(root, "LICENSE")))
      const archive = `${name}${target.startsWith("windows-") ? ".zip" : ".tar.gz"}`
      await pack(staging, name, archive, gnu)
      await rm(dir, { recursive: true, force: true })
      const size = (await stat(join(staging, archive))).size
      rows.push({ target, archive, binary: binarySize, size })
      process.stderr.write(`release: ${target}: ${archive} ${mib(size)} (binary ${mib(binarySize)})\n`)
    }
    // Published beside the archives so that the one-line install fetches the installer of the release.
    await Bun.write(join(staging, "install.sh"), Bun.file(join(root, "install.sh")))
    // The format of `sha256sum`, so that `sha256sum -c SHA256SUMS` checks the downloads.
    const archives = (await readdir(staging)).filter((f) => f.startsWith("lait-") || f === "install.sh").sort()
    const sums = await Promise.all(archives.map(async (f) => `${await sha256(join(staging, f))}  ${f}\n`))
    await Bun.write(join(staging, "SHA256SUMS"), sums.join(""))
    await rm(out, { recursive: true, force: true })
    await rename(staging, out)
  } catch (error) {
    await rm(staging, { recursive: true, force: true })
    return fail(error instanceof Error ? error.message : String(error))
  }

  const width = Math.max(...rows.map((r) => r.archive.length))
  const seconds = ((performance.now() - started) / 1000).toFixed(0)
  const shown = relative(process.cwd(), out) || "."
  process.stdout.write(`${rows.length} archives, install.sh and SHA256SUMS in ${shown} (lait ${version}, ${seconds}s)\n`)
  for (const r of rows) {
    process.stdout.write(`  ${r.archive.padEnd(width)}  ${mib(r.size).padStart(9)}  (binary ${mib(r.binary)})\n`)
  }
}

if (import.meta.main) await main()
