// `lait agent run|list`, `lait skill list`, `lait workflow list` through the compiled CLI, judged by
// what the fixture OpenAI server received and what the commands printed: INPUT parsed for the template
// but sent as given, registry names, stdin, structured output, skills, a shell tool and a real MCP
// server (server-everything), record then replay with no server, and the registry listings.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as path from "node:path"
import type { OpenAiServer } from "../fixtures/openai-server.ts"
import { bodies, outcome, prepareCli, server, stopServers, workspace } from "./model-harness.ts"
import { everythingBin } from "./tools-util.ts"

const ws = workspace("e2e-agents")
beforeAll(prepareCli, 300_000)
afterEach(stopServers)
afterAll(() => ws.remove())

const project = (name: string, s: OpenAiServer | undefined, files: Readonly<Record<string, string>>, config = "") => {
  const dir = path.join(ws.dir, name)
  fs.mkdirSync(dir, { recursive: true })
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true })
    fs.writeFileSync(path.join(dir, file), text)
  }
  const base = s === undefined ? "" : `base_url: '${s.baseUrl}'\n`
  fs.writeFileSync(path.join(dir, "lait.config.yml"), `${base}${config}`)
  return {
    dir,
    lait: (args: ReadonlyArray<string>, stdin?: string) =>
      ws.lait(args, { cwd: dir, ...(stdin !== undefined ? { stdin } : {}) })
  }
}

const GREETER = "---\nname: greeter\ndescription: says hello\nmodel: agent-model\ntemperature: 0.3\n---\n" +
  "Greet {{ input.who }} politely.\n"

describe("lait agent run", () => {
  test("INPUT is parsed for the template and sent as given; frontmatter settings; skills appended", async () => {
    const s = server()
    const p = project("basic", s, {
      "agents/greet.md": GREETER.replace("temperature: 0.3\n", "temperature: 0.3\nskills: [style]\n"),
      "skills/style.md": "---\ndescription: tone\n---\nBe brief.\n"
    }, "default:\n  model: config-model\nskills:\n  style: skills/style.md\n")
    const r = await p.lait(["agent", "run", "agents/greet.md", "{ \"who\": \"Ann\" }"])
    expect(outcome(r)).toEqual({ code: 0, stdout: "echo: { \"who\": \"Ann\" }\n", stderr: "" })
    expect(bodies(s)).toEqual([{
      model: "agent-model",
      stream: false,
      messages: [
        { role: "system", content: "Greet Ann politely.\n\n---\n\n## Skill: style\n\ntone\n\nBe brief." },
        { role: "user", content: "{ \"who\": \"Ann\" }" }
      ],
      temperature: 0.3
    }])
  })

  test("an agents: name, text input with stdin appended, --json and --show-usage, -o", async () => {
    const s = server()
    const p = project("named", s, {
      "agents/echo.md": "---\n---\nSay {{ input }}.\n"
    }, "default:\n  model: m\nagents:\n  echoer: agents/echo.md\n")
    const r = await p.lait(["agent", "run", "echoer", "hi", "--json", "--show-usage"], "more")
    expect(outcome(r)).toEqual({
      code: 0,
      stdout: "{\"content\":\"echo: hi\\n\\nmore\",\"reasoning\":null,\"usage\":" +
        "{\"prompt_tokens\":10,\"completion_tokens\":5,\"total_tokens\":15},\"finish_reason\":\"stop\"}\n",
      stderr: `note: resolved 'echoer' to '${path.join(p.dir, "agents/echo.md")}' via 'agents:'\n` +
        "usage: prompt=10 completion=5 total=15\n"
    })
    expect(bodies(s)[0]).toEqual({
      model: "m",
      stream: false,
      messages: [{ role: "system", content: "Say hi\n\nmore." }, { role: "user", content: "hi\n\nmore" }]
    })
    const written = await p.lait(["agent", "run", "agents/echo.md", "x", "-o", "out.txt"])
    expect(outcome(written)).toEqual({ code: 0, stdout: "", stderr: "" })
    expect(fs.readFileSync(path.join(p.dir, "out.txt"), "utf8")).toBe("echo: x\n")
  })

  test("output_schema is strict structured output; input_schema rejects a bad INPUT before any request", async () => {
    const s = server({ script: [{ content: "```json\n{\"city\": \"Tokyo\"}\n```" }] })
    const p = project("schemas", s, {
      "city.md": "---\nmodel: m\ninput_schema: { type: object, required: [text] }\n" +
        "output_schema: { type: object, required: [city], properties: { city: { type: string } } }\n" +
        "schema_name: city\n---\nExtract from {{ input.text }}\n"
    })
    const r = await p.lait(["agent", "run", "city.md", "{\"text\":\"Tokyo is big\"}"])
    expect(outcome(r)).toEqual({ code: 0, stdout: "{\"city\":\"Tokyo\"}\n", stderr: "" })
    expect(bodies(s)[0]?.["response_format"]).toEqual({
      type: "json_schema",
      json_schema: {
        name: "city",
        schema: { type: "object", required: ["city"], properties: { city: { type: "string" } } },
        strict: true
      }
    })
    const bad = await p.lait(["agent", "run", "city.md", "\"just text\""])
    expect(outcome(bad)).toEqual({
      code: 1,
      stdout: "",
      stderr: "lait: agent 'city': input must be of type object (got string)\n"
    })
    expect(bodies(s)).toHaveLength(1)
  })

  test("recorded with --record, replayed with no server", async () => {
    const s = server()
    const p = project("record", s, { "agents/greet.md": GREETER })
    const recorded = await p.lait(["agent", "run", "agents/greet.md", "{\"who\":\"Bo\"}", "--record", "cas"])
    expect(outcome(recorded)).toEqual({ code: 0, stdout: "echo: {\"who\":\"Bo\"}\n", stderr: "" })
    await stopServers()
    const replayed = await p.lait(["agent", "run", "agents/greet.md", "{\"who\":\"Bo\"}", "--replay", "cas"])
    expect(outcome(replayed)).toEqual(outcome(recorded))
    const other = await p.lait(["agent", "run", "agents/greet.md", "{\"who\":\"Cy\"}", "--replay", "cas"])
    expect(other.code).toBe(1)
    expect(other.stderr).toContain("no recorded cassette")
  })

  test("a shell tool and server-everything's echo, with the calls in the trace", async () => {
    const s = server({
      script: [
        {
          content: null,
          tool_calls: [
            { id: "t1", name: "everything__echo", arguments: "{\"message\":\"via mcp\"}" },
            { id: "t2", name: "tool__shout", arguments: "{\"text\":\"via shell\"}" }
          ]
        },
        { content: "both answered" }
      ]
    })
    const p = project("tools", s, {
      "agents/worker.md": "---\nmodel: m\nmcp: [everything]\ntools: [shout]\n---\nWork.\n"
    }, `mcp_servers:
  everything: { command: node, args: ['${everythingBin}', stdio], allowed_tools: [echo] }
tools:
  shout:
    command: [echo, '{{input.text}}!']
    parameters: { type: object, properties: { text: { type: string } } }
`)
    const r = await p.lait(["agent", "run", "agents/worker.md", "go", "--trace-file", "t.jsonl"])
    expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 0, stdout: "both answered\n" })
    const last = bodies(s)[1]!["messages"] as Array<Record<string, unknown>>
    expect(last.filter((m) => m["role"] === "tool")).toEqual([
      { role: "tool", content: "Echo: via mcp", tool_call_id: "t1" },
      { role: "tool", content: "via shell!", tool_call_id: "t2" }
    ])
    const events = fs.readFileSync(path.join(p.dir, "t.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l))
    // The two calls run concurrently: their events are in the order they ended.
    const labels = events.map((e) => `${e.operation} ${e.label}`)
    expect([labels[0], labels[3], ...labels.slice(1, 3).sort()]).toEqual([
      "chat worker",
      "chat worker",
      "execute_tool tool 'everything__echo'",
      "execute_tool tool 'tool__shout'"
    ])
  }, 60_000)

  test("no INPUT, no model, no such file", async () => {
    const p = project("errors", undefined, { "a.md": "---\n---\nHi.\n" }, "base_url: 'http://127.0.0.1:9/v1'\n")
    expect(outcome(await p.lait(["agent", "run", "a.md"], ""))).toEqual({
      code: 1,
      stdout: "",
      stderr: "lait: an INPUT is required; provide one or pipe input via stdin\n"
    })
    const noModel = await p.lait(["agent", "run", "a.md", "x"])
    expect(noModel.code).toBe(1)
    expect(noModel.stderr).toStartWith("lait: model is required for agent 'a'; set 'model' in its frontmatter")
    const missing = await p.lait(["agent", "run", "nope", "x"])
    expect(missing.code).not.toBe(0)
    expect(missing.stderr).toContain("nope")
  })
})

describe("registry listings", () => {
  test("agent list, skill list and workflow list: name order, description, a warning for a bad entry", async () => {
    const p = project("lists", undefined, {
      "agents/greet.md": GREETER,
      "agents/plain.md": "---\nmodel: m\n---\nx\n",
      "skills/tone/SKILL.md": "---\ndescription: how to sound\n---\nCalm.\n",
      "skills/bad.md": "no frontmatter\n",
      "flows/a.yml": "name: a\ndescription: first flow\nsteps:\n  - jq: .\n",
      "flows/b.yml": "steps:\n  - jq: .\n"
    }, `agents:
  plain: agents/plain.md
  greet: agents/greet.md
skills:
  tone: skills/tone
  bad: skills/bad.md
  gone: skills/gone.md
workflows:
  b: flows/b.yml
  a: flows/a.yml
`)
    const at = (rel: string) => path.join(p.dir, rel)
    expect(outcome(await p.lait(["agent", "list"]))).toEqual({
      code: 0,
      stdout: `greet  (${at("agents/greet.md")}): says hello\nplain  (${at("agents/plain.md")})\n`,
      stderr: ""
    })
    const skills = await p.lait(["skill", "list"])
    expect(skills.code).toBe(0)
    expect(skills.stdout.split("\n")).toEqual([
      `bad  (${at("skills/bad.md")})`,
      `  warning: failed to parse skill file '${at("skills/bad.md")}' (skill 'bad'): ` +
      "skill file must start with a '---' frontmatter delimiter",
      `gone  (${at("skills/gone.md")})`,
      expect.stringMatching(new RegExp(`^  warning: failed to read skill file '${at("skills/gone.md")}' \\(skill 'gone'\\): `)),
      `tone  (${at("skills/tone/SKILL.md")}): how to sound`,
      ""
    ])
    expect(outcome(await p.lait(["workflow", "list"]))).toEqual({
      code: 0,
      stdout: `a  (${at("flows/a.yml")}): first flow\nb  (${at("flows/b.yml")})\n`,
      stderr: ""
    })
  })

  test("an empty registry is a note and exit 0", async () => {
    const p = project("empty", undefined, {})
    for (const [command, section] of [["agent", "agents"], ["skill", "skills"], ["workflow", "workflows"]]) {
      expect(outcome(await p.lait([command!, "list"]))).toEqual({
        code: 0,
        stdout: `no ${section} defined in lait.config.yml; add a '${section}:' entry to define one\n`,
        stderr: ""
      })
    }
  })
})
