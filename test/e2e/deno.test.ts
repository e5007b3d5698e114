// The same sources run under Deno through deno.json (import map of npm specifiers, npm's node_modules).
// Uses the deno binary from the `deno` devDependency; skipped, saying why, only when no deno can run.
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as path from "node:path"
import pkg from "../../package.json" with { type: "json" }
import { makeTempDir, repoRoot, run } from "./util.ts"

const exe = process.platform === "win32" ? "deno.exe" : "deno"

/** The first deno that answers `--version`, or why there is none. */
const findDeno = (): { deno: string } | { reason: string } => {
  const candidates = [
    path.join(repoRoot, "node_modules", "deno", exe),
    ...fs.globSync("node_modules/@deno/*/" + exe, { cwd: repoRoot }).map((p) => path.join(repoRoot, p)),
    Bun.which("deno")
  ].filter((p): p is string => p !== null && fs.existsSync(p))
  const failures: Array<string> = []
  for (const candidate of candidates) {
    const r = Bun.spawnSync([candidate, "--version"], { stdin: "ignore", stdout: "pipe", stderr: "pipe" })
    if (r.exitCode === 0 && r.stdout.toString().startsWith("deno ")) return { deno: candidate }
    failures.push(`${candidate} exited ${r.exitCode}: ${r.stderr.toString().trim().split("\n")[0]}`)
  }
  return {
    reason: candidates.length === 0
      ? "no deno binary found (node_modules/deno was not installed and deno is not on PATH)"
      : `no deno binary runs: ${failures.join("; ")}`
  }
}

const found = findDeno()
const deno = "deno" in found ? found.deno : ""
if ("reason" in found) console.warn(`skipping the Deno tests: ${found.reason}`)

const denoConfig = path.join(repoRoot, "deno.json")
let cwd = ""
beforeAll(() => {
  cwd = makeTempDir("deno")
})
afterAll(() => fs.rmSync(cwd, { recursive: true, force: true }))

const env = () => ({ ...process.env, NO_COLOR: "1", HOME: process.env["HOME"], XDG_CONFIG_HOME: path.join(cwd, "xdg") })
const task = (...args: Array<string>) =>
  run([deno, "task", "--quiet", "--config", denoConfig, "lait", ...args], { cwd, env: env(), timeoutMs: 120_000 })

describe.skipIf(deno === "")("lait under Deno", () => {
  test("deno task lait --version", async () => {
    expect(await task("--version")).toMatchObject({ code: 0, stdout: `lait ${pkg.version} (unknown)\n` })
  }, 120_000)

  test("deno task lait --help", async () => {
    const r = await task("--help")
    expect(r).toMatchObject({ code: 0 })
    expect(r.stdout).toContain("USAGE")
    expect(r.stdout).toContain("--version, -V")
  }, 120_000)

  test("an unknown flag keeps its exit code 2 through deno task", async () => {
    const r = await task("--no-such-flag")
    expect(r).toMatchObject({ code: 2, stdout: "" })
    expect(r.stderr).toContain("lait: ")
  }, 120_000)

  // PlatformLayer takes its non-Bun branch here; --version alone barely touches the services.
  test("PlatformLayer's file system and child processes work under Deno", async () => {
    const probe = path.join(cwd, "probe.ts")
    fs.writeFileSync(
      probe,
      `import { Effect, FileSystem, Path } from "effect"
import { ChildProcess, ChildProcessSpawner } from "effect/process"
import { PlatformLayer } from ${JSON.stringify(path.join(repoRoot, "src", "platform", "layer.ts"))}
const program = Effect.gen(function*() {
  const fs = yield* FileSystem.FileSystem
  const file = (yield* Path.Path).join(Deno.cwd(), "note.txt")
  yield* fs.writeFileString(file, "written under deno")
  const text = yield* fs.readFileString(file)
  const child = yield* (yield* ChildProcessSpawner.ChildProcessSpawner)
    .string(ChildProcess.make(Deno.execPath(), ["eval", "console.log(typeof Bun)"]))
  return { text, child: child.trim() }
})
console.log(JSON.stringify(await Effect.runPromise(Effect.provide(program, PlatformLayer))))
`
    )
    const r = await run([deno, "run", "--allow-all", "--config", denoConfig, probe], { cwd, env: env(), timeoutMs: 120_000 })
    expect(r.stderr).toBe("")
    expect(JSON.parse(r.stdout)).toEqual({ text: "written under deno", child: "undefined" })
  }, 120_000)

  // `lait proxy`'s listener takes Deno.serve here (src/platform/fetchServer.ts).
  test("the fetch listener and its body reader work under Deno", async () => {
    const probe = path.join(cwd, "listen.ts")
    fs.writeFileSync(
      probe,
      `import { listenFetch } from ${JSON.stringify(path.join(repoRoot, "src", "platform", "fetchServer.ts"))}
import { readJsonRequest } from ${JSON.stringify(path.join(repoRoot, "src", "platform", "httpBody.ts"))}
const listener = await listenFetch("127.0.0.1", 0, async (request) =>
  Response.json({ path: new URL(request.url).pathname, body: await readJsonRequest(request, 5000, 100) }))
const at = \`http://\${listener.host}:\${listener.port}\`
const asked = await (await fetch(\`\${at}/v1/x\`, { method: "POST", body: JSON.stringify({ a: 1 }) })).json()
const flood = await (await fetch(\`\${at}/v1/x\`, { method: "POST", body: "x".repeat(200) })).json()
let refused = ""
await listenFetch("127.0.0.1", listener.port, () => new Response("")).catch((e) => refused = String(e))
await listener.close()
console.log(JSON.stringify({ asked, flood: flood.body, refused: refused !== "" }))
`
    )
    const r = await run([deno, "run", "--allow-all", "--config", denoConfig, probe], { cwd, env: env(), timeoutMs: 120_000 })
    expect(r.stderr).toBe("")
    expect(JSON.parse(r.stdout)).toEqual({
      asked: { path: "/v1/x", body: { ok: true, json: { a: 1 } } },
      flood: { ok: false, problem: "too-large" },
      refused: true
    })
  }, 120_000)
})

// Runs without deno: the import map must pin what package.json pins, or Deno and Bun run different code.
test("deno.json maps every runtime dependency to the npm version package.json pins", () => {
  const imports = (JSON.parse(fs.readFileSync(denoConfig, "utf8")) as { imports: Record<string, string> }).imports
  for (const [name, version] of Object.entries(pkg.dependencies)) {
    const mapped = [imports[name], imports[`${name}/`]].filter((v) => v !== undefined)
    expect({ name, mapped: mapped.length > 0 }).toEqual({ name, mapped: true })
    for (const target of mapped) expect(target).toMatch(new RegExp(`^npm:/?${name.replace(/[/.]/g, "\\$&")}@${version.replace(/\./g, "\\.")}/?$`))
  }
  for (const target of Object.values(imports)) {
    const name = /^npm:\/?((?:@[^/]+\/)?[^@/]+)@/.exec(target)?.[1]
    expect(Object.keys(pkg.dependencies)).toContain(name!)
  }
})
