// Skill files and how their text joins a request (src/tools/skills.ts), without a model: frontmatter
// rules, the `## Skill:` section in both modes, where the text goes in the messages, the registry
// cache, and the skill__ tools of progressive mode.
import { describe, expect, test } from "bun:test"
import { Effect, Exit } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { FileLoader } from "../../src/platform/FileLoader.ts"
import {
  parseSkill,
  type Skill,
  skillFilePath,
  Skills,
  skillSection,
  skillToolEntries,
  withSkillText
} from "../../src/tools/skills.ts"
import { makeTempDir } from "../e2e/util.ts"

const skill = (over: Partial<Skill> = {}): Skill => ({
  key: "review",
  name: "code-review",
  description: "what to look for",
  body: "Look for bugs.",
  path: "/s/review.md",
  ...over
})

describe("parseSkill", () => {
  test("frontmatter name and description, body trimmed; CRLF delimiters", () => {
    expect(parseSkill("k", "/p", "---\r\nname: n\r\ndescription: d\r\n---\r\n\r\n body \r\n")).toEqual({
      key: "k",
      name: "n",
      description: "d",
      body: "body",
      path: "/p"
    })
  })

  test("empty frontmatter: the registry name, no description", () => {
    expect(parseSkill("k", "/p", "---\n---\nBody {{ x }}\n")).toEqual({
      key: "k",
      name: "k",
      description: undefined,
      body: "Body {{ x }}",
      path: "/p"
    })
  })

  test("what is not a skill file", () => {
    expect(parseSkill("k", "/p", "text\n")).toBe("skill file must start with a '---' frontmatter delimiter")
    expect(parseSkill("k", "/p", "---\nname: x\n")).toBe("skill file frontmatter has no closing '---' delimiter")
    expect(parseSkill("k", "/p", "---\nmodel: m\n---\nx\n")).toBe(
      "failed to parse frontmatter: unknown field 'model'; skill files accept: name, description"
    )
    expect(parseSkill("k", "/p", "---\nname: [1]\n---\nx\n")).toBe("failed to parse frontmatter: 'name' must be a string")
    expect(parseSkill("k", "/p", "---\n- a\n---\nx\n")).toBe("failed to parse frontmatter: it must be a YAML mapping")
    expect(parseSkill("k", "/p", "---\nname: [\n---\nx\n")).toStartWith("failed to parse frontmatter: ")
  })
})

describe("sections and messages", () => {
  test("the section, with and without a description, and in progressive mode", () => {
    expect(skillSection(skill())).toBe("## Skill: code-review\n\nwhat to look for\n\nLook for bugs.")
    expect(skillSection(skill({ description: undefined }))).toBe("## Skill: code-review\n\nLook for bugs.")
    expect(skillSection(skill(), "skill__review")).toBe(
      "## Skill: code-review\n\nwhat to look for\n\n" +
        "Call the `skill__review` tool to read this skill's full instructions when you need them."
    )
  })

  test("appended to the leading system message after ---, else a system message of its own", () => {
    const user = { role: "user", content: "hi" } as const
    expect(withSkillText([{ role: "system", content: "Sys." }, user], "S")).toEqual([
      { role: "system", content: "Sys.\n\n---\n\nS" },
      user
    ])
    expect(withSkillText([user], "S")).toEqual([{ role: "system", content: "S" }, user])
  })

  test("skill__ tools answer with the body; a name too long for a tool is an error", () => {
    const entries = skillToolEntries([skill(), skill()])
    if (!Array.isArray(entries)) throw new Error("expected entries")
    expect(entries.map((e) => e.name)).toEqual(["skill__review"])
    expect(Effect.runSync(entries[0]!.call("{}"))).toBe("Look for bugs.")
    const long = skillToolEntries([skill({ key: "x".repeat(60) })])
    expect(Array.isArray(long)).toBe(false)
  })
})

describe("Skills", () => {
  test("a directory means its SKILL.md; each file is read once; an unknown name fails", async () => {
    const dir = makeTempDir("skills-unit")
    fs.mkdirSync(path.join(dir, "tone"))
    fs.writeFileSync(path.join(dir, "tone", "SKILL.md"), "---\n---\nCalm.\n")
    expect(await Effect.runPromise(skillFilePath(path.join(dir, "tone")).pipe(Effect.provide(FileLoader.layer)))).toBe(path.join(dir, "tone", "SKILL.md"))
    const skills = new Skills({ tone: path.join(dir, "tone") })
    const load = (names: ReadonlyArray<string>) =>
      Effect.runPromiseExit(skills.load(names).pipe(Effect.provide(FileLoader.layer)))
    const first = await load(["tone"])
    expect(Exit.isSuccess(first) && first.value[0]?.body).toBe("Calm.")
    fs.writeFileSync(path.join(dir, "tone", "SKILL.md"), "---\n---\nChanged.\n")
    const second = await load(["tone", "tone"])
    expect(Exit.isSuccess(second) && second.value.map((s) => s.body)).toEqual(["Calm.", "Calm."])
    const unknown = await load(["nope"])
    expect(Exit.isFailure(unknown) && String(unknown.cause)).toContain(
      "unknown skill 'nope'; define it under 'skills:' in lait.config.yml"
    )
    fs.rmSync(dir, { recursive: true, force: true })
  })
})
