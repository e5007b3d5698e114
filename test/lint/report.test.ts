// The renderings of a lint run: GitHub escaping, null lines, config sections first, summaries, and
// warnings never failing a run.
import { describe, expect, test } from "bun:test"
import type { LintRun } from "../../src/lint/findings.ts"
import { escapeData, escapeProperty } from "../../src/core/ciText.ts"
import { render } from "../../src/lint/run.ts"

const cwd = process.cwd()
const cleanConfig = { path: `${cwd}/lait.config.yml`, problems: [], registry: [] }

describe("github format", () => {
  test("messages escape % CR LF; the file property also , and :", () => {
    expect(escapeData("100% done\r\nnext")).toBe("100%25 done%0D%0Anext")
    expect(escapeProperty("dir,with:colon%/a.yml")).toBe("dir%2Cwith%3Acolon%25/a.yml")
  })

  test("`,line=N` is left out when there is no line", () => {
    const run: LintRun = {
      config: cleanConfig,
      reports: [{ file: "a,b.yml", issues: [{ severity: "error", message: "50%\nbad", line: undefined }] }]
    }
    expect(render(run, "github")).toEqual({
      stdout: ["::error file=a%2Cb.yml::50%25%0Abad"],
      failure: "lint found 1 error(s) across 1 finding(s) in 1 file(s)"
    })
  })
})

describe("config sections", () => {
  const run: LintRun = {
    config: {
      path: `${cwd}/conf/lait.config.yml`,
      problems: [],
      registry: [
        { name: "a", path: `${cwd}/a.yml`, exists: true },
        { name: "b", path: `${cwd}/gone.yml`, exists: false }
      ]
    },
    reports: [{ file: "w.yml", issues: [] }]
  }

  test("text: the workflows: registry comes first, and fails the run", () => {
    expect(render(run, "text")).toEqual({
      stdout: ["lait.config.yml (workflows:):", "  a: OK (a.yml)", "  b: error: no such file 'gone.yml'", "w.yml: OK"],
      failure: "0 of 1 file(s) had errors; lait.config.yml 'workflows:' also has errors"
    })
  })

  test("json: config findings after the files', naming the config by its absolute path, with a null line", () => {
    expect(render(run, "json")).toEqual({
      stdout: [
        JSON.stringify(
          [{ file: `${cwd}/conf/lait.config.yml`, line: null, severity: "error", message: "workflows.b resolves to 'gone.yml', which does not exist" }],
          null,
          2
        )
      ],
      failure: "lint found 1 error(s) across 1 finding(s) in 1 file(s)"
    })
  })

  test("github: the config as a path relative to the current directory, which an annotation attaches to", () => {
    expect(render(run, "github").stdout).toEqual([
      "::error file=conf/lait.config.yml::workflows.b resolves to 'gone.yml', which does not exist"
    ])
  })

  test("an active config that failed to load is reported first, with its line", () => {
    const broken: LintRun = {
      config: {
        path: `${cwd}/lait.config.yml`,
        problems: [{ file: `${cwd}/lait.config.yml`, message: "invalid configuration file 'x': bad (line 3)", line: 3 }],
        registry: []
      },
      reports: [{ file: "w.yml", issues: [{ severity: "warning", message: "names were not checked", line: 2 }] }]
    }
    expect(render(broken, "text")).toEqual({
      stdout: ["lait.config.yml:", "  error: invalid configuration file 'x': bad (line 3)", "w.yml:", "  warning: names were not checked"],
      failure: "0 of 1 file(s) had errors; lait.config.yml also has errors"
    })
    expect(render(broken, "github").stdout).toEqual([
      "::warning file=w.yml,line=2::names were not checked",
      "::error file=lait.config.yml,line=3::invalid configuration file 'x': bad (line 3)"
    ])
  })
})

describe("warnings", () => {
  const run: LintRun = {
    config: cleanConfig,
    reports: [
      { file: "a.yml", issues: [{ severity: "warning", message: "w", line: 1 }] },
      { file: "b.yml", issues: [] }
    ]
  }
  test("never fail a run, in any format; a file with only warnings is not OK", () => {
    expect(render(run, "text")).toEqual({ stdout: ["a.yml:", "  warning: w", "b.yml: OK"], failure: undefined })
    expect(render(run, "json").failure).toBeUndefined()
    expect(render(run, "github")).toEqual({ stdout: ["::warning file=a.yml,line=1::w"], failure: undefined })
  })

  test("json of a clean run is an empty array", () => {
    expect(render({ config: cleanConfig, reports: [{ file: "b.yml", issues: [] }] }, "json")).toEqual({
      stdout: ["[]"],
      failure: undefined
    })
  })
})
