// Every corpus file (one per lint check) gives exactly its expected findings — message, severity and
// line — and renders as expected in the text, json and github formats, with the right summary and
// the exit code main.ts derives from it (3 with an error, 0 with warnings only). test/e2e/lint.test.ts
// runs the same table through the compiled binary.
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { Effect, Exit } from "effect"
import { exitCodeOf, renderChain } from "../../src/core/errors.ts"
import { FileLoader } from "../../src/platform/FileLoader.ts"
import { type ActiveConfig, loadActiveConfig } from "../../src/lint/config.ts"
import type { LintFormat } from "../../src/lint/report.ts"
import { lintFile, lintReport, render } from "../../src/lint/run.ts"
import {
  CORPUS,
  CORPUS_CONFIG_SECTION,
  CORPUS_ENTRIES,
  type CorpusEntry,
  errorCount,
  expectedGithub,
  expectedJson,
  expectedText,
  findingCount,
  NO_CONFIG_ENTRY
} from "./corpus.ts"

const previousCwd = process.cwd()
let withConfig: ActiveConfig
let withoutConfig: ActiveConfig

const options = (configPath: string | undefined, noConfig: boolean) => ({
  configPath,
  noConfig,
  noEnv: true,
  verbosity: 0,
  cache: undefined
})

beforeAll(async () => {
  // Messages show paths relative to the current directory, as for a user running lint there.
  process.chdir(CORPUS)
  withConfig = await Effect.runPromise(loadActiveConfig(options("lait.config.yml", false)).pipe(Effect.provide(FileLoader.layer)))
  withoutConfig = await Effect.runPromise(loadActiveConfig(options(undefined, true)).pipe(Effect.provide(FileLoader.layer)))
})

afterAll(() => process.chdir(previousCwd))

const lint = (file: string, active: ActiveConfig) =>
  Effect.runPromise(lintFile(file, active).pipe(Effect.provide(FileLoader.layer)))

const hasError = (entry: CorpusEntry) => entry.findings.some((f) => f.severity === "error")

const checkEntry = async (entry: CorpusEntry, active: () => ActiveConfig, section: ReadonlyArray<string>) => {
  const report = await lint(entry.file, active())
  expect(report.file).toBe(entry.file)
  expect(report.issues.map((i) => ({ severity: i.severity, line: i.line ?? null, message: i.message }))).toEqual([
    ...entry.findings
  ])

  const run = { config: active().section, reports: [report] }
  const text = render(run, "text")
  expect(text.stdout).toEqual([...section, ...expectedText([entry])])
  expect(text.failure).toBe(hasError(entry) ? "1 of 1 file(s) had errors" : undefined)

  const json = render(run, "json")
  expect(json.stdout).toEqual([expectedJson([entry])])
  const structuredFailure = hasError(entry)
    ? `lint found ${errorCount([entry])} error(s) across ${findingCount([entry])} finding(s) in 1 file(s)`
    : undefined
  expect(json.failure).toBe(structuredFailure)

  const github = render(run, "github")
  expect(github.stdout).toEqual(expectedGithub([entry]))
  expect(github.failure).toBe(structuredFailure)
}

/** The command as main.ts sees it: stdout, the error line and the exit code it maps the failure to. */
const command = async (file: string, format: LintFormat, configPath: string | undefined) => {
  const exit = await Effect.runPromiseExit(
    lintReport([file], format, options(configPath, configPath === undefined)).pipe(Effect.provide(FileLoader.layer))
  )
  if (Exit.isFailure(exit)) throw new Error(String(exit.cause))
  const { stdout = "", failure } = exit.value
  if (failure === undefined) return { stdout, stderr: "", code: 0 }
  return { stdout, stderr: `lait: ${renderChain(failure)}`, code: exitCodeOf(failure) }
}

const checkExitCodes = async (entry: CorpusEntry, configPath: string | undefined, section: ReadonlyArray<string>) => {
  const code = hasError(entry) ? 3 : 0
  const structured = hasError(entry)
    ? `lait: lint found ${errorCount([entry])} error(s) across ${findingCount([entry])} finding(s) in 1 file(s)`
    : ""
  expect(await command(entry.file, "text", configPath)).toEqual({
    stdout: [...section, ...expectedText([entry])].join("\n"),
    stderr: hasError(entry) ? "lait: 1 of 1 file(s) had errors" : "",
    code
  })
  expect(await command(entry.file, "json", configPath)).toEqual({ stdout: expectedJson([entry]), stderr: structured, code })
  expect(await command(entry.file, "github", configPath)).toEqual({
    stdout: expectedGithub([entry]).join("\n"),
    stderr: structured,
    code
  })
}

describe("lint corpus (test/fixtures/lint, with its lait.config.yml)", () => {
  for (const entry of CORPUS_ENTRIES) {
    test(`${entry.file}: ${entry.check}`, async () => {
      await checkEntry(entry, () => withConfig, CORPUS_CONFIG_SECTION)
      await checkExitCodes(entry, "lait.config.yml", CORPUS_CONFIG_SECTION)
    })
  }
})

describe("lint corpus without a config", () => {
  test(`${NO_CONFIG_ENTRY.file}: ${NO_CONFIG_ENTRY.check}`, async () => {
    await checkEntry(NO_CONFIG_ENTRY, () => withoutConfig, [])
    await checkExitCodes(NO_CONFIG_ENTRY, undefined, [])
  })

  test("the same file is clean when the names are registered", async () => {
    const report = await lint(NO_CONFIG_ENTRY.file, withConfig)
    expect(report.issues).toEqual([])
  })

  test("names are not checked, and said so once, in every kind of file that has them", async () => {
    const reports = await Promise.all(
      ["unknown-tool.yml", "agents/unknown-names.md", "ok/workflow.yml"].map((f) => lint(f, withoutConfig))
    )
    const reason = "no lait.config.yml was found (or --no-config was used)"
    expect(reports.map((r) => r.issues.map((i) => [i.severity, i.line, i.message]))).toEqual([
      [["warning", 4, `'mcp'/'skills'/'subagents'/'tools' names were not checked because ${reason}`]],
      [["warning", 3, `'mcp'/'skills'/'subagents'/'tools' names were not checked because ${reason}`]],
      // The first skipped name is `default: mcp: [files]` (line 20), checked before agents and steps.
      [["warning", 20, `'mcp'/'skills'/'subagents'/'tools' names were not checked because ${reason}`]]
    ])
  })
})
