// The shapes most of lait's flags take, for the flag groups of src/cli/flags/. A group takes the
// maker as a parameter where a command must declare its flags through its own (the root's chat flags
// register their names for the subcommand check, src/cli/chatFlags.ts).
import type { Option } from "effect"
import { Argument, Flag } from "effect/cli"

/** `--NAME METAVAR` (and `-ALIAS METAVAR`), optional. */
export type ValueFlagMaker = (
  name: string,
  metavar: string,
  description: string,
  alias?: string
) => Flag.Flag<Option.Option<string>>
/** `--NAME`, false unless given. */
export type SwitchFlagMaker = (name: string, description: string) => Flag.Flag<boolean>

export const valueFlag: ValueFlagMaker = (name, metavar, description, alias) =>
  Flag.String(name).pipe(
    (flag) => (alias === undefined ? flag : Flag.withAlias(flag, alias)),
    Flag.withMetavar(metavar),
    Flag.withDescription(description),
    Flag.optional
  )

export const switchFlag: SwitchFlagMaker = (name, description) =>
  Flag.Boolean(name).pipe(Flag.withDescription(description), Flag.withDefault(false))

/** `--NAME`, false unless given, with no `--no-NAME` form. */
export const bareSwitchFlag: SwitchFlagMaker = (name, description) =>
  Flag.Boolean(name).pipe(Flag.withoutNegation, Flag.withDescription(description), Flag.withDefault(false))

/** `PATH...`: one or more files or directories, as the commands that walk them take them. */
export const pathsArgument = (description: string) =>
  Argument.String("path").pipe(Argument.withDescription(description), Argument.variadic({ min: 1 }))

/** `--NAME METAVAR`, repeatable: every value given, in order (none when it is not). */
export const repeatedFlag = (name: string, metavar: string, description: string) =>
  Flag.String(name).pipe(Flag.withMetavar(metavar), Flag.withDescription(description), Flag.atLeast(0))
