// The configuration side of `lait lint`: the active configuration (the one `--config`/`--no-config`
// and the upward search select, as for any command) decides whether names are checked, and its
// `workflows:` registry is reported first; a config file named or found among the PATHs is checked
// like the loader checks it (every key, value and rule, with its line) plus whether the files its
// `workflows:`/`agents:`/`skills:` entries name exist, and whether a shell tool puts a template in a
// `sh -c` script.
import { Effect } from "effect"
import { FileLoader } from "../platform/FileLoader.ts"
import * as nodePath from "node:path"
import { checkConfigText, CONFIG_FILE_NAME, loadConfig, type LoadedConfig } from "../config/load.ts"
import type { ConfigFile } from "../config/schema.ts"
import { errorLine, renderChain } from "../core/errors.ts"
import { parseYaml, type Y } from "../lang/load/yaml.ts"
import {
  BROKEN_CONFIG_REASON,
  display,
  fieldOf,
  itemOf,
  lineOfText,
  type LintEnv,
  NO_CONFIG_REASON,
  realpath,
  valueOf,
  type Where
} from "./context.ts"
import type { ConfigProblem, ConfigSection, Emitter, RegistryEntry } from "./findings.ts"
import { shellTemplate, shellTemplateMessage } from "./untrusted.ts"

const isFile = (path: string): Effect.Effect<boolean, never, FileLoader> =>
  FileLoader.use((files) => files.stat(path)).pipe(
    Effect.map((stat) => stat.isFile()),
    Effect.orElseSucceed(() => false)
  )

export interface ActiveConfig {
  readonly env: LintEnv
  readonly section: ConfigSection
  /** Real paths of the files it was merged from (their registries are reported in the section). */
  readonly files: ReadonlySet<string>
}

const problemOf = (error: unknown, fallbackFile: string): ConfigProblem => ({
  file: typeof error === "object" && error !== null && "file" in error && typeof error.file === "string"
    ? nodePath.resolve(error.file)
    : fallbackFile,
  message: renderChain(error),
  line: errorLine(error)
})

/** The global flags lint reads: which configuration is active (`--config`, `--no-config`, `--no-env`). */
export interface LintOptions {
  readonly configPath: string | undefined
  readonly noConfig: boolean
  readonly noEnv: boolean
}

/**
 * Loads the active configuration. A file that cannot be decoded becomes a finding and names are then
 * not checked; a file that decodes but breaks a rule (both `api_key` and `api_key_cmd`) is a finding
 * too, and its registry and names are still checked.
 */
export const loadActiveConfig = (options: LintOptions) =>
  Effect.gen(function*() {
    const cwd = process.cwd()
    const loaded = yield* Effect.result(
      loadConfig({
        cwd,
        configPath: options.configPath,
        noConfig: options.noConfig,
        noEnv: options.noEnv,
        waitForWriter: false,
        keepInvalid: true
      })
    )
    const fallbackFile = nodePath.resolve(cwd, options.configPath ?? CONFIG_FILE_NAME)
    if (loaded._tag === "Failure") {
      const problem = problemOf(loaded.failure, fallbackFile)
      return {
        env: { config: undefined, skippedBecause: BROKEN_CONFIG_REASON },
        section: { path: problem.file, problems: [problem], registry: [] },
        files: new Set()
      } satisfies ActiveConfig
    }
    const config: LoadedConfig = loaded.success
    const present = config.files.length > 0
    const registry: Array<RegistryEntry> = (yield* Effect.forEach(
      Object.entries(config.config.workflows ?? {}),
      ([name, path]) => Effect.map(isFile(path), (exists) => ({ name, path, exists }))
    )).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    const real = yield* Effect.forEach(config.files, realpath)
    return {
      env: { config: present ? config.config : undefined, skippedBecause: NO_CONFIG_REASON },
      section: {
        path: config.files[config.files.length - 1] ?? fallbackFile,
        problems: (config.invalid ?? []).map((e) => problemOf(e, fallbackFile)),
        registry
      },
      files: new Set(real.flatMap((r) => (r.ok ? [r.path] : [])))
    } satisfies ActiveConfig
  })

const SKILL_FILE = "SKILL.md"

/** Why a registry entry's path does not work, or undefined. */
export const registryProblem = (
  section: "workflows" | "agents" | "skills",
  path: string
): Effect.Effect<string | undefined, never, FileLoader> =>
  Effect.gen(function*() {
    const stat = yield* Effect.option(FileLoader.use((files) => files.stat(path)))
    if (stat._tag === "None") return "which does not exist"
    if (section === "skills" && stat.value.isDirectory()) {
      return (yield* isFile(nodePath.join(path, SKILL_FILE))) ? undefined : `a directory without ${SKILL_FILE}`
    }
    return stat.value.isFile() ? undefined : "which is not a regular file"
  })

/** `tools:` whose command is `sh -c` with a template in the script (src/lint/untrusted.ts). */
const checkShellTools = (config: ConfigFile, where: Where, root: Y | undefined, emitter: Emitter) => {
  const holder = valueOf(where, root, "tools")
  for (const [name, tool] of Object.entries(config.tools ?? {})) {
    const found = shellTemplate(tool.command)
    if (found === undefined) continue
    const item = itemOf(where, valueOf(where, valueOf(where, holder, name), "command"), found.index)
    const line = lineOfText(where, item, found.template)
    emitter.emit("warning", shellTemplateMessage(`tool '${name}'`, found), line, "untrusted-shell")
  }
}

/** A config file among the PATHs. */
export const lintConfigText = (
  path: string,
  text: string,
  active: ActiveConfig,
  emitter: Emitter
): Effect.Effect<void, never, FileLoader> =>
  Effect.gen(function*() {
    const absolute = nodePath.resolve(path)
    // Parsed under the path as shown (registry paths still resolve from its directory), so the
    // loader's messages name the file the way the report does.
    const parsed = yield* Effect.result(checkConfigText(display(absolute), text))
    if (parsed._tag === "Failure") {
      emitter.emit("error", renderChain(parsed.failure), errorLine(parsed.failure))
      return
    }
    // A broken rule does not hide the registry's problems.
    const invalid = parsed.success.invalid
    if (invalid !== undefined) emitter.emit("error", renderChain(invalid), errorLine(invalid))
    const config: ConfigFile = parsed.success.config
    const yaml = parseYaml(text)
    const where: Where = { src: yaml.ok ? yaml.source : undefined }
    const root = where.src?.top(1)
    checkShellTools(config, where, root, emitter)
    const real = yield* realpath(absolute)
    // The active config's registry is already reported in its own section.
    if (real.ok && active.files.has(real.path)) return
    for (const section of ["workflows", "agents", "skills"] as const) {
      const holder = valueOf(where, root, section)
      for (const [name, target] of Object.entries(config[section] ?? {})) {
        const problem = yield* registryProblem(section, target)
        if (problem === undefined) continue
        const shown = display(target)
        emitter.emit(
          "error",
          `${section}.${name} resolves to '${shown}', ${problem}`,
          fieldOf(where, holder, name)?.keyLine
        )
      }
    }
  })
