// The lean paths' reading of the command line: `lait run FILE [PROMPT] [FLAGS]` and `lait eval FILE
// [FLAGS]` written in the plainest forms only. What each command takes — flag names, aliases, types,
// choices, defaults, which are repeatable or optional — is not written here: src/cli/leanSpec.generated.json
// is generated from the command tree's own definitions (scripts/gen-lean-spec.ts, run by build.ts;
// test/cli/leanSpec.test.ts fails when it is stale). Anything this does not read plainly — help, the
// version, completions, `--`, an unknown flag, a flag given twice that is not repeatable, a value that
// starts with '-', a number not written as plain digits, a choice not among its choices, a short-flag
// cluster, the flags the spec leaves to effect/cli, live OTLP export — is undefined and goes through
// effect/cli (src/cli/app.ts), which also reports every mistake. What this accepts, effect/cli parses
// to the same values (test/e2e/lean-run.test.ts and lean-eval.test.ts run command lines through both).
// It imports nothing but that data: src/main.ts reads it before loading anything.
import { LEAN_SPEC, type LeanCommandName, type LeanCommandSpec, type LeanFlagSpec, type LeanSpec } from "./leanSpec.ts"

/** What a lean reader took from a command line: the values effect/cli would hand the handler. */
export interface LeanArgs {
  readonly command: LeanCommandName
  /** By the command's input keys; an absent optional flag or argument is undefined (not yet an Option). */
  readonly input: Readonly<Record<string, unknown>>
  /** The keys of `input` whose values effect/cli gives as Options. */
  readonly optional: ReadonlyArray<string>
  /** The global flags, by their setting ids (verbose, config, no-config, no-env, cache). */
  readonly globals: Readonly<Record<string, unknown>>
}

const INTEGER = /^(0|[1-9]\d{0,8})$/
const DECIMAL = /^(0|[1-9]\d{0,8})(\.\d{1,9})?$/

/** A flag's value as effect/cli reads it, or undefined when it would read it otherwise or reject it. */
const valueOf = (flag: LeanFlagSpec, text: string): unknown => {
  switch (flag.type) {
    case "string":
      return text
    case "integer":
      return INTEGER.test(text) ? Number(text) : undefined
    case "number":
      return DECIMAL.test(text) ? Number(text) : undefined
    case "choice":
      return flag.choices?.includes(text) === true ? text : undefined
    case "boolean":
      return undefined
  }
}

type Found = { readonly flag: LeanFlagSpec; readonly negated: boolean }

/** The flag `arg` names (before any `=`), by name, negation or one-letter alias. */
const findFlag = (spec: LeanSpec, command: LeanCommandSpec, name: string): Found | undefined => {
  for (const flags of [command.flags, spec.globals]) {
    for (const flag of flags) {
      const aliases = flag.aliases ?? []
      if (name === `--${flag.name}` || aliases.some((a) => name === (a.length === 1 ? `-${a}` : `--${a}`))) {
        return { flag, negated: false }
      }
      if (flag.negatable === true && name === `--no-${flag.name}`) return { flag, negated: true }
    }
  }
  return undefined
}

/** The command line read as a plain `lait run` or `lait eval`, or undefined when effect/cli must read it. */
export const leanArgs = (
  argv: ReadonlyArray<string>,
  env: Record<string, string | undefined>,
  spec: LeanSpec = LEAN_SPEC
): LeanArgs | undefined => {
  const command = spec.commands.find((c) => c.name === argv[0])
  if (command === undefined) return undefined
  // Live export wraps the command in its own spans; keep it on the path it was built and tested on.
  if (spec.leftToCli.environment.some((n) => (env[n] ?? "").trim() !== "")) return undefined
  const positionals: Array<string> = []
  const given = new Map<LeanFlagSpec, Array<unknown>>()
  for (let i = 1; i < argv.length; i++) {
    const arg = argv[i]!
    if (!arg.startsWith("-") && arg !== "") {
      positionals.push(arg)
      continue
    }
    const eq = arg.startsWith("--") ? arg.indexOf("=") : -1
    const name = eq === -1 ? arg : arg.slice(0, eq)
    // `-vv`: a repeatable one-letter boolean, given as often as the letter stands.
    const cluster = /^-([a-zA-Z])\1+$/.exec(arg)
    const found = findFlag(spec, command, cluster === null ? name : `-${cluster[1]}`)
    if (found === undefined || spec.leftToCli.flags.includes(found.flag.name)) return undefined
    const { flag, negated } = found
    const values = given.get(flag) ?? []
    if (values.length > 0 && flag.repeated !== true) return undefined
    if (cluster !== null && !(flag.type === "boolean" && flag.repeated === true)) return undefined
    // `--no-verbose`: what a negated count means is effect/cli's to say.
    if (negated && flag.repeated === true) return undefined
    if (flag.type === "boolean") {
      if (eq !== -1) return undefined
      for (let n = cluster === null ? 1 : arg.length - 1; n > 0; n--) values.push(!negated)
    } else {
      const text = eq === -1 ? argv[++i] : arg.slice(eq + 1)
      if (text === undefined || text === "" || text.startsWith("-")) return undefined
      const value = valueOf(flag, text)
      if (value === undefined) return undefined
      values.push(value)
    }
    given.set(flag, values)
  }
  const [required, total] = [command.arguments.filter((a) => !a.optional).length, command.arguments.length]
  if (positionals.length < required || positionals.length > total) return undefined
  // A subcommand's name is the subcommand wherever it stands; effect/cli decides what it means.
  if (positionals.some((p) => command.subcommands.includes(p))) return undefined
  const read = (flags: ReadonlyArray<LeanFlagSpec>) =>
    Object.fromEntries(flags.map((flag) => {
      const values = given.get(flag)
      if (values === undefined) return [flag.key, flag.default]
      return [flag.key, flag.repeated === true ? values : values[0]]
    }))
  const globals = read(spec.globals)
  for (const [a, b] of spec.leftToCli.conflicts) {
    if (given.has(spec.globals.find((f) => f.key === a)!) && given.has(spec.globals.find((f) => f.key === b)!)) {
      return undefined
    }
  }
  const input = {
    ...Object.fromEntries(command.arguments.map((argument, i) => [argument.key, positionals[i]])),
    ...read(command.flags)
  }
  const optional = [
    ...command.arguments.filter((a) => a.optional).map((a) => a.key),
    ...command.flags.filter((f) => f.option === true).map((f) => f.key)
  ]
  return { command: command.name, input, optional, globals }
}
