// `lait proxy --replay` under load: 1,000 chat requests from 32 concurrent clients through the proxy,
// against the same clients sending the same requests to the fixture server directly, rounds
// interleaved in one run. The fixture server runs as a process of its own, as the proxy does, so
// neither server shares the clients' event loop. The cassettes are recorded first through the proxy itself
// (`--record-missing`, untimed), and one untimed round on each side precedes the timed ones. Memory:
// the proxy's resident set after the first timed round and after the last (flat = the same), read
// from /proc. Checked: every answer through the proxy is the one the
// server gave for that request.
//
//   node_modules/.bin/bun bench/proxy/index.ts [--rounds N] [--requests N] [--clients N] [--binary PATH]
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { defaultBinary, flag, median, requireBinary } from "../util.ts"

export interface ProxyBenchOptions {
  readonly binary: string
  readonly rounds: number
  readonly requests: number
  readonly clients: number
}

export interface ProxyFigures {
  readonly rounds: number
  readonly requests: number
  readonly clients: number
  /** Median wall time of one round through the proxy, ms. */
  readonly proxyMs: number
  /** The same clients against the server directly. */
  readonly directMs: number
  /** The proxy's RSS after the first round and after the last, bytes (0 where /proc is missing). */
  readonly rssFirst: number
  readonly rssLast: number
}

const rssOf = (pid: number): number => {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))
    return match === null ? 0 : Number(match[1]) * 1024
  } catch {
    return 0
  }
}

const body = (i: number) => JSON.stringify({ model: "m", messages: [{ role: "user", content: `question ${i}` }] })

/** `requests` requests from `clients` workers taking the next index; every answer checked. */
const round = async (baseUrl: string, requests: number, clients: number): Promise<number> => {
  let next = 0
  const started = performance.now()
  await Promise.all(Array.from({ length: clients }, async () => {
    while (next < requests) {
      const i = next++
      const response = await fetch(`${baseUrl}/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: "Bearer bench" },
        body: body(i)
      })
      const answer = await response.json() as { choices?: Array<{ message?: { content?: string } }> }
      if (response.status !== 200 || answer.choices?.[0]?.message?.content !== `answer to question ${i}`) {
        throw new Error(`request ${i} via ${baseUrl}: HTTP ${response.status} ${JSON.stringify(answer).slice(0, 300)}`)
      }
    }
  }))
  return performance.now() - started
}

const startProxy = async (binary: string, dir: string, args: ReadonlyArray<string>) => {
  const child = Bun.spawn([binary, "proxy", ...args], {
    cwd: dir,
    env: { PATH: process.env["PATH"] ?? "/usr/bin:/bin", HOME: dir, XDG_CONFIG_HOME: path.join(dir, ".config"), NO_COLOR: "1" },
    stdin: "ignore",
    stdout: "ignore",
    stderr: "pipe"
  })
  const reader = child.stderr.getReader()
  let text = ""
  while (!/listening on (\S+)/.test(text)) {
    const { value, done } = await reader.read()
    if (done) throw new Error(`lait proxy did not start: ${text}`)
    text += new TextDecoder().decode(value)
  }
  // Keep draining stderr so the proxy never blocks on a full pipe.
  void (async () => {
    while (!(await reader.read()).done);
  })()
  return { url: /listening on (\S+)/.exec(text)![1]!, pid: child.pid, stop: () => (child.kill("SIGTERM"), child.exited) }
}

/** test/fixtures/openai-server.ts as its own process; its base URL is its first stdout line. */
const startServer = async (dir: string, requests: number) => {
  const script = Array.from({ length: requests }, (_, i) => ({
    match: `"question ${i}"`,
    content: `answer to question ${i}`,
    repeat: true
  }))
  fs.writeFileSync(path.join(dir, "script.json"), JSON.stringify(script))
  const fixture = path.join(import.meta.dir, "..", "..", "test", "fixtures", "openai-server.ts")
  const child = Bun.spawn([process.execPath, fixture, "--script", path.join(dir, "script.json")], {
    stdin: "ignore",
    stdout: "pipe",
    stderr: "inherit"
  })
  const reader = child.stdout.getReader()
  let text = ""
  while (!text.includes("\n")) {
    const { value, done } = await reader.read()
    if (done) throw new Error(`the fixture server did not start: ${text}`)
    text += new TextDecoder().decode(value)
  }
  return { baseUrl: text.split("\n")[0]!.trim(), stop: () => (child.kill("SIGTERM"), child.exited) }
}

export const runProxyBench = async (options: ProxyBenchOptions): Promise<ProxyFigures> => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "lait-bench-proxy-"))
  const server = await startServer(dir, options.requests)
  try {
    fs.writeFileSync(
      path.join(dir, "lait.config.yml"),
      `models:\n  m:\n    - provider: {base_url: '${server.baseUrl}', api_key: bench}\n      model_id: fixture-model\n`
    )
    const recorder = await startProxy(options.binary, dir, ["--record-missing", "cassettes"])
    await round(recorder.url, options.requests, options.clients)
    await recorder.stop()
    const proxy = await startProxy(options.binary, dir, ["--replay", "cassettes"])
    try {
      // One untimed round each first: the proxy's code is compiled as it runs (the server's was, while
      // it answered the recording), and a round of cold code is not what a running proxy costs.
      await round(server.baseUrl, options.requests, options.clients)
      await round(proxy.url, options.requests, options.clients)
      const direct: Array<number> = []
      const proxied: Array<number> = []
      let rssFirst = 0
      for (let r = 0; r < options.rounds; r++) {
        direct.push(await round(server.baseUrl, options.requests, options.clients))
        proxied.push(await round(proxy.url, options.requests, options.clients))
        if (r === 0) rssFirst = rssOf(proxy.pid)
      }
      return {
        rounds: options.rounds,
        requests: options.requests,
        clients: options.clients,
        proxyMs: median(proxied),
        directMs: median(direct),
        rssFirst,
        rssLast: rssOf(proxy.pid)
      }
    } finally {
      await proxy.stop()
    }
  } finally {
    await server.stop()
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

if (import.meta.main) {
  const binary = requireBinary(flag("--binary") ?? defaultBinary)
  const f = await runProxyBench({
    binary,
    rounds: Number(flag("--rounds") ?? 5),
    requests: Number(flag("--requests") ?? 1000),
    clients: Number(flag("--clients") ?? 32)
  })
  const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`
  process.stdout.write(
    `${f.requests} requests, ${f.clients} clients, median of ${f.rounds}: proxy ${f.proxyMs.toFixed(0)} ms, ` +
      `direct ${f.directMs.toFixed(0)} ms = ${(f.proxyMs / f.directMs).toFixed(2)}x; ` +
      `proxy RSS ${mib(f.rssFirst)} after round 1, ${mib(f.rssLast)} after round ${f.rounds}\n`
  )
}
