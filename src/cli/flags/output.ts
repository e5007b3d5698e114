// The output group: where a command's result goes and in what form (`-o PATH`, `--json`), and the
// token usage it reports on stderr. Declared once here; each command composes the flags it takes,
// naming what it prints (the result, the answer, the report).
import { Flag } from "effect/cli"
import { switchFlag, type SwitchFlagMaker, valueFlag, type ValueFlagMaker } from "./make.ts"

/** `--format FORMAT`, one of `formats`; the first when not given. */
export const formatFlag = <const Formats extends readonly [string, ...Array<string>]>(
  formats: Formats,
  description: string
): Flag.Flag<Formats[number]> =>
  Flag.Literals("format", formats).pipe(Flag.withDescription(description), Flag.withDefault(formats[0]))

/** `-o, --output PATH`. */
export const outputFlag = (what: string, make: ValueFlagMaker = valueFlag) =>
  make("output", "PATH", `Write the ${what} to PATH instead of stdout ('-' is stdout)`, "o")

/** `--json`: the content with its reasoning and usage, as one object. */
export const contentJsonFlag = (what: string, make: SwitchFlagMaker = switchFlag) =>
  make("json", `Print {"content","reasoning","usage"} instead of the bare ${what}`)

export const showUsageFlag = (
  description = "Print token usage (and cost, with pricing:) to stderr",
  make: SwitchFlagMaker = switchFlag
) => make("show-usage", description)
