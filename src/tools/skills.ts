// Skills (docs/agents.md#skills): Markdown files registered under `skills:` in lait.config.yml (a
// directory means its SKILL.md), `---` frontmatter with an optional `name` and `description`, then a
// body. A request whose settings name skills gets them appended to its system prompt, after its own
// instructions and a `---` line, as `## Skill: <name>` sections in the order listed. The body is never
// rendered as a template: skills often quote `{{ }}` in examples.
//
// With `default.skill_progressive_disclosure: true` only each skill's name and description go into the
// system prompt, and the body is the answer of a `skill__<name>` tool: the model reads what it needs,
// and the request goes through the tool loop even when it has no other tools.
import { Effect } from "effect"
import * as nodePath from "node:path"
import { renderChain } from "../core/errors.ts"
import { isJsonObject, type Json } from "../core/json.ts"
import { SkillError } from "./skillErrors.ts"
import { ToolError } from "./toolErrors.ts"
import { parseYamlValue } from "../core/yamlTree.ts"
import { splitFrontmatter } from "../lang/agentFile.ts"
import type { ChatMessage } from "../model/types.ts"
import { FileLoader } from "../platform/FileLoader.ts"
import { qualifyToolName } from "./names.ts"
import { toolDefinition, type ToolEntry } from "./types.ts"

export const SKILL_FILE = "SKILL.md"
const FIELDS = ["name", "description"]

export interface Skill {
  /** The `skills:` name it was asked for by. */
  readonly key: string
  /** Frontmatter `name`, else the `skills:` name. */
  readonly name: string
  readonly description: string | undefined
  /** Trimmed. */
  readonly body: string
  /** The file read (a directory entry's SKILL.md). */
  readonly path: string
}

/** A registry path as the file to read: a directory means its SKILL.md. */
export const skillFilePath = (configured: string): Effect.Effect<string, never, FileLoader> =>
  FileLoader.use((files) => files.stat(configured)).pipe(
    Effect.map((stat) => (stat.isDirectory() ? nodePath.join(configured, SKILL_FILE) : configured)),
    Effect.orElseSucceed(() => configured)
  )

/** The frontmatter and body of a skill file, or why it is not one. */
export const parseSkill = (
  key: string,
  path: string,
  contents: string
): Skill | string => {
  const split = splitFrontmatter(contents, "skill file")
  if (typeof split === "string") return split
  let frontmatter: unknown
  try {
    frontmatter = parseYamlValue(split.frontmatter) ?? {}
  } catch (e) {
    return `failed to parse frontmatter: ${e instanceof Error ? e.message : String(e)}`
  }
  if (!isJsonObject(frontmatter as Json)) return "failed to parse frontmatter: it must be a YAML mapping"
  const fields = frontmatter as Record<string, unknown>
  for (const field of Object.keys(fields)) {
    if (!FIELDS.includes(field)) {
      return `failed to parse frontmatter: unknown field '${field}'; skill files accept: ${FIELDS.join(", ")}`
    }
  }
  for (const field of FIELDS) {
    const value = fields[field]
    if (value !== undefined && value !== null && typeof value !== "string") {
      return `failed to parse frontmatter: '${field}' must be a string`
    }
  }
  const name = fields["name"]
  const description = fields["description"]
  return {
    key,
    name: typeof name === "string" ? name : key,
    description: typeof description === "string" ? description : undefined,
    body: split.body.trim(),
    path
  }
}

/** Reads and parses the skill registered as `key` at `configured` (an absolute registry path). */
export const loadSkill = (key: string, configured: string): Effect.Effect<Skill, SkillError, FileLoader> =>
  Effect.gen(function*() {
    const path = yield* skillFilePath(configured)
    const text = yield* FileLoader.use((f) => f.readText(path)).pipe(
      Effect.mapError((e) =>
        new SkillError({
          reason: { _tag: "ReadFailed", name: key, path, detail: "detail" in e ? String(e.detail) : renderChain(e) }
        })
      )
    )
    const parsed = parseSkill(key, path, text)
    if (typeof parsed === "string") {
      return yield* new SkillError({ reason: { _tag: "Invalid", name: key, path, detail: parsed } })
    }
    return parsed
  })

/** The qualified tool name of a skill in progressive mode. */
export const skillToolName = (skill: Skill): string | ToolError => qualifyToolName("skill tool", "skill", skill.key)

/** One skill's section of the system prompt; in progressive mode it points at the tool instead of the body. */
export const skillSection = (skill: Skill, tool?: string): string => {
  const head = `## Skill: ${skill.name}\n${skill.description === undefined ? "" : `\n${skill.description}\n`}`
  return tool === undefined
    ? `${head}\n${skill.body}`
    : `${head}\nCall the \`${tool}\` tool to read this skill's full instructions when you need them.`
}

/**
 * The messages with the skills' text appended to the leading system message (after a `---` line), or,
 * when there is none, with the text as a new leading system message.
 */
export const withSkillText = (messages: ReadonlyArray<ChatMessage>, text: string): ReadonlyArray<ChatMessage> => {
  const first = messages[0]
  if (first?.role === "system" && typeof first.content === "string") {
    const content = first.content.length === 0 ? text : `${first.content}\n\n---\n\n${text}`
    return [{ ...first, content }, ...messages.slice(1)]
  }
  return [{ role: "system", content: text }, ...messages]
}

/** The `skill__<name>` tools of progressive mode; a call's answer is the skill's body. */
export const skillToolEntries = (
  skills: ReadonlyArray<Skill>
): ReadonlyArray<ToolEntry> | ToolError => {
  const entries: Array<ToolEntry> = []
  for (const skill of skills) {
    const name = skillToolName(skill)
    if (name instanceof ToolError) return name
    if (entries.some((e) => e.name === name)) continue
    const description = `Returns the full instructions of the '${skill.name}' skill` +
      (skill.description === undefined ? "." : `: ${skill.description}`)
    entries.push({
      name,
      source: "skill",
      definition: toolDefinition(name, description, { type: "object", properties: {} }),
      call: () => Effect.succeed(skill.body)
    })
  }
  return entries
}

/**
 * The run's skills: each file is read once, on first use, then kept for the rest of the run (a skill
 * in a loop's step is not read again every iteration).
 */
export class Skills {
  private readonly cache = new Map<string, Skill>()

  constructor(private readonly registry: Readonly<Record<string, string>> | undefined) {}

  load(names: ReadonlyArray<string>): Effect.Effect<ReadonlyArray<Skill>, SkillError, FileLoader> {
    return Effect.forEach(names, (key) =>
      Effect.suspend(() => {
        const cached = this.cache.get(key)
        if (cached !== undefined) return Effect.succeed(cached)
        const configured = this.registry?.[key]
        if (configured === undefined) return Effect.fail(new SkillError({ reason: { _tag: "Unknown", name: key } }))
        return loadSkill(key, configured).pipe(Effect.tap((skill) => Effect.sync(() => this.cache.set(key, skill))))
      }))
  }
}
