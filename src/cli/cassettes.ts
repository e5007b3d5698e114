// `lait cassettes ls DIR [--format text|json]` and `lait cassettes prune PATH… [--replay-tools]
// [--delete] [--allow-outside]`: look after a cassette directory. ls prints one line per cassette
// (src/model/cassette/listing.ts); prune runs the tests like `lait test`, then prints the cassette
// files no test used, one path per line, and with --delete removes them. Files that are not
// cassettes are warned about on stderr, never touched; so are tool cassettes that no test replaying
// tools could have read (src/testing/prune.ts). A `replay:` directory outside the project is skipped
// with a warning when listing, and makes --delete refuse outright, unless --allow-outside.
import { Console, Effect, Layer } from "effect"
import { Argument, Command } from "effect/cli"
import { switchFlag } from "./flags/make.ts"
import { FileError } from "../core/fileErrors.ts"
import { TestError } from "../testing/testErrors.ts"
import { FileLoader } from "../platform/FileLoader.ts"
import { configLayer } from "./config.ts"
import { formatFlag } from "./flags/output.ts"
import { replayToolsFlag } from "./flags/record.ts"
import { printLine } from "./output.ts"
import { listPaths, noteSkipped, testPathsArgument } from "./test.ts"

const warnAll = (lines: ReadonlyArray<string>) => Effect.forEach(lines, (l) => Console.error(l), { discard: true })

const ls = Command.make(
  "ls",
  {
    dir: Argument.String("dir").pipe(Argument.withDescription("A cassette directory (made by --record)")),
    format: formatFlag(["text", "json"], "text (one line per cassette) or json (one compact array)")
  },
  Effect.fn("cli.cassettes.ls")(function*({ dir, format }) {
    const [{ scanCassetteDir }, { cassetteRows, rowLine }] = yield* Effect.promise(() =>
      Promise.all([import("../model/cassette/scan.ts"), import("../model/cassette/listing.ts")])
    )
    const scan = yield* scanCassetteDir(dir).pipe(Effect.mapError((e) =>
      new FileError({ reason: { _tag: "ListFailed", path: dir, what: "cassette directory", detail: e.detail } })
    ))
    yield* warnAll(scan.problems.map((p) => `warning: not a cassette: ${p}`))
    const rows = cassetteRows(scan.cassettes)
    if (format === "json") return yield* printLine(JSON.stringify(rows))
    if (rows.length > 0) yield* printLine(rows.map(rowLine).join("\n"))
  })
).pipe(Command.withDescription("List the cassettes of a directory: key prefix, recorded_at, model, first user message"))

const prune = Command.make(
  "prune",
  {
    paths: testPathsArgument,
    replayTools: replayToolsFlag(
      "Answer tool calls from each file's tool cassettes, as 'lait test --replay-tools' does, and judge those too"
    ),
    remove: switchFlag("delete", "Delete the unused cassette files (only when every test passes in replay)"),
    allowOutside: switchFlag(
      "allow-outside",
      "Also judge (and with --delete, delete from) replay directories outside the project " +
        "(the directory of the nearest lait.config.yml upward, else the current one)"
    )
  },
  Effect.fn("cli.cassettes.prune")(function*({ paths, replayTools, remove, allowOutside }) {
    const [suite, { describeOutside, projectRoot, unusedCassettes }] = yield* Effect.promise(() =>
      Promise.all([import("../testing/suite.ts"), import("../testing/prune.ts")])
    )
    const { files, skipped } = yield* suite.findTestFiles(paths)
    yield* noteSkipped(skipped)
    if (files.length === 0) {
      return yield* new TestError({ reason: { _tag: "NoFiles", listed: listPaths(paths) } })
    }
    const project = allowOutside ? undefined : yield* projectRoot(process.cwd()).pipe(Effect.mapError((e) =>
      new FileError({ reason: { _tag: "ResolveFailed", path: ".", what: "current directory", detail: e.detail } })
    ))
    const result = yield* unusedCassettes(files, { replayTools, project }).pipe(
      Effect.provide(Layer.mergeAll(configLayer({ waitForWriter: true }), suite.AssertionEvaluator.layer))
    )
    if ("failing" in result) {
      yield* Console.error(suite.textReport(result.failing).split("\n").slice(0, -1).join("\n"))
      return yield* new TestError({
        reason: { _tag: "PruneRefused", failing: result.failing.length, total: result.total }
      })
    }
    const [first, ...more] = result.outside
    if (first !== undefined && project !== undefined) {
      // Checked before anything is deleted: a hostile test file must not get even part of its way.
      if (remove) {
        return yield* new TestError({
          reason: { _tag: "PruneOutside", detail: describeOutside(first, project), more: more.length }
        })
      }
      const warning = (o: typeof first) =>
        `warning: not judged: ${describeOutside(o, project)} (pass --allow-outside to judge it)`
      yield* warnAll(result.outside.map(warning))
    }
    yield* warnAll(result.warnings)
    if (result.toolsLeftAlone > 0) {
      const why = result.toolsReplayed
        ? "a test that replays from their directory runs its tools live"
        : "no test replays tools"
      yield* Console.error(
        `note: left ${result.toolsLeftAlone} tool cassette(s) alone: ${why} ` +
          "(run prune with --replay-tools to judge them)"
      )
    }
    if (result.unused.length > 0) yield* printLine(result.unused.map((u) => u.path).join("\n"))
    if (!remove) return
    for (const { path, real } of result.unused) {
      yield* FileLoader.use((files) => files.removeFile(real)).pipe(
        Effect.mapError((e) => new FileError({ reason: { _tag: "RemoveFailed", path, detail: e.detail } }))
      )
    }
    yield* Console.error(`deleted ${result.unused.length} unused cassette file(s)`)
  })
).pipe(Command.withDescription("Run tests in replay and list (or --delete) the cassette files none of them used"))

export const cassettesCommand = Command.make("cassettes").pipe(
  Command.withDescription("List cassette directories, and prune the cassettes no test uses"),
  Command.withSubcommands([ls, prune])
)
