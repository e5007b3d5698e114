// Re-records examples/apps/triage/cassettes with scripted answers, so the recordings are
// reproducible without a model: the fixture OpenAI server (test/fixtures/openai-server.ts) listens on
// 127.0.0.1:1234 (LM Studio's default port, where a model id with no lait.config.yml alias goes),
// and `lait test --record` and `lait eval --record` write one cassette per model request.
//
//   node_modules/.bin/bun examples/apps/triage/record.ts
//
// Stop LM Studio (or whatever holds port 1234) first. dist/lait is used when it exists, else the sources.
import * as fs from "node:fs"
import * as path from "node:path"
import { startOpenAiServer } from "../../../test/fixtures/openai-server.ts"

const here = import.meta.dir
const root = path.resolve(here, "../../..")
const lait = fs.existsSync(path.join(root, "dist", "lait"))
  ? [path.join(root, "dist", "lait")]
  : [process.execPath, path.join(root, "src", "main.ts")]

const server = startOpenAiServer({
  port: 1234,
  script: [
    // The outage ticket: a lookup first, then the verdict with the customer's plan in view.
    { match: "enterprise", content: '{"category": "outage", "priority": "high"}', usage: { prompt_tokens: 190, completion_tokens: 14 }, repeat: true },
    {
      match: "ada@example.com",
      tool_calls: [{ id: "call_lookup_1", name: "lookup_customer", arguments: '{"email":"ada@example.com"}' }],
      usage: { prompt_tokens: 160, completion_tokens: 18 },
      repeat: true
    },
    { match: "charged twice", content: '{"category": "billing", "priority": "normal"}', usage: { prompt_tokens: 150, completion_tokens: 14 }, repeat: true }
  ]
})
try {
  fs.rmSync(path.join(here, "cassettes"), { recursive: true, force: true })
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(OPENAI_|LAIT_)/.test(k)))
  for (const args of [["test", "triage.test.yml", "--record"], ["eval", "triage.eval.yml", "--record", "cassettes"]]) {
    const child = Bun.spawn([...lait, "--no-config", "--no-env", ...args], {
      cwd: here,
      env: { ...env, NO_COLOR: "1" },
      stdout: "inherit",
      stderr: "inherit"
    })
    if ((await child.exited) !== 0) throw new Error(`lait ${args.join(" ")} failed`)
  }
} finally {
  await server.stop()
}
