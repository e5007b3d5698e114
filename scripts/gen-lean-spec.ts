// Writes src/cli/leanSpec.generated.json, what the lean reader of `lait run` and `lait eval`
// (src/cli/leanArgs.ts) knows of their flags, from the command tree's own definitions: each flag's
// name, aliases, type, choices, negation, and the value effect/cli gives when it is absent. build.ts
// runs it before every build; `bun scripts/gen-lean-spec.ts --check` (and test/cli/leanSpec.test.ts)
// fails when the file is stale. Nothing about a flag is written twice.
import { Effect, Option } from "effect"
import { type Command, Param, Primitive } from "effect/cli"
import * as fs from "node:fs"
import * as path from "node:path"
import { evalCommand } from "../src/cli/eval.ts"
import { globalFlags } from "../src/cli/global.ts"
import type { LeanArgumentSpec, LeanCommandSpec, LeanFlagSpec, LeanFlagType, LeanSpec } from "../src/cli/leanSpec.ts"
import { runCommand } from "../src/cli/run.ts"

export const generatedPath = path.join(import.meta.dir, "..", "src", "cli", "leanSpec.generated.json")

// effect/cli's parsed command configuration (internal/config.ts): each input key's parameter.
interface CommandInternals {
  readonly name: string
  readonly config: {
    readonly tree: Record<string, { readonly _tag: string; readonly index: number }>
    readonly orderedParams: ReadonlyArray<Param.Any>
  }
  readonly subcommands: ReadonlyArray<{ readonly commands: ReadonlyArray<{ readonly name: string }> }>
}

// Exported by effect/cli at run time (its help and completions use them) but left out of its types.
interface Single {
  readonly name: string
  readonly aliases: ReadonlyArray<string>
  readonly negation?: string | false
  readonly primitiveType: { readonly _tag: string; readonly parse: (text: string) => Effect.Effect<unknown, unknown> }
}
const { extractSingleParams, getParamMetadata } = Param as unknown as {
  readonly extractSingleParams: (param: Param.Any) => ReadonlyArray<Single>
  readonly getParamMetadata: (param: Param.Any) => { readonly isOptional: boolean; readonly isVariadic: boolean }
}
const { getChoiceKeys } = Primitive as unknown as {
  readonly getChoiceKeys: (primitive: Single["primitiveType"]) => ReadonlyArray<string> | undefined
}

const TYPES: Record<string, LeanFlagType> = {
  String: "string",
  Boolean: "boolean",
  Int: "integer",
  Finite: "number",
  Choice: "choice"
}

/** What effect/cli's own parser gives for the parameter on an empty command line (undefined: it is required). */
const absent = (param: Param.Any): { readonly value: unknown } | undefined => {
  const parse = (param as unknown as { parse: (args: unknown) => Effect.Effect<readonly [unknown, unknown], unknown> })
    .parse
  const exit = Effect.runSyncExit(parse({ flags: {}, arguments: [] }))
  return exit._tag === "Success" ? { value: exit.value[1] } : undefined
}

const flagSpec = (key: string, param: Param.Any): LeanFlagSpec => {
  const [single, ...more] = extractSingleParams(param)
  if (single === undefined || more.length > 0) throw new Error(`--${key}: not one flag`)
  const type = TYPES[single.primitiveType._tag]
  if (type === undefined) throw new Error(`--${single.name}: the lean reader has no ${single.primitiveType._tag} flags`)
  const metadata = getParamMetadata(param)
  const empty = absent(param)
  if (empty === undefined) throw new Error(`--${single.name}: a required flag; the lean reader has none`)
  const option = Option.isOption(empty.value)
  if (option && Option.isSome(empty.value)) throw new Error(`--${single.name}: an optional flag with a value`)
  const choices = getChoiceKeys(single.primitiveType)
  // The lean reader returns a choice as typed: only right when effect/cli's value is the same string.
  for (const choice of choices ?? []) {
    const parsed = Effect.runSync(single.primitiveType.parse(choice))
    if (parsed !== choice) throw new Error(`--${single.name}: choice '${choice}' parses to something else`)
  }
  if (typeof single.negation === "string") throw new Error(`--${single.name}: the lean reader knows only --no-NAME`)
  return {
    key,
    name: single.name,
    ...(single.aliases.length === 0 ? {} : { aliases: single.aliases }),
    type,
    ...(choices === undefined ? {} : { choices }),
    ...(type === "boolean" && single.negation !== false ? { negatable: true } : {}),
    ...(option ? { option } : {}),
    ...(metadata.isVariadic ? { repeated: true } : {}),
    ...(option ? {} : { default: empty.value })
  }
}

const commandSpec = (command: Command.Command.Any, name: LeanCommandSpec["name"]): LeanCommandSpec => {
  const internals = command as unknown as CommandInternals
  const args: Array<LeanArgumentSpec> = []
  const flags: Array<LeanFlagSpec> = []
  for (const [key, node] of Object.entries(internals.config.tree)) {
    if (node._tag !== "Param") throw new Error(`${name} ${key}: nested flag groups are not read by the lean reader`)
    const param = internals.config.orderedParams[node.index]!
    if (param.kind === "argument") {
      const metadata = getParamMetadata(param)
      if (metadata.isVariadic) throw new Error(`${name} <${key}>: variadic arguments are not read by the lean reader`)
      args.push({ key, optional: metadata.isOptional })
    } else {
      flags.push(flagSpec(key, param))
    }
  }
  const subcommands = internals.subcommands.flatMap((group) => group.commands.map((c) => c.name))
  return { name, arguments: args, flags, subcommands }
}

export const leanSpec = (): LeanSpec => ({
  commands: [commandSpec(runCommand, "run"), commandSpec(evalCommand, "eval")],
  globals: globalFlags.map((setting) => flagSpec(setting.id, setting.flag)),
  leftToCli: {
    // Its terminal prompt (y/n/a) is effect/cli's.
    flags: ["approve-tools"],
    // Live export wraps the command in its own spans (src/trace/live/layer.ts).
    environment: ["OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"],
    // src/cli/app.ts words these conflicts itself, before effect/cli parses.
    conflicts: [["config", "no-config"]]
  }
})

// Data, not code: the file is read as it is, and `duplicates` and the line-length check pass it by.
export const leanSpecSource = (): string => `${JSON.stringify(leanSpec(), null, 2)}\n`

if (import.meta.main) {
  const source = leanSpecSource()
  const current = fs.existsSync(generatedPath) ? fs.readFileSync(generatedPath, "utf8") : undefined
  if (process.argv.includes("--check")) {
    if (current !== source) {
      process.stderr.write(`${generatedPath} is stale: run bun scripts/gen-lean-spec.ts\n`)
      process.exit(1)
    }
  } else if (current !== source) {
    fs.writeFileSync(generatedPath, source)
  }
}
