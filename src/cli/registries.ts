// `lait workflow list`, `lait skill list` (and the listing half of `lait agent list`): one line per
// entry of a lait.config.yml registry, in name order, `<name>  (<path>): <description>` (the file's
// own `description:`, when it has one). An entry whose file is missing or malformed is still listed,
// with a `  warning:` line under it: `lait lint` is where a bad entry fails. An empty registry is a
// note on stdout and exit 0. Files are read without waiting on a FIFO: a list never blocks.
import { Effect, Exit } from "effect"
import { Command } from "effect/cli"
import { LaitConfig } from "../config/LaitConfig.ts"
import { type AnyLaitError, renderChain } from "../core/errors.ts"
import type { FileLoader } from "../platform/FileLoader.ts"
import { configLayer } from "./config.ts"
import { printLine } from "./output.ts"

export type RegistrySection = "workflows" | "agents" | "skills"

/** The file an entry names (a skill directory's SKILL.md) and how to read its description. */
export type EntryLoader = (name: string, path: string) => {
  /** An effect when finding it looks at the file system (a skill directory). */
  readonly path: string | Effect.Effect<string, never, FileLoader>
  readonly description: Effect.Effect<string | undefined, AnyLaitError, FileLoader>
}

const listRegistry = (section: RegistrySection, load: EntryLoader) =>
  Effect.gen(function*() {
    const entries = (yield* LaitConfig).config[section] ?? {}
    const names = Object.keys(entries).sort()
    if (names.length === 0) {
      return yield* printLine(`no ${section} defined in lait.config.yml; add a '${section}:' entry to define one`)
    }
    for (const name of names) {
      const entry = load(name, entries[name]!)
      const path = typeof entry.path === "string" ? entry.path : yield* entry.path
      const description = yield* Effect.exit(entry.description)
      if (Exit.isSuccess(description)) {
        const text = description.value
        yield* printLine(text === undefined ? `${name}  (${path})` : `${name}  (${path}): ${text}`)
        continue
      }
      const error = description.cause.reasons.find((r) => r._tag === "Fail")
      yield* printLine(`${name}  (${path})`)
      yield* printLine(`  warning: ${error === undefined ? "could not be read" : renderChain(error.error)}`)
    }
  })

/**
 * `lait <kind> list` for a registry. `entries` imports what reads an entry's file when the command runs
 * (loaded on demand: other commands never pay for the workflow, agent or skill loaders).
 */
export const registryListCommand = (
  section: RegistrySection,
  description: string,
  entries: () => Promise<EntryLoader>
) =>
  Command.make("list", {}, () => Effect.flatMap(Effect.promise(entries), (load) => listRegistry(section, load))).pipe(
    Command.withDescription(description),
    Command.provide(configLayer())
  )

const workflowList = registryListCommand(
  "workflows",
  "List the workflows: entries of lait.config.yml (runnable by name with lait run NAME)",
  async () => {
    const { loadWorkflow } = await import("../lang/load.ts")
    return (_, path) => ({ path, description: Effect.map(loadWorkflow(path), (w) => w.description) })
  }
)

export const workflowCommand = Command.make("workflow").pipe(
  Command.withDescription("Work with the workflows registered in lait.config.yml"),
  Command.withSubcommands([workflowList])
)

const skillList = registryListCommand(
  "skills",
  "List the skills: entries of lait.config.yml (a directory means its SKILL.md)",
  async () => {
    const { loadSkill, skillFilePath } = await import("../tools/skills.ts")
    return (name, path) => ({
      path: skillFilePath(path),
      description: Effect.map(loadSkill(name, path), (skill) => skill.description)
    })
  }
)

export const skillCommand = Command.make("skill").pipe(
  Command.withDescription("Work with the skills registered in lait.config.yml"),
  Command.withSubcommands([skillList])
)
