// Hostile model servers (test/fixtures/hostile-http.ts) against the compiled binary: an endless or
// oversized body fails within the time it takes to read the cap, with memory flat (peak RSS from
// /proc/<pid>/status VmHWM); a stalled server times out per attempt (LAIT_HTTP_TIMEOUT_MS,
// default.request_timeout) and every retry prints a `warning:` first; `Retry-After` on 429/503 is
// obeyed up to 60 s; an answer nested too deep for JSON.stringify is recorded and cached all the
// same; a cassette or cache entry lait could not read back (over 16 MiB) is refused when written.
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as path from "node:path"
import { cleanEnv, prepareCli, refusedBaseUrl, workspace } from "../e2e/model-harness.ts"
import { ensureBinary } from "../e2e/util.ts"
import {
  completionText,
  endless,
  type Handler,
  type HostileServer,
  json,
  never,
  stalledBody,
  startHostileServer
} from "../fixtures/hostile-http.ts"

const ws = workspace("hardening-responses")
beforeAll(prepareCli, 300_000)
afterAll(() => ws.remove())

// Stopped at the end of the file, not after each test: the tests that only wait run concurrently.
const servers: Array<HostileServer> = []
afterAll(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop()))
})
const serve = (handler: Handler) => {
  const s = startHostileServer(handler)
  servers.push(s)
  return s
}

const MIB = 1024 * 1024
/** A lait that grows past this is killed at once: before the cap, an endless body grew ~300 MB/s. */
const RUNAWAY_KIB = 1024 * 1024

interface Run {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
  /** Peak RSS (VmHWM) in KiB, polled every 10 ms. */
  readonly peakKiB: number
  readonly ms: number
  readonly killed: string | undefined
}

const vmHwmKiB = (pid: number): number | undefined => {
  try {
    const match = /^VmHWM:\s+(\d+) kB$/m.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))
    return match === null ? undefined : Number(match[1])
  } catch {
    return undefined
  }
}

/** A project directory: `wf.yml` asks model `m` at OPENAI_BASE_URL once; `config` is lait.config.yml. */
const project = (name: string, config?: string) => {
  const dir = path.join(ws.dir, name)
  fs.mkdirSync(dir, { recursive: true })
  fs.writeFileSync(path.join(dir, "wf.yml"), "steps:\n  - id: ask\n    model: m\n    prompt: 'hi'\n")
  if (config !== undefined) fs.writeFileSync(path.join(dir, "lait.config.yml"), config)
  return dir
}

/**
 * Runs dist/lait in `dir` against `server`, watching its memory. `until`: kill it once its stderr
 * passes this test (for waits that are the point, not worth sitting through).
 */
const lait = async (
  dir: string,
  server: HostileServer | string,
  args: ReadonlyArray<string>,
  options: { readonly env?: Record<string, string>; readonly until?: (stderr: string) => boolean } = {}
): Promise<Run> => {
  const env = {
    ...cleanEnv(ws.dir),
    OPENAI_BASE_URL: typeof server === "string" ? server : server.baseUrl,
    OPENAI_API_KEY: "sk-hostile",
    ...options.env
  }
  const started = performance.now()
  const child = Bun.spawn([await ensureBinary(), ...args], {
    cwd: dir,
    env: Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined)),
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe"
  })
  let peakKiB = 0
  let killed: string | undefined
  const kill = (why: string) => {
    killed ??= why
    child.kill("SIGKILL")
  }
  const poll = setInterval(() => {
    const now = vmHwmKiB(child.pid)
    if (now !== undefined) peakKiB = Math.max(peakKiB, now)
    if (peakKiB > RUNAWAY_KIB) kill(`peak RSS passed ${RUNAWAY_KIB} KiB`)
  }, 10)
  const guard = setTimeout(() => kill("still running after 30 s"), 30_000)
  let stderr = ""
  const readStderr = async () => {
    const decoder = new TextDecoder()
    for await (const chunk of child.stderr) {
      stderr += decoder.decode(chunk, { stream: true })
      if (options.until?.(stderr) === true) kill("until")
    }
  }
  try {
    const [stdout] = await Promise.all([new Response(child.stdout).text(), readStderr()])
    await child.exited
    return { code: child.exitCode, stdout, stderr, peakKiB, ms: performance.now() - started, killed }
  } finally {
    clearInterval(poll)
    clearTimeout(guard)
    child.kill("SIGKILL")
  }
}

/** What every outcome must look like besides its own lines: no stack, no JS error class, not killed. */
const clean = (r: Run) => {
  const shown = `exit ${r.code}, killed: ${r.killed}\n--- stdout\n${r.stdout}--- stderr\n${r.stderr}`
  expect(r.killed, shown).toBeUndefined()
  expect(r.stderr, shown).not.toMatch(/^\s+at \S/m)
  expect(r.stderr, shown).not.toMatch(/\b[A-Z]\w*Error\b|\[object Object\]|Maximum call stack/)
  return shown
}

const ok = (content: string) => () => json(completionText(content))

describe("response bodies are capped (LAIT_MAX_RESPONSE_BYTES, default 16 MiB)", () => {
  let baselineKiB = 0

  beforeAll(async () => {
    // The same binary answering one small request: what "flat" is measured against.
    const s = startHostileServer(ok("small"))
    try {
      const r = await lait(project("baseline"), s, ["run", "wf.yml", "x"])
      expect(r.stdout).toBe("small\n")
      baselineKiB = r.peakKiB
    } finally {
      await s.stop()
    }
  }, 60_000)

  test("an endless 200 body fails after 16 MiB, once, with memory flat", async () => {
    const s = serve((_, __, self) => endless(self))
    const r = await lait(project("endless"), s, ["run", "wf.yml", "x"])
    const shown = clean(r)
    expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }, shown).toEqual({
      code: 4,
      stdout: "",
      stderr: `[1] ask\nlait: response from '${s.baseUrl}' exceeds 16 MiB\n`
    })
    // Not retried and no fallback: the same request would get the same flood.
    expect(s.arrivals).toHaveLength(1)
    expect(s.sent.bytes).toBeGreaterThan(16 * MIB)
    // Generous: measured about +20 MiB over a one-request run; without the cap it grew until killed.
    expect(r.peakKiB, `peak ${r.peakKiB} KiB, baseline ${baselineKiB} KiB`).toBeLessThan(baselineKiB + 128 * 1024)
    // The body never ends: lait's finishing at all (before the harness's kill) is the cap at work.
    expect(r.killed, shown).toBeUndefined()
  }, 60_000)

  test("an endless error body is capped too; the status still decides the retry", async () => {
    const s = serve((_, __, self) => endless(self, 503))
    const r = await lait(project("endless-503"), s, ["run", "wf.yml", "x"], {
      env: { LAIT_HTTP_ATTEMPTS: "2", LAIT_HTTP_BACKOFF_MS: "0" }
    })
    const shown = clean(r)
    const failure = `the model server at '${s.baseUrl}' answered HTTP 503 (response from '${s.baseUrl}' exceeds 16 MiB)`
    expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }, shown).toEqual({
      code: 4,
      stdout: "",
      stderr: `[1] ask\nwarning: ${failure} (attempt 1/2); retrying in 0 ms\nlait: ${failure}\n`
    })
    expect(s.arrivals).toHaveLength(2)
    expect(r.peakKiB, `peak ${r.peakKiB} KiB, baseline ${baselineKiB} KiB`).toBeLessThan(baselineKiB + 128 * 1024)
  }, 60_000)

  test("LAIT_MAX_RESPONSE_BYTES changes the cap, named human-readably; under it all is well", async () => {
    const body = completionText("fits", JSON.stringify("p".repeat(2000)))
    const s = serve(() => json(body))
    const dir = project("limit")
    const cases: ReadonlyArray<readonly [string, string]> = [["1000", "1000 bytes"], ["1024", "1 KiB"], ["1500", "1.46 KiB"]]
    for (const [limit, shown] of cases) {
      const r = await lait(dir, s, ["run", "wf.yml", "x"], { env: { LAIT_MAX_RESPONSE_BYTES: limit } })
      clean(r)
      expect([r.code, r.stderr]).toEqual([4, `[1] ask\nlait: response from '${s.baseUrl}' exceeds ${shown}\n`])
    }
    const fits = await lait(dir, s, ["run", "wf.yml", "x"], { env: { LAIT_MAX_RESPONSE_BYTES: String(body.length) } })
    expect([fits.code, fits.stdout, fits.stderr]).toEqual([0, "fits\n", "[1] ask\n"])
    const bad = await lait(dir, s, ["run", "wf.yml", "x"], { env: { LAIT_MAX_RESPONSE_BYTES: "0" } })
    expect([bad.code, bad.stderr]).toEqual([
      2,
      `lait: invalid LAIT_MAX_RESPONSE_BYTES "0": expected an integer from 1 to ${1024 ** 3}\n`
    ])
  }, 60_000)

  test("a streamed (chunked) endless body stops at a changed cap: 1 MiB", async () => {
    const s = serve((_, __, self) => endless(self))
    const r = await lait(project("limit-stream"), s, ["run", "wf.yml", "x"], { env: { LAIT_MAX_RESPONSE_BYTES: String(MIB) } })
    clean(r)
    expect([r.code, r.stderr]).toEqual([4, `[1] ask\nlait: response from '${s.baseUrl}' exceeds 1 MiB\n`])
    expect(s.sent.bytes).toBeLessThan(16 * MIB)
  }, 60_000)
})

// The tests here and of Retry-After wait (timeouts, Retry-After) rather than work: they wait at once.
describe("request timeout (LAIT_HTTP_TIMEOUT_MS, default.request_timeout) and retry warnings", () => {
  test.concurrent("a server that never answers: each attempt times out, the retry is announced", async () => {
    const s = serve(never)
    const r = await lait(project("never"), s, ["run", "wf.yml", "x"], {
      env: { LAIT_HTTP_TIMEOUT_MS: "300", LAIT_HTTP_ATTEMPTS: "2", LAIT_HTTP_BACKOFF_MS: "0" }
    })
    const shown = clean(r)
    const failure = `failed to reach '${s.baseUrl}': timed out after 300 ms`
    expect({ code: r.code, stderr: r.stderr }, shown).toEqual({
      code: 4,
      stderr: `[1] ask\nwarning: ${failure} (attempt 1/2); retrying in 0 ms\nlait: ${failure}\n`
    })
    // The server never answers: lait's finishing at all is the two timeouts at work.
    expect(s.arrivals).toHaveLength(2)
    expect(r.killed, shown).toBeUndefined()
  }, 60_000)

  test.concurrent("default.request_timeout (seconds) applies to a body that stalls; LAIT_HTTP_TIMEOUT_MS wins over it", async () => {
    const s = serve(stalledBody)
    const dir = project("stalled", "default:\n  request_timeout: 1\n")
    const env = { LAIT_HTTP_ATTEMPTS: "1" }
    const fromConfig = await lait(dir, s, ["run", "wf.yml", "x"], { env })
    clean(fromConfig)
    expect([fromConfig.code, fromConfig.stderr]).toEqual([4, `[1] ask\nlait: failed to reach '${s.baseUrl}': timed out after 1 s\n`])
    expect(fromConfig.ms, "ms of a run whose request timed out after 1 s (a lower bound)").toBeGreaterThanOrEqual(1000)
    const fromEnv = await lait(dir, s, ["run", "wf.yml", "x"], { env: { ...env, LAIT_HTTP_TIMEOUT_MS: "200" } })
    clean(fromEnv)
    expect([fromEnv.code, fromEnv.stderr]).toEqual([4, `[1] ask\nlait: failed to reach '${s.baseUrl}': timed out after 200 ms\n`])
    const bad = await lait(dir, s, ["run", "wf.yml", "x"], { env: { LAIT_HTTP_TIMEOUT_MS: "soon" } })
    expect([bad.code, bad.stderr]).toEqual([2, `lait: invalid LAIT_HTTP_TIMEOUT_MS "soon": expected an integer from 1 to 86400000\n`])
  }, 60_000)

  test.concurrent("every retryable failure warns before the retry, with the time a slow attempt took", async () => {
    const s = serve(async (n) => {
      if (n === 1) return json(`{"error":{"message":"overloaded"}}`, 500)
      if (n === 2) {
        await Bun.sleep(1100)
        return new Response(null, { status: 502 })
      }
      return json(completionText("at last"))
    })
    const r = await lait(project("retries"), s, ["run", "wf.yml", "x"], { env: { LAIT_HTTP_BACKOFF_MS: "0" } })
    const shown = clean(r)
    const lines = r.stderr.split("\n")
    expect([r.code, r.stdout], shown).toEqual([0, "at last\n"])
    expect(lines[1], shown).toBe(
      `warning: the model server at '${s.baseUrl}' answered HTTP 500: overloaded (attempt 1/3); retrying in 0 ms`
    )
    expect(lines[2], shown).toMatch(
      new RegExp(`^warning: the model server at '.*' answered HTTP 502 \\(attempt 2/3, after \\d+(\\.\\d)? s\\); retrying in 0 ms$`)
    )
    // The attempt took the server's 1.1 s at least (more on a busy machine).
    expect(Number(/after (\d+(\.\d)?) s/.exec(lines[2]!)?.[1]), shown).toBeGreaterThanOrEqual(1.1)
    expect(lines.length, shown).toBe(4)
  }, 60_000)

  test.concurrent("a refused connection warns before each retry too", async () => {
    const url = await refusedBaseUrl()
    const r = await lait(project("refused"), url, ["run", "wf.yml", "x"], {
      env: { LAIT_HTTP_ATTEMPTS: "2", LAIT_HTTP_BACKOFF_MS: "0" }
    })
    const lines = r.stderr.split("\n")
    expect(r.code).toBe(4)
    expect(lines[1]).toStartWith(`warning: failed to reach '${url}'`)
    expect(lines[1]).toEndWith(" (attempt 1/2); retrying in 0 ms")
    expect(lines[2]).toStartWith(`lait: failed to reach '${url}'`)
  }, 60_000)
})

describe("Retry-After on 429 and 503", () => {
  const busyThen = (status: number, headers: Record<string, string> | (() => Record<string, string>)) => (n: number) =>
    n === 1
      ? json(`{"error":{"message":"busy"}}`, status, typeof headers === "function" ? headers() : headers)
      : json(completionText("done"))
  const gap = (s: HostileServer) => s.arrivals[1]! - s.arrivals[0]!

  test.concurrent("delay-seconds is waited instead of the backoff", async () => {
    const s = serve(busyThen(503, { "retry-after": "1" }))
    const r = await lait(project("ra-seconds"), s, ["run", "wf.yml", "x"], { env: { LAIT_HTTP_BACKOFF_MS: "0" } })
    const shown = clean(r)
    expect([r.code, r.stdout, r.stderr], shown).toEqual([
      0,
      "done\n",
      `[1] ask\nwarning: the model server at '${s.baseUrl}' answered HTTP 503: busy (attempt 1/3); retrying in 1 s (Retry-After)\n`
    ])
    expect(gap(s)).toBeGreaterThanOrEqual(950)
  }, 60_000)

  test.concurrent("an HTTP date is waited for", async () => {
    // HTTP dates have whole seconds: 3 s ahead is 2 to 3 s away when lait reads it. Made when the request
    // arrives, so lait's start-up on a busy machine does not eat into it.
    const s = serve(busyThen(429, () => ({ "retry-after": new Date(Date.now() + 3000).toUTCString() })))
    const r = await lait(project("ra-date"), s, ["run", "wf.yml", "x"], { env: { LAIT_HTTP_BACKOFF_MS: "0" } })
    const shown = clean(r)
    expect([r.code, r.stdout], shown).toEqual([0, "done\n"])
    expect(r.stderr, shown).toMatch(/answered HTTP 429: busy \(attempt 1\/3\); retrying in (1\.\d|2(\.\d)?|3) s \(Retry-After\)\n$/)
    expect(gap(s)).toBeGreaterThanOrEqual(1500)
  }, 60_000)

  test.concurrent("a longer Retry-After is capped at 60 s, and says so", async () => {
    const s = serve(busyThen(503, { "retry-after": "3600" }))
    const r = await lait(project("ra-cap"), s, ["run", "wf.yml", "x"], { until: (stderr) => stderr.includes("retrying") })
    expect(r.killed).toBe("until")
    expect(r.stderr).toBe(
      `[1] ask\nwarning: the model server at '${s.baseUrl}' answered HTTP 503: busy (attempt 1/3); ` +
        "retrying in 60 s (Retry-After asked for 3600 s; capped)\n"
    )
    expect(s.arrivals).toHaveLength(1)
  }, 60_000)

  test.concurrent("on other statuses, or unreadable, Retry-After is ignored: the backoff applies", async () => {
    // Honouring the 30 s would put 30 s between the attempts; the 0 ms backoff takes milliseconds, and
    // stays far below that bound on a machine many times slower than this one.
    for (const [status, value] of [[500, "30"], [503, "soon"]] as const) {
      const s = serve(busyThen(status, { "retry-after": value }))
      const r = await lait(project(`ra-ignored-${status}`), s, ["run", "wf.yml", "x"], { env: { LAIT_HTTP_BACKOFF_MS: "0" } })
      clean(r)
      expect([r.code, r.stderr]).toEqual([
        0,
        `[1] ask\nwarning: the model server at '${s.baseUrl}' answered HTTP ${status}: busy (attempt 1/3); retrying in 0 ms\n`
      ])
      expect(gap(s), `ms between the attempts (Retry-After: ${value} on HTTP ${status})`).toBeLessThan(30_000)
    }
  }, 60_000)
})

describe("answers that are hard to write down", () => {
  test("an answer nested 200,000 deep is recorded, replayed and cached", async () => {
    const depth = 200_000
    const s = serve(() => json(completionText("deep", `${"[".repeat(depth)}${"]".repeat(depth)}`)))
    const dir = project("deep")
    const recorded = await lait(dir, s, ["run", "wf.yml", "x", "--record", "c"])
    const shown = clean(recorded)
    expect([recorded.code, recorded.stdout, recorded.stderr], shown).toEqual([0, "deep\n", "[1] ask\n"])
    const [cassette] = fs.readdirSync(path.join(dir, "c"))
    const stored = JSON.parse(fs.readFileSync(path.join(dir, "c", cassette!), "utf8")) as { response: { extra: unknown } }
    let level = 0
    for (let v = stored.response.extra; Array.isArray(v); v = v[0]) level++
    expect(level).toBe(depth)

    await s.stop()
    const replayed = await lait(dir, s, ["run", "wf.yml", "x", "--replay", "c"])
    expect([replayed.code, replayed.stdout, replayed.stderr]).toEqual([0, "deep\n", "[1] ask\n"])

    const again = serve(() => json(completionText("deep", `${"[".repeat(depth)}${"]".repeat(depth)}`)))
    const first = await lait(dir, again, ["run", "wf.yml", "x", "--cache"])
    clean(first)
    expect([first.code, first.stdout, first.stderr]).toEqual([0, "deep\n", "[1] ask\n"])
    const hit = await lait(dir, again, ["run", "wf.yml", "x", "--cache"])
    expect([hit.code, hit.stdout, hit.stderr]).toEqual([0, "deep\n", "[1] ask\nnote: cache hit for ask\n"])
    expect(again.arrivals).toHaveLength(1)
  }, 120_000)

  // 3 million zeros: 6 MiB as sent, over 16 MiB once pretty-printed into a cassette.
  const wide = () => json(completionText("wide", `[${new Array(3_000_000).fill("0").join(",")}]`))

  test("--record refuses a cassette larger than lait reads back, with its size; nothing is written", async () => {
    const s = serve(wide)
    const dir = project("wide-record")
    const r = await lait(dir, s, ["run", "wf.yml", "x", "--record", "c"])
    const shown = clean(r)
    expect(r.code, shown).toBe(1)
    expect(r.stdout).toBe("")
    expect(r.stderr, shown).toMatch(
      /^\[1\] ask\nlait: refusing to write cassette 'c\/[0-9a-f]{64}\.json': it would be \d+(\.\d+)? MiB \((\d+) bytes\), over the 16 MiB read limit, so it could never be read back\n$/
    )
    const bytes = Number(/\((\d+) bytes\)/.exec(r.stderr)![1])
    expect(bytes).toBeGreaterThan(16 * MIB)
    expect(fs.existsSync(path.join(dir, "c")) ? fs.readdirSync(path.join(dir, "c")) : []).toEqual([])
  }, 60_000)

  test("--cache skips such an entry with a -v note; the run succeeds", async () => {
    const s = serve(wide)
    const dir = project("wide-cache")
    const r = await lait(dir, s, ["-v", "run", "wf.yml", "x", "--cache"])
    const shown = clean(r)
    expect([r.code, r.stdout], shown).toEqual([0, "wide\n"])
    expect(r.stderr, shown).toMatch(
      /cache write skipped: refusing to write a cache entry: it would be \d+(\.\d+)? MiB \(\d+ bytes\), over the 16 MiB read limit/
    )
    const cache = path.join(dir, ".lait", "cache")
    expect(fs.existsSync(cache) ? fs.readdirSync(cache) : []).toEqual([])
    const quiet = await lait(dir, s, ["run", "wf.yml", "x", "--cache"])
    expect([quiet.code, quiet.stdout, quiet.stderr]).toEqual([0, "wide\n", "[1] ask\n"])
  }, 60_000)
})
