// Compiles src/main.ts into a single executable: `bun build.ts [--target <bun-target>]`.
// Host build → dist/lait. `--target bun-linux-arm64` → dist/lait-bun-linux-arm64 (`.exe` for Windows).
//
// Cross targets: Bun would download the target's runtime itself, but always from the hard-coded
// https://registry.npmjs.org and outside npm's cache, proxy and registry settings. The same runtime is
// the npm package `@oven/bun-<os>-<arch>[-musl][-baseline]`, so we fetch it with `npm pack` (which
// honours .npmrc and serves from npm's cache when offline) and hand it to Bun as `executablePath`.
import { mkdir, rename, rm, stat } from "node:fs/promises"
import { join } from "node:path"

const root = import.meta.dir
const entry = join(root, "src", "main.ts")
// Bun does not follow `new Worker(url)`: a worker is embedded only when named as an entrypoint. With
// `root` at src/ it lands at lang/jqWorker.ts beside the entry, where src/lang/jqRunner.ts looks.
const workers = [join(root, "src", "lang", "jqWorker.ts")]
const distDir = join(root, "dist")
// LAIT_BUILD_CACHE moves it (tests use an empty one to check what happens when npm must fetch).
const runtimeCache = process.env["LAIT_BUILD_CACHE"] || join(root, "node_modules", ".cache", "lait-build")
const usage = "usage: bun build.ts [--target <bun-target>]   e.g. --target bun-linux-arm64"

class UsageError extends Error {}

const fail = (message: string, code: number): never => {
  process.stderr.write(`build.ts: ${message}\n`)
  process.exit(code)
}

const parseArgs = (args: ReadonlyArray<string>): { target: string | undefined } => {
  let target: string | undefined
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    if (arg === "--help" || arg === "-h") {
      process.stdout.write(`${usage}\n`)
      process.exit(0)
    }
    let value: string | undefined
    if (arg === "--target") value = args[++i]
    else if (arg.startsWith("--target=")) value = arg.slice("--target=".length)
    else throw new UsageError(`unknown ${arg.startsWith("-") ? "flag" : "argument"} '${arg}' (${usage})`)
    if (value === undefined || value === "" || value.startsWith("-")) {
      throw new UsageError(`--target needs a value such as bun-linux-arm64 (${usage})`)
    }
    if (target !== undefined) throw new UsageError("--target given more than once")
    target = value
  }
  return { target }
}

interface Platform {
  readonly os: "linux" | "darwin" | "windows" | "freebsd"
  readonly arch: "x64" | "arm64"
  readonly musl: boolean
  readonly baseline: boolean
}

// Mirrors Bun's own target grammar (tokens after `bun-`, any order) so that what we fetch is exactly
// the runtime Bun would have downloaded for the same string.
const parseTarget = (target: string): Platform => {
  const tokens = target.split("-")
  if (tokens[0] !== "bun" || tokens.length < 2) {
    throw new UsageError(`target '${target}' must look like bun-<os>-<arch>, e.g. bun-linux-arm64`)
  }
  let os: Platform["os"] | undefined
  let arch: Platform["arch"] | undefined
  let musl = false
  let baseline = false
  for (const token of tokens.slice(1)) {
    if (token === "linux" || token === "darwin" || token === "windows" || token === "freebsd") os = token
    else if (token === "macos") os = "darwin"
    else if (token === "x64" || token === "x86_64" || token === "amd64") arch = "x64"
    else if (token === "arm64" || token === "aarch64") arch = "arm64"
    else if (token === "musl") musl = true
    else if (token === "baseline") baseline = true
    else if (token === "modern") baseline = false
    else if (/^v\d/.test(token)) {
      // The bytecode cache is only valid for the Bun that produced it, i.e. this one.
      throw new UsageError(
        `target '${target}': a Bun version in the target is not supported; build.ts always uses Bun ${Bun.version}`
      )
    } else throw new UsageError(`target '${target}': unknown part '${token}'`)
  }
  if (os === undefined) throw new UsageError(`target '${target}' names no OS (linux, darwin, windows, freebsd)`)
  if (musl && os !== "linux") throw new UsageError(`target '${target}': musl exists only on linux`)
  // Bun's rules: arch defaults to x64; there is no baseline arm64 build.
  arch ??= "x64"
  if (arch === "arm64") baseline = false
  return { os, arch, musl, baseline }
}

const npmPackageOf = (p: Platform): string =>
  `@oven/bun-${p.os}-${p.arch === "arm64" ? "aarch64" : "x64"}${p.musl ? "-musl" : ""}${p.baseline ? "-baseline" : ""}`

/** The canonical spelling of a target, as `lait --version --json` reports it. */
const targetName = (p: Platform): string =>
  `bun-${p.os}-${p.arch}${p.musl ? "-musl" : ""}${p.baseline ? "-baseline" : ""}`

const hostPlatform = async (): Promise<Platform> => ({
  os: process.platform === "win32" ? "windows" : (process.platform as Platform["os"]),
  arch: process.arch === "arm64" ? "arm64" : "x64",
  // The host build embeds the running Bun, which is a musl build exactly when the system is.
  musl:
    process.platform === "linux" &&
    (await Array.fromAsync(new Bun.Glob("ld-musl-*").scan("/lib")).catch(() => [])).length > 0,
  baseline: false
})

/** The commit being built, or "unknown" outside a git checkout (a source tarball). */
const gitCommit = (): string => {
  const git = Bun.which("git")
  if (git === null) return "unknown"
  const r = Bun.spawnSync([git, "rev-parse", "--short=7", "HEAD"], { cwd: root, stdout: "pipe", stderr: "ignore" })
  const commit = r.stdout.toString().trim()
  return r.exitCode === 0 && /^[0-9a-f]{7,}$/.test(commit) ? commit : "unknown"
}

/** SOURCE_DATE_EPOCH (reproducible builds) when set, else now; an ISO 8601 UTC timestamp. */
const buildDate = (): string => {
  const epoch = process.env["SOURCE_DATE_EPOCH"]
  if (epoch !== undefined && /^\d+$/.test(epoch)) return new Date(Number(epoch) * 1000).toISOString()
  return new Date().toISOString()
}

const exists = async (path: string): Promise<boolean> => (await stat(path).catch(() => undefined)) !== undefined

/** stdout of `npm <args> --json`; on failure, npm's own one-line summary of the error. */
const npmJson = async (npm: string, args: ReadonlyArray<string>, cwd: string): Promise<unknown> => {
  const proc = Bun.spawn([npm, ...args, "--json"], { cwd, stdin: "ignore", stdout: "pipe", stderr: "pipe" })
  const [out, err, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited
  ])
  let parsed: unknown
  try {
    parsed = JSON.parse(out)
  } catch {
    parsed = undefined
  }
  if (code === 0 && parsed !== undefined) return parsed
  const summary = (parsed as { error?: { summary?: string } } | undefined)?.error?.summary
  throw new Error(`npm ${args.join(" ")} exited with ${code}: ${summary ?? err.trim().split("\n")[0]}`)
}

/** Path of the Bun runtime for `platform`, fetched through npm on first use. */
const crossRuntime = async (platform: Platform): Promise<string> => {
  const pkg = npmPackageOf(platform)
  const exe = platform.os === "windows" ? "bun.exe" : "bun"
  // npm installs the host's runtime as an optional dependency of `bun`; reuse it when it is the one
  // (bun's postinstall may have moved the binary out of it, hence the check for the file itself).
  const installed = join(root, "node_modules", pkg)
  if (await exists(join(installed, "bin", exe))) {
    const { version } = (await Bun.file(join(installed, "package.json")).json()) as { version: string }
    if (version === Bun.version) return join(installed, "bin", exe)
  }
  const dir = join(runtimeCache, `${pkg.replace("/", "+")}-${Bun.version}`)
  const binary = join(dir, "package", "bin", exe)
  if (await exists(binary)) return binary

  const npm = Bun.which("npm")
  if (npm === null) {
    return fail(`cross-compiling needs ${pkg}@${Bun.version} from the npm registry, but npm is not on PATH`, 1)
  }
  // Unpacked beside the cache entry and renamed into place, so a concurrent build never sees half a runtime.
  const staging = `${dir}.${process.pid}.tmp`
  await rm(staging, { recursive: true, force: true })
  await mkdir(staging, { recursive: true })
  process.stderr.write(`build.ts: fetching ${pkg}@${Bun.version} with npm\n`)
  try {
    const packed = (await npmJson(
      npm,
      ["pack", `${pkg}@${Bun.version}`, "--prefer-offline", "--pack-destination", staging],
      staging
    )) as Array<{ filename: string }>
    const tarball = join(staging, packed[0]!.filename)
    await new Bun.Archive(await Bun.file(tarball).bytes()).extract(staging, { glob: `package/bin/${exe}` })
    await rm(tarball, { force: true })
  } catch (error) {
    await rm(staging, { recursive: true, force: true })
    return fail(
      `cannot fetch ${pkg}@${Bun.version} (the Bun runtime for this target) through npm, and Bun cannot ` +
        `cross-compile without it: ${error instanceof Error ? error.message : String(error)}`,
      1
    )
  }
  if (!(await exists(join(staging, "package", "bin", exe)))) {
    await rm(staging, { recursive: true, force: true })
    return fail(`${pkg}@${Bun.version} contains no package/bin/${exe}`, 1)
  }
  // Only a broken entry is removed; a complete one may be in use by a concurrent build.
  if (!(await exists(binary))) await rm(dir, { recursive: true, force: true })
  await rename(staging, dir).catch(async (error: unknown) => {
    // Another build put the same runtime in place first; use theirs.
    await rm(staging, { recursive: true, force: true })
    if (!(await exists(binary))) throw error
  })
  return binary
}

/**
 * The root help text from the sources' own command tree, rendered by effect/cli in a separate process
 * (src/cli/rootHelp.ts), for the fast path of `lait --help` (src/cli/fastPath.ts).
 */
const rootHelp = async (): Promise<string> => {
  const proc = Bun.spawn([process.execPath, join(root, "src", "cli", "rootHelp.ts")], {
    cwd: root,
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe"
  })
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
  if (code !== 0) return fail(`rendering the root help (src/cli/rootHelp.ts) failed:\n${err}`, 1)
  const help = JSON.parse(out) as { plain: string; color: string }
  return JSON.stringify({ plain: help.plain, color: help.color })
}

/**
 * Regenerates src/cli/leanSpec.generated.json, the flags of `lait run` and `lait eval` as the lean
 * reader (src/cli/leanArgs.ts) knows them, from the command tree (scripts/gen-lean-spec.ts).
 */
const generateLeanSpec = async (): Promise<void> => {
  const proc = Bun.spawn([process.execPath, join(root, "scripts", "gen-lean-spec.ts")], {
    cwd: root,
    stdin: "ignore",
    stdout: "ignore",
    stderr: "pipe"
  })
  const [err, code] = await Promise.all([new Response(proc.stderr).text(), proc.exited])
  if (code !== 0) fail(`generating the lean reader's flags (scripts/gen-lean-spec.ts) failed:\n${err}`, 1)
}

const main = async () => {
  const { target } = parseArgs(process.argv.slice(2))
  const platform = target === undefined ? undefined : parseTarget(target)
  // Bun appends .exe to a Windows outfile that lacks it, which would break the rename below.
  const exe = (platform?.os ?? (process.platform === "win32" ? "windows" : "")) === "windows" ? ".exe" : ""
  const name = `lait${target === undefined ? "" : `-${target}`}${exe}`
  const outfile = join(distDir, name)
  // Build beside the result and rename: a running dist/lait is never overwritten half-way.
  const tmp = join(distDir, `.${name}.${process.pid}.tmp${exe}`)
  await mkdir(distDir, { recursive: true })

  const started = performance.now()
  // lait reads .env itself (honouring --no-env, reporting a bad file as `lait: ...`); Bun's own autoload
  // would load it first regardless, and a .env it cannot read (a symlink loop) kills the binary silently.
  const compile: Bun.CompileBuildOptions = { outfile: tmp, autoloadDotenv: false, autoloadBunfig: false }
  // Read by src/version.ts for `lait --version`; a source run (no build) reports "unknown".
  const define = {
    LAIT_BUILD_COMMIT: JSON.stringify(gitCommit()),
    LAIT_BUILD_DATE: JSON.stringify(buildDate()),
    LAIT_BUILD_TARGET: JSON.stringify(targetName(platform ?? (await hostPlatform())))
  }
  if (target !== undefined) {
    compile.target = target as Bun.Build.CompileTarget
    compile.executablePath = await crossRuntime(platform!)
  }
  await generateLeanSpec()
  let result: Bun.BuildOutput
  try {
    // ESM, not the CommonJS that bytecode defaults to: dependencies (Effect's ConfigProvider) use
    // `import.meta`, which is a syntax error in a CommonJS bundle and kills the binary at start-up.
    result = await Bun.build({
      entrypoints: [entry, ...workers],
      root: join(root, "src"),
      compile,
      minify: true,
      bytecode: true,
      format: "esm",
      splitting: true,
      define: { ...define, LAIT_ROOT_HELP: await rootHelp() }
    })
  } catch (error) {
    await rm(tmp, { force: true })
    const logs = error instanceof AggregateError ? error.errors.map(String).join("\n") : String(error)
    return fail(`compiling ${entry} failed:\n${logs}`, 1)
  }
  if (!result.success) {
    await rm(tmp, { force: true })
    return fail(`compiling ${entry} failed:\n${result.logs.map(String).join("\n")}`, 1)
  }
  await rename(tmp, outfile)
  const size = (await stat(outfile)).size
  const seconds = ((performance.now() - started) / 1000).toFixed(1)
  process.stdout.write(
    `built ${join("dist", name)} (${target ?? "host"}, ${(size / 2 ** 20).toFixed(0)} MiB) in ${seconds}s\n`
  )
}

await main().catch((error: unknown) => {
  if (error instanceof UsageError) return fail(error.message, 2)
  return fail(error instanceof Error ? (error.stack ?? error.message) : String(error), 1)
})
