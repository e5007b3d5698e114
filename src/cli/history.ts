// `lait history [-l N] [--kind K] [--model TEXT] [--since WHEN] [--json]`, `lait history show N [--json]`
// and `lait history search QUERY`: read the runs that `recordHistory` (src/history/record.ts) appended.
// No config and no `.env` is loaded (a broken lait.config.yml must not hide the history): the file's
// place comes from XDG_DATA_HOME and HOME, which a `.env` may not set (docs/environment.md).
// Also `noHistoryFlag`, the `--no-history` every recording command declares.
import { Effect, Option } from "effect"
import { Argument, Command, Flag } from "effect/cli"
import { bareSwitchFlag, switchFlag, valueFlag } from "./flags/make.ts"
import { ArgumentError } from "../core/usageErrors.ts"
import { processEnv } from "../config/environment.ts"
import { printLine } from "./output.ts"

/** `--no-history`, as `lait run` (and chat, prompt run, agent run) declare it. */
export const noHistoryFlag = bareSwitchFlag(
  "no-history",
  "Do not record this run in `lait history` (default.history: false does so for every run)"
)

// Accepted before and after `search`/`show` (npm-style), as the original takes them on either side.
const filterFlags = {
  kind: valueFlag("kind", "KIND", "Only runs of this kind: chat, agent, workflow or prompt"),
  model: valueFlag("model", "TEXT", "Only runs whose model name contains TEXT (workflow runs record no model)"),
  since: valueFlag(
    "since", "WHEN", "Only runs since WHEN: 2026-09-01 (UTC), an RFC 3339 time, or 30m, 12h, 7d, 2w ago"
  ),
  json: switchFlag("json", "Print a JSON array (show: one object), each entry with the number `show` takes")
}

interface FilterInput {
  readonly kind: Option.Option<string>
  readonly model: Option.Option<string>
  readonly since: Option.Option<string>
}

/** The history file's entries, newest first, and the filter the flags ask for. */
const load = (flags: FilterInput) =>
  Effect.gen(function*() {
    const [store, entry] = yield* Effect.promise(() =>
      Promise.all([import("../history/store.ts"), import("../history/entry.ts")])
    )
    const { HistoryError } = yield* Effect.promise(() => import("../history/historyErrors.ts"))
    const sinceText = Option.getOrUndefined(flags.since)
    const since = sinceText === undefined ? undefined : entry.parseSince(sinceText, Date.now())
    if (sinceText !== undefined && since === undefined) {
      return yield* new HistoryError({ reason: { _tag: "BadSince", value: sinceText } })
    }
    const numbered = yield* store.readHistory(yield* store.historyPath(processEnv()))
    const filter = { kind: Option.getOrUndefined(flags.kind), model: Option.getOrUndefined(flags.model), since }
    return { numbered, filter, entry }
  })

const printEntries = Effect.fnUntraced(function*(
  entries: ReadonlyArray<import("../history/entry.ts").Numbered>,
  json: boolean,
  empty: string
) {
  const { entryJson, listLine } = yield* Effect.promise(() => import("../history/entry.ts"))
  if (json) return yield* printLine(JSON.stringify(entries.map(entryJson), null, 2))
  yield* printLine(entries.length === 0 ? empty : entries.map(listLine).join("\n"))
})

const historyBase = Command.make(
  "history",
  {
    limit: Flag.Int("limit").pipe(
      Flag.withAlias("l"),
      Flag.withMetavar("N"),
      Flag.withDescription("How many of the newest runs to list (default 20)"),
      Flag.withDefault(20)
    )
  }
).pipe(Command.withSharedFlags(filterFlags))

const show = Command.make(
  "show",
  {
    index: Argument.Int("n").pipe(Argument.withDescription("The run's number in `lait history` (1 = the newest)"))
  },
  Effect.fn("cli.history.show")(function*({ index }) {
    const parent = yield* historyBase
    const { HistoryError } = yield* Effect.promise(() => import("../history/historyErrors.ts"))
    if (index < 1) return yield* new HistoryError({ reason: { _tag: "IndexZero" } })
    // Numbers address the whole history: no filter applies to `show`.
    const { numbered, entry } = yield* load({ kind: Option.none(), model: Option.none(), since: Option.none() })
    const found = numbered.find((n) => n.number === index)
    if (found === undefined) return yield* new HistoryError({ reason: { _tag: "NotFound", index } })
    yield* printLine(parent.json ? JSON.stringify(entry.entryJson(found), null, 2) : entry.showText(found.entry))
  })
).pipe(Command.withDescription("Print one run whole: its prompt, its response, model and usage"))

const search = Command.make(
  "search",
  {
    query: Argument.String("query").pipe(
      Argument.withDescription("Text to find in the prompts and responses (case-insensitive)")
    )
  },
  Effect.fn("cli.history.search")(function*({ query }) {
    const parent = yield* historyBase
    const { numbered, filter, entry } = yield* load(parent)
    const found = entry.searchEntries(numbered, query, filter)
    yield* printEntries(found, parent.json, `no history entries match '${query}'`)
  })
).pipe(Command.withDescription("List the runs whose prompt or response contains QUERY, newest first"))

export const historyCommand = historyBase.pipe(
  Command.withHandler(Effect.fn("cli.history")(function*(flags) {
    if (flags.limit < 1) {
      return yield* new ArgumentError({
        reason: { _tag: "InvalidValue", flag: "--limit <N>", value: String(flags.limit), expected: "at least 1" }
      })
    }
    const { numbered, filter, entry } = yield* load(flags)
    yield* printEntries(entry.listEntries(numbered, filter, flags.limit), flags.json, "no history recorded yet")
  })),
  Command.withDescription(
    "List past runs (chat, agent, workflow, prompt), newest first; numbered for `history show N`"
  ),
  Command.withSubcommands([show, search])
)
