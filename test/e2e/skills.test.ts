// Skills through the compiled CLI, judged by what the fixture OpenAI server received: the `## Skill:`
// sections appended to the system prompt (step, agent and default.skills; a directory's SKILL.md;
// the body never rendered), progressive disclosure (`skill__<name>` offered, its body sent back as
// the tool result, the call in the trace), record then replay with no server, skills in one-shot chat
// and `lait chat`, and bad skills.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as path from "node:path"
import type { OpenAiServer } from "../fixtures/openai-server.ts"
import { bodies, cleanEnv, outcome, prepareCli, server, stopServers, workspace } from "./model-harness.ts"
import { runCli } from "./util.ts"

const ws = workspace("e2e-skills")
beforeAll(prepareCli, 300_000)
afterEach(stopServers)
afterAll(() => ws.remove())

const SKILLS = {
  "skills/review.md": "---\nname: code-review\ndescription: what to look for\n---\n\nLook for {{ off-by-one }} errors.\n",
  "skills/style/SKILL.md": "---\n---\nBe terse.\n"
}
const REGISTRY = "skills:\n  review: skills/review.md\n  style: skills/style\n"
const REVIEW = "## Skill: code-review\n\nwhat to look for\n\nLook for {{ off-by-one }} errors."
const STYLE = "## Skill: style\n\nBe terse."

/** A project whose lait.config.yml points at `s` (when given) and registers the two skills. */
const project = (name: string, s: OpenAiServer | undefined, files: Readonly<Record<string, string>>, config = "") => {
  const dir = path.join(ws.dir, name)
  const all = { ...SKILLS, ...files }
  for (const [file, text] of Object.entries(all)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true })
    fs.writeFileSync(path.join(dir, file), text)
  }
  const base = s === undefined ? "" : `base_url: '${s.baseUrl}'\n`
  fs.writeFileSync(path.join(dir, "lait.config.yml"), `${base}${REGISTRY}${config}`)
  return { dir, lait: (args: ReadonlyArray<string>) => ws.lait(args, { cwd: dir }) }
}

const systemOf = (body: Record<string, unknown>): unknown =>
  (body["messages"] as Array<{ role: string; content: unknown }>).find((m) => m.role === "system")?.content

describe("skills in the system prompt", () => {
  test("step, agent and default.skills are appended after the system prompt, in the order listed", async () => {
    const s = server()
    const p = project("append", s, {
      "agents/rev.md": "---\nmodel: m\nskills: [style]\n---\nReview {{ input }}.\n",
      "wf.yml": `default:
  model: m
steps:
  - prompt: 'one {{ input }}'
    system: 'You are a reviewer.'
    skills: [review, style]
  - prompt: 'two'
  - agent: agents/rev.md
  - agent: agents/rev.md
    skills: [review]
`
    }, "default:\n  skills: [style]\n")
    const r = await p.lait(["run", "wf.yml", "x"])
    expect(r.code).toBe(0)
    expect(bodies(s).map(systemOf)).toEqual([
      `You are a reviewer.\n\n---\n\n${REVIEW}\n\n${STYLE}`,
      // No system prompt of its own: the config's default.skills alone.
      STYLE,
      `Review echo: two.\n\n---\n\n${STYLE}`,
      // The step's skills replace the agent's.
      `Review echo: echo: two.\n\n---\n\n${REVIEW}`
    ])
  })

  test("a workflow with skills recorded with --record replays with no server", async () => {
    const s = server()
    const p = project("record", s, {
      "wf.yml": "steps:\n  - prompt: 'hello {{ input }}'\n    model: m\n    skills: [review]\n"
    })
    const recorded = await p.lait(["run", "wf.yml", "x", "--record", "cas"])
    expect(outcome(recorded)).toEqual({ code: 0, stdout: "echo: hello x\n", stderr: "[1] step-1 (prompt)\n" })
    await stopServers()
    const replayed = await p.lait(["run", "wf.yml", "x", "--replay", "cas"])
    expect(outcome(replayed)).toEqual(outcome(recorded))
    // A changed skill changes the request: the replay misses instead of answering for the old text.
    fs.writeFileSync(path.join(p.dir, "skills/review.md"), "---\n---\nSomething else.\n")
    const changed = await p.lait(["run", "wf.yml", "x", "--replay", "cas"])
    expect(changed.code).toBe(1)
    expect(changed.stderr).toContain("no recorded cassette")
  })
})

describe("progressive disclosure", () => {
  test("only names and descriptions go into the prompt; the body is the skill__ tool's result", async () => {
    const s = server({
      script: [
        { content: null, tool_calls: [{ id: "c1", name: "skill__review", arguments: "{}" }] },
        { content: "reviewed" }
      ]
    })
    const p = project("progressive", s, {
      "wf.yml": "steps:\n  - prompt: 'check {{ input }}'\n    system: 'Sys.'\n    model: m\n    skills: [review]\n"
    }, "default:\n  skill_progressive_disclosure: true\n")
    const r = await p.lait(["run", "wf.yml", "x", "--trace-file", "t.jsonl"])
    expect(outcome(r)).toEqual({
      code: 0,
      stdout: "reviewed\n",
      stderr: "[1] step-1 (prompt)\nnote: trace written to 't.jsonl' (3 events)\n"
    })
    const [first, second] = bodies(s) as Array<Record<string, unknown>>
    const system = "Sys.\n\n---\n\n## Skill: code-review\n\nwhat to look for\n\n" +
      "Call the `skill__review` tool to read this skill's full instructions when you need them."
    expect(first).toEqual({
      model: "m",
      stream: false,
      messages: [{ role: "system", content: system }, { role: "user", content: "check x" }],
      tools: [{
        type: "function",
        function: {
          name: "skill__review",
          description: "Returns the full instructions of the 'code-review' skill: what to look for",
          parameters: { type: "object", properties: {} }
        }
      }]
    })
    expect((second!["messages"] as Array<unknown>).slice(2)).toEqual([
      {
        role: "assistant",
        tool_calls: [{ id: "c1", type: "function", function: { name: "skill__review", arguments: "{}" } }]
      },
      { role: "tool", content: "Look for {{ off-by-one }} errors.", tool_call_id: "c1" }
    ])
    const events = fs.readFileSync(path.join(p.dir, "t.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l))
    const tool = events.find((e) => e.operation === "execute_tool")
    expect(tool?.attributes?.["gen_ai.tool.name"]).toBe("skill__review")
    expect(tool?.attributes?.["lait.tool.decision"]).toBe("allowed")
  })

  test("recorded, then replayed with --replay-tools and no server: a skill call needs no tool cassette", async () => {
    const s = server({
      script: [
        { content: null, tool_calls: [{ id: "c1", name: "skill__style", arguments: "" }] },
        { content: "styled" }
      ]
    })
    const p = project("progressive-replay", s, {
      "wf.yml": "steps:\n  - prompt: 'check {{ input }}'\n    model: m\n    skills: [style]\n"
    }, "default:\n  skill_progressive_disclosure: true\n")
    const recorded = await p.lait(["run", "wf.yml", "x", "--record", "cas"])
    expect(outcome(recorded)).toEqual({ code: 0, stdout: "styled\n", stderr: "[1] step-1 (prompt)\n" })
    expect(fs.readdirSync(path.join(p.dir, "cas")).filter((f) => f.startsWith("tool-"))).toEqual([])
    await stopServers()
    const replayed = await p.lait(["run", "wf.yml", "x", "--replay", "cas", "--replay-tools"])
    expect(outcome(replayed)).toEqual(outcome(recorded))
  })
})

describe("skills elsewhere", () => {
  test("a subagent's skills come from its own frontmatter", async () => {
    const s = server({
      script: [
        { content: null, tool_calls: [{ id: "a1", name: "agent__helper", arguments: "{\"input\":\"sum 1 2\"}" }] },
        { match: "sum 1 2", content: "3" },
        { content: "done" }
      ]
    })
    const p = project("subagent", s, {
      "agents/helper.md": "---\nmodel: sub\nskills: [style]\n---\nYou add numbers.\n",
      "wf.yml": "steps:\n  - prompt: go\n    model: m\n    subagents: [helper]\n"
    }, "agents:\n  helper: agents/helper.md\n")
    const r = await p.lait(["run", "wf.yml", "x"])
    expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 0, stdout: "done\n" })
    expect(bodies(s).map(systemOf)).toEqual([undefined, `You add numbers.\n\n---\n\n${STYLE}`, undefined])
  })

  test("lait test replays a workflow with skills from its recorded cassettes", async () => {
    const s = server()
    const p = project("testfile", s, {
      "wf.yml": "steps:\n  - id: a\n    prompt: 'hello {{ input }}'\n    model: m\n    skills: [review, style]\n",
      "wf.test.yml": "workflow: wf.yml\ninput: x\nreplay: cassettes\nassert:\n  - type: equals\n    value: 'echo: hello x'\n"
    })
    const recorded = await p.lait(["test", "--record", "wf.test.yml"])
    expect(recorded.code).toBe(0)
    await stopServers()
    const replayed = await p.lait(["test", "wf.test.yml"])
    expect(replayed.code).toBe(0)
    expect(replayed.stdout).toContain("wf.test.yml")
  })
})

describe("skills in chat", () => {
  test("one-shot chat, with and without --stream, sends default.skills after the system prompt", async () => {
    const s = server({ script: [{ content: "ok", repeat: true }] })
    const p = project("chat", s, {}, "default:\n  model: m\n  skills: [review, style]\n")
    expect(outcome(await p.lait(["--system", "Sys.", "q1"]))).toEqual({ code: 0, stdout: "ok\n", stderr: "" })
    expect(outcome(await p.lait(["--stream", "q2"]))).toEqual({ code: 0, stdout: "ok\n", stderr: "" })
    expect(bodies(s).map(systemOf)).toEqual([`Sys.\n\n---\n\n${REVIEW}\n\n${STYLE}`, `${REVIEW}\n\n${STYLE}`])
    // No skill tools without progressive disclosure.
    expect(bodies(s).map((b) => b["tools"])).toEqual([undefined, undefined])
  })

  test("progressive disclosure in one-shot --stream and in lait chat: skill__ offered, its body sent back", async () => {
    const call = { content: null, tool_calls: [{ id: "c1", name: "skill__review", arguments: "{}" }] }
    const s = server({ script: [call, { content: "streamed" }, call, { content: "in the repl" }] })
    const p = project("chat-progressive", s, {}, "default:\n  model: m\n  skills: [review]\n" +
      "  skill_progressive_disclosure: true\n")
    expect(outcome(await p.lait(["--stream", "check"]))).toEqual({ code: 0, stdout: "streamed\n", stderr: "" })
    const repl = await runCli(["chat"], { cwd: p.dir, binary: true, env: cleanEnv(p.dir), stdin: "check again\n" })
    expect({ code: repl.code, stdout: repl.stdout, stderr: repl.stderr }).toEqual({
      code: 0,
      stdout: "in the repl\n",
      stderr: ""
    })
    const all = bodies(s)
    const system = "## Skill: code-review\n\nwhat to look for\n\n" +
      "Call the `skill__review` tool to read this skill's full instructions when you need them."
    expect(all.map(systemOf)).toEqual([system, system, system, system])
    for (const i of [0, 2]) {
      expect((all[i]!["tools"] as Array<{ function: { name: string } }>).map((t) => t.function.name))
        .toEqual(["skill__review"])
    }
    for (const i of [1, 3]) {
      expect((all[i]!["messages"] as Array<unknown>).at(-1))
        .toEqual({ role: "tool", content: "Look for {{ off-by-one }} errors.", tool_call_id: "c1" })
    }
  }, 300_000) // the first binary run may build dist/lait
})

describe("bad skills", () => {
  const run = async (name: string, skill: string, files: Readonly<Record<string, string>> = {}, remove?: string) => {
    const p = project(name, undefined, {
      "wf.yml": `steps:\n  - prompt: hi\n    model: m\n    skills: [${skill}]\n`,
      ...files
    }, "base_url: 'http://127.0.0.1:9/v1'\n")
    if (remove !== undefined) fs.rmSync(path.join(p.dir, remove))
    return outcome(await p.lait(["run", "wf.yml", "x"]))
  }

  test("an unregistered name, a missing file, a file without frontmatter, an unknown field", async () => {
    expect(await run("unknown", "tone")).toEqual({
      code: 1,
      stdout: "",
      stderr: "[1] step-1 (prompt)\nlait: unknown skill 'tone'; define it under 'skills:' in lait.config.yml\n"
    })
    const gone = await run("missing", "style", {}, "skills/style/SKILL.md")
    expect(gone.code).toBe(1)
    expect(gone.stderr).toContain(
      `lait: failed to read skill file '${path.join(ws.dir, "missing/skills/style/SKILL.md")}' (skill 'style'): `
    )
    expect(await run("nofront", "review", { "skills/review.md": "Just text.\n" })).toEqual({
      code: 3,
      stdout: "",
      stderr: "[1] step-1 (prompt)\nlait: failed to parse skill file " +
        `'${path.join(ws.dir, "nofront/skills/review.md")}' (skill 'review'): ` +
        "skill file must start with a '---' frontmatter delimiter\n"
    })
    expect(await run("field", "review", { "skills/review.md": "---\nversion: 2\n---\nx\n" })).toEqual({
      code: 3,
      stdout: "",
      stderr: "[1] step-1 (prompt)\nlait: failed to parse skill file " +
        `'${path.join(ws.dir, "field/skills/review.md")}' (skill 'review'): ` +
        "failed to parse frontmatter: unknown field 'version'; skill files accept: name, description\n"
    })
  })
})
