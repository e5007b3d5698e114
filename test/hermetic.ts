// Preloaded before every test file (bunfig.toml, [test] preload). Each test process gets a HOME, XDG
// directories and a working directory of its own under the temp dir, so no test, and no lait a test
// spawns with this process's environment, reads or writes the developer's history, sessions, cache or
// config (docs/history.md, docs/config.md, docs/environment.md). test/hermetic.test.ts proves it.
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

/** What the developer's environment said before this file replaced it: for the few tools that need it. */
export const developer = {
  home: process.env["HOME"] ?? os.homedir(),
  xdgDataHome: process.env["XDG_DATA_HOME"],
  cwd: process.cwd()
}

/** The directory that holds this process's HOME, XDG directories and working directory. */
export const hermeticRoot = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "lait-test-")))

const dir = (...parts: Array<string>): string => {
  const p = path.join(hermeticRoot, ...parts)
  fs.mkdirSync(p, { recursive: true, mode: 0o700 })
  return p
}

// npm keeps its package cache and settings under HOME; the release tests run `npm pack` and
// `npm cache add --prefer-offline`, which must keep finding what is already cached there. These are
// npm's files, not lait's, and a setting the developer made explicitly is left alone.
if (process.platform !== "win32") {
  process.env["npm_config_cache"] ??= path.join(developer.home, ".npm")
  const npmrc = path.join(developer.home, ".npmrc")
  if (fs.existsSync(npmrc)) process.env["npm_config_userconfig"] ??= npmrc
}

const home = dir("home")
process.env["HOME"] = home
if (process.platform === "win32") process.env["USERPROFILE"] = home
process.env["XDG_CONFIG_HOME"] = dir("home", ".config")
process.env["XDG_DATA_HOME"] = dir("home", ".local", "share")
process.env["XDG_CACHE_HOME"] = dir("home", ".cache")
process.env["XDG_STATE_HOME"] = dir("home", ".local", "state")
process.env["XDG_RUNTIME_DIR"] = dir("run")
process.chdir(dir("cwd"))

// Bun 1.4's Bun.spawn and Bun.spawnSync give a child the environment the process started with, not
// process.env as it is now (node:child_process does use process.env): without this, every test that
// spawns without an `env` would hand its child the developer's HOME again.
type SpawnOptions = { readonly env?: unknown }
const withCurrentEnv = <F extends (...args: Array<never>) => unknown>(spawn: F): F =>
  ((first: unknown, second?: SpawnOptions) => {
    const call = spawn as unknown as (first: unknown, second?: unknown) => unknown
    if (Array.isArray(first)) return call(first, second?.env === undefined ? { ...second, env: { ...process.env } } : second)
    const options = first as SpawnOptions
    return call(options.env === undefined ? { ...options, env: { ...process.env } } : options)
  }) as unknown as F
Bun.spawn = withCurrentEnv(Bun.spawn)
Bun.spawnSync = withCurrentEnv(Bun.spawnSync)

// How test/hermetic.test.ts tells that this file ran first (it must not import it: that would make
// itself hermetic and prove nothing about the other files).
Object.assign(globalThis, { [Symbol.for("lait.test.hermetic")]: { root: hermeticRoot, developer } })

// bun test has no hook after the last file; the process's own exit is the last moment.
process.on("exit", () => fs.rmSync(hermeticRoot, { recursive: true, force: true }))
