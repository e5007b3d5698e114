// Re-records examples/tests/cassettes with scripted answers, so the recordings are reproducible
// without a model: the fixture OpenAI server (test/fixtures/openai-server.ts) listens on
// 127.0.0.1:1234 — LM Studio's default port, where triage.yml's `local` alias points — answers each
// request from the script of the case, and `lait run ... --record` writes one cassette per request.
//
//   node_modules/.bin/bun examples/tests/record.ts [CASE...]
//
// Stop LM Studio (or whatever holds port 1234) first. lait runs with --no-config --no-env so that no
// local configuration changes the requests; dist/lait is used when it exists, else the sources.
import * as fs from "node:fs"
import * as path from "node:path"
import { type ScriptedReply, startOpenAiServer } from "../../test/fixtures/openai-server.ts"

const root = path.resolve(import.meta.dir, "../..")
const workflow = "examples/tests/triage.yml"

interface Case {
  readonly ticket: { readonly subject: string; readonly body: string }
  readonly inputs?: Readonly<Record<string, string>>
  readonly script: ReadonlyArray<ScriptedReply>
}

export const CASES: Readonly<Record<string, Case>> = {
  billing: {
    ticket: {
      subject: "Charged twice for March",
      body: "My card was charged twice for the March invoice. Please refund one of the charges."
    },
    script: [
      {
        match: "Classify this support ticket",
        content: JSON.stringify({ category: "billing", urgency: 2, summary: "Duplicate charge on the March invoice" }),
        usage: { prompt_tokens: 118, completion_tokens: 24 }
      },
      {
        match: "Write a first reply",
        content: "Sorry about the double charge on your March invoice. We have refunded the duplicate payment; " +
          "it will show on your card within 5 business days.",
        usage: { prompt_tokens: 86, completion_tokens: 33 }
      }
    ]
  },
  outage: {
    ticket: {
      subject: "API returns 503",
      body: "Since 09:10 UTC every request to the EU API returns 503. Our checkout is down."
    },
    inputs: { product: "lait Cloud EU" },
    script: [
      {
        match: "Classify this support ticket",
        // Models often wrap JSON in a fence even under a strict schema; lait strips one.
        content: `\`\`\`json\n${
          JSON.stringify({ category: "outage", urgency: 5, summary: "EU API answers 503 to every request since 09:10 UTC" })
        }\n\`\`\``,
        usage: { prompt_tokens: 124, completion_tokens: 31 }
      },
      {
        match: "Write a first reply",
        content: "We are sorry: the EU API is failing and our on-call engineers are already working on it. " +
          "We will update you within 30 minutes.",
        usage: { prompt_tokens: 95, completion_tokens: 30 }
      }
    ]
  }
}

const laitCommand = (): Array<string> => {
  const binary = path.join(root, "dist", process.platform === "win32" ? "lait.exe" : "lait")
  return fs.existsSync(binary) ? [binary] : [process.execPath, path.join(root, "src", "main.ts")]
}

export const recordCase = async (name: string, out: string) => {
  const spec = CASES[name]
  if (spec === undefined) return { code: 2, stdout: "", stderr: `unknown case '${name}'\n` }
  let server: ReturnType<typeof startOpenAiServer>
  try {
    server = startOpenAiServer({ script: spec.script, port: 1234 })
  } catch (e) {
    return { code: 1, stdout: "", stderr: `cannot listen on 127.0.0.1:1234 (${String(e)}); stop whatever uses that port first\n` }
  }
  try {
    fs.rmSync(out, { recursive: true, force: true })
    fs.mkdirSync(out, { recursive: true })
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(OPENAI_|LAIT_)/.test(k)))
    const inputs = Object.entries(spec.inputs ?? {}).flatMap(([k, v]) => ["--input", `${k}=${v}`])
    const child = Bun.spawn(
      [...laitCommand(), "--no-config", "--no-env", "run", workflow, JSON.stringify(spec.ticket), ...inputs, "--record", out],
      { cwd: root, env: { ...env, NO_COLOR: "1" }, stdin: "ignore", stdout: "pipe", stderr: "pipe" }
    )
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
  const names = process.argv.length > 2 ? process.argv.slice(2) : Object.keys(CASES)
  for (const name of names) {
    const out = path.join(import.meta.dir, "cassettes", name)
    const { code, stdout, stderr } = await recordCase(name, out)
    process.stderr.write(stderr)
    if (code !== 0) process.exit(code)
    process.stdout.write(`${name}: ${stdout}`)
  }
}
