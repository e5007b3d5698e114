// `lait test PATH... [--format text|json|junit] [--filter TEXT] [--update]`: run test definition files
// against their recorded cassettes (never a model server) and report pass/fail per file. Results go
// to stdout; notes and the final `lait: <f> of <t> test file(s) failed` (exit 1) to stderr. Paths
// that hold no test file at all, like a --filter that matches none, are an error (exit 1).
import { Console, Effect, Layer, Option } from "effect"
import { Argument, Command, Flag } from "effect/cli"
import * as os from "node:os"
import { TestError } from "../testing/testErrors.ts"
import { configLayer } from "./config.ts"
import { printLine } from "./output.ts"

/** `'a'`, `'a' or 'b'`, `'a', 'b' or 'c'`: every path given, as typed. */
const listPaths = (paths: ReadonlyArray<string>): string => {
  const quoted = paths.map((p) => `'${p}'`)
  return quoted.length === 1 ? quoted[0]! : `${quoted.slice(0, -1).join(", ")} or ${quoted.at(-1)!}`
}

export const testCommand = Command.make(
  "test",
  {
    paths: Argument.String("path").pipe(
      Argument.withDescription("Test files, or directories searched recursively for .yml/.yaml files"),
      Argument.variadic({ min: 1 })
    ),
    format: Flag.Literals("format", ["text", "json", "junit"]).pipe(
      Flag.withDescription("text, json (one compact line) or junit (JUnit XML for CI test reports)"),
      Flag.withDefault("text")
    ),
    filter: Flag.String("filter").pipe(
      Flag.withMetavar("TEXT"),
      Flag.withDescription("Run only the test files whose path contains TEXT"),
      Flag.optional
    ),
    update: Flag.Boolean("update").pipe(
      Flag.withDescription("Rewrite each failing 'equals' value in place with the actual output, and say what changed"),
      Flag.withDefault(false)
    )
  },
  Effect.fn("cli.test")(function*({ paths, format, filter, update }) {
    // Loaded on demand, so that other commands never pay for the engine, jq, YAML or Ajv.
    const suite = yield* Effect.promise(() => import("../testing/suite.ts"))

    // Discovery comes before the config, as upstream: a bad path is reported whatever the config holds.
    const discovered = yield* suite.discoverTestFiles(paths)
    // A suite that runs nothing must not pass: a green CI with zero tests hides a wrong path or layout.
    if (discovered.length === 0) {
      return yield* new TestError({ reason: { _tag: "NoFiles", listed: listPaths(paths) } })
    }
    const needle = Option.getOrUndefined(filter)
    const files = needle === undefined ? discovered : discovered.filter((file) => file.includes(needle))
    if (needle !== undefined && files.length === 0) {
      return yield* new TestError({ reason: { _tag: "FilterMatchedNone", filter: needle, found: discovered.length } })
    }
    yield* Effect.logDebug(`test: ${files.length} test file(s): ${files.join(", ")}`)

    const startedAt = new Date()
    const started = performance.now()
    let outcomes = yield* suite.runTestSuite(files, {
      onProgress: (file, lines) =>
        Effect.forEach(lines, (line) => Effect.logDebug(`test '${file}': ${line}`), { discard: true })
    }).pipe(Effect.provide(Layer.mergeAll(configLayer({ waitForWriter: true }), suite.AssertionEvaluator.layer)))
    const totalMs = performance.now() - started

    if (update) {
      const results = yield* Effect.forEach(outcomes, suite.updateOutcome)
      for (const result of results) {
        yield* Effect.forEach(result.notes, (note) => Console.error(note), { discard: true })
      }
      outcomes = results.map((result) => result.outcome)
    }

    const report = format === "json"
      ? suite.jsonReport(outcomes)
      : format === "junit"
      ? suite.junitReport(outcomes, { totalMs, startedAt, hostname: os.hostname() })
      : suite.textReport(outcomes)
    yield* printLine(report)

    const failed = outcomes.filter((outcome) => outcome.status === "fail").length
    if (failed > 0) return yield* new TestError({ reason: { _tag: "SuiteFailed", failed, total: outcomes.length } })
  })
).pipe(Command.withDescription("Run test files against recorded cassettes (no model calls) and report pass/fail"))
