// Re-records examples/release-notes/cassettes with scripted answers, so the recording is reproducible
// without a model: the fixture OpenAI server (test/fixtures/openai-server.ts) listens on
// 127.0.0.1:1234 — LM Studio's default port, where the workflow's `local` alias points — and answers
// each request from the script below, then `lait run ... --record` writes one cassette per request.
//
//   node_modules/.bin/bun examples/release-notes/record.ts [--out DIR]
//
// Stop LM Studio (or whatever holds port 1234) first. lait runs with --no-config --no-env so that no
// local configuration changes the requests; dist/lait is used when it exists, else the sources.
import * as fs from "node:fs"
import * as path from "node:path"
import { type ScriptedReply, startOpenAiServer } from "../../test/fixtures/openai-server.ts"

const root = path.resolve(import.meta.dir, "../..")
const workflow = "examples/release-notes/release-notes.yml"

const changes = {
  changes: [
    {
      kind: "feature",
      summary: "Record every model answer of a run into a folder with --record.",
      breaking: false
    },
    {
      kind: "feature",
      summary: "Replay a recorded run with --replay without contacting any model server.",
      breaking: false
    },
    {
      kind: "fix",
      summary: "A damaged or expired cache entry no longer fails the run; the request is sent again.",
      breaking: false
    },
    {
      kind: "feature",
      summary: "A model alias can list fallback models, tried in order when one is down or overloaded.",
      breaking: true
    },
    { kind: "chore", summary: "Updated the Effect library to 4.1.0.", breaking: false }
  ]
}

// First match wins and each reply is used once; the headline comes first because its prompt quotes
// every bullet.
export const script: ReadonlyArray<ScriptedReply> = [
  {
    match: "one-sentence headline",
    content: "lait 0.9.0 makes model calls reproducible: record a run once, replay it offline, and keep " +
      "going when a model endpoint is down.",
    usage: { prompt_tokens: 187, completion_tokens: 31 }
  },
  {
    match: "Classify every commit",
    // Models often wrap JSON in a fence even under a strict schema; lait strips one.
    content: `\`\`\`json\n${JSON.stringify(changes, null, 2)}\n\`\`\``,
    usage: { prompt_tokens: 296, completion_tokens: 188 }
  },
  {
    match: "--record.",
    content: "Record every model answer of a run with `--record DIR`; each answer is saved as a cassette " +
      "named after its request.",
    usage: { prompt_tokens: 84, completion_tokens: 24 }
  },
  {
    match: "--replay without",
    content: "Replay a recorded run with `--replay DIR`, fully offline: no request ever reaches a model server.",
    usage: { prompt_tokens: 83, completion_tokens: 22 }
  },
  {
    match: "cache entry",
    content: "A damaged or expired cache entry is now treated as a miss and re-requested instead of failing " +
      "the run.",
    usage: { prompt_tokens: 88, completion_tokens: 21 }
  },
  {
    match: "fallback models",
    content: "Breaking: a model alias is now a list of endpoints, and lait falls back to the next one on a 5xx, " +
      "a 429 or a refused connection.",
    usage: { prompt_tokens: 91, completion_tokens: 29 }
  }
]

const laitCommand = (): Array<string> => {
  const binary = path.join(root, "dist", process.platform === "win32" ? "lait.exe" : "lait")
  return fs.existsSync(binary) ? [binary] : [process.execPath, path.join(root, "src", "main.ts")]
}

export interface Recorded {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

export const record = async (out: string): Promise<Recorded> => {
  let server: ReturnType<typeof startOpenAiServer>
  try {
    server = startOpenAiServer({ script, port: 1234 })
  } catch (e) {
    return {
      code: 1,
      stdout: "",
      stderr: `cannot listen on 127.0.0.1:1234 (${String(e)}); stop whatever uses that port first\n`
    }
  }
  try {
    fs.mkdirSync(out, { recursive: true })
    for (const name of fs.readdirSync(out)) if (name.endsWith(".json")) fs.rmSync(path.join(out, name))
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(OPENAI_|LAIT_)/.test(k)))
    const child = Bun.spawn([...laitCommand(), "--no-config", "--no-env", "run", workflow, "--record", out], {
      cwd: root,
      env: { ...env, NO_COLOR: "1" },
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe"
    })
    const [stdout, stderr] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text()])
    const code = await child.exited
    if (code === 0 && server.script.length > 0) {
      return { code: 1, stdout, stderr: `${stderr}${server.script.length} scripted answer(s) were never asked for\n` }
    }
    return { code, stdout, stderr }
  } finally {
    await server.stop()
  }
}

if (import.meta.main) {
  const i = process.argv.indexOf("--out")
  const out = path.resolve(i === -1 ? path.join(import.meta.dir, "cassettes") : process.argv[i + 1]!)
  const { code, stdout, stderr } = await record(out)
  process.stdout.write(stdout)
  process.stderr.write(stderr)
  if (code === 0) process.stderr.write(`cassettes written to ${path.relative(process.cwd(), out) || "."}\n`)
  process.exit(code)
}
