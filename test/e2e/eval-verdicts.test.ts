// Eval verdicts that never go green by mistake (issue 35), in this process (docs/architecture.md#testing)
// and once as the compiled binary, against the fixture OpenAI server. --fail-on-regression with few runs
// per case fails on the pooled regression no single case can show (with a warning that says why), and every
// report's verdict agrees with the exit code; `lait eval merge` refuses a set of shards with one lost,
// duplicated or of another eval, and --allow-partial merges it marked partial in every format.
import { describe, expect, test } from "bun:test"
import { createHash } from "node:crypto"
import { childrenNamed, parseXml } from "../eval/xml.ts"
import { evalProjects } from "./evalProject.ts"

const { serve, project, evalFile, withoutTimings } = evalProjects("e2e-evalverdicts")

const EIGHT = ["a1", "a2", "a3", "a4", "a5", "a6", "a7", "a8"]

describe("--fail-on-regression", () => {
  test("3 runs per case: the pooled regression fails the eval, a warning says why, every report agrees", async () => {
    // 23 of 24 runs pass: one of a1's three fails.
    const good = serve([
      { match: "a1", content: "a1 PASS" },
      { match: "a1", content: "a1 PASS" },
      { match: "a1", content: "a1 fail" },
      { content: "PASS", repeat: true }
    ])
    const p = project(good.baseUrl)
    p.write("eval.yml", evalFile(EIGHT))
    // As a user meets it: the compiled binary (its lean `eval` path); the runs after it in this process.
    const saved = await p.lait(["eval", "eval.yml", "--repeat", "3", "--save-baseline", "base.json"], { binary: true })
    expect(saved.code).toBe(1)
    expect(saved.stderr).not.toContain("warning:")
    const base = JSON.parse(p.read("base.json"))
    expect(base.cases.map((c: { passed: number }) => c.passed)).toEqual([2, 3, 3, 3, 3, 3, 3, 3])

    const broken = serve([{ content: "fail", repeat: true }])
    p.configure(broken.baseUrl)
    const gate = ["--baseline", "base.json", "--fail-on-regression"]
    const r = await p.lait(["eval", "eval.yml", "--repeat", "3", ...gate])
    const warning = "warning: with 3 runs per case no single case can reach p < 0.05; use --repeat 4 or more, " +
      "for the baseline too (only the pooled comparison of all cases can show a change)"
    expect(r.stderr.split("\n").filter((l) => l.startsWith("warning:"))).toEqual([warning])
    const lines = r.stdout.trimEnd().split("\n")
    const from = lines.indexOf(
      "compared with baseline 'base.json' (Fisher's exact test, two-sided, significant at p < 0.05):"
    )
    expect(from).toBeGreaterThan(0)
    expect(lines[from + 1]).toBe("  case 1: unchanged  2/3 (67%) -> 0/3 (0%)  p=0.4000")
    expect(lines[from + 2]).toBe("  case 2: unchanged  3/3 (100%) -> 0/3 (0%)  p=0.1000")
    expect(lines[from + 9]).toBe(
      "  all: regressed  23/24 (96%) -> 0/24 (0%)  p<0.0001; 0 regressed, 0 improved, 8 unchanged, 0 new, 0 missing"
    )
    expect(lines[from + 10]).toBe(
      "  verdict: regressed (all cases pooled regressed significantly, though no single case did), " +
        "so the eval fails (--fail-on-regression)"
    )
    expect(lines).toHaveLength(from + 11)
    expect(r.code).toBe(1)
    const message = "lait: the eval regressed against the baseline 'base.json': all cases pooled went from " +
      "23/24 (96%) to 0/24 (0%) (Fisher's exact test, p < 0.05), though no single case did\n"
    expect(r.stderr).toEndWith(message)

    // JSON, HTML and JUnit say the same, with the same exit code.
    const json = await p.lait(["eval", "eval.yml", "--repeat", "3", ...gate, "--format", "json"])
    expect(json.code).toBe(1)
    const doc = JSON.parse(json.stdout)
    expect(doc.baseline).toMatchObject({ regressed: 0, unchanged: 8, regression: true, fail_on_regression: true })
    expect(doc.baseline.overall.status).toBe("regressed")
    const html = await p.lait(["eval", "eval.yml", "--repeat", "3", ...gate, "--format", "html"])
    expect(html.code).toBe(1)
    expect(html.stdout).toContain(`<div class="stat verdict-fail"><b>FAIL</b>verdict</div>`)
    expect(html.stdout).toContain(
      `<p class="verdict-reason">the eval regressed against the baseline &#39;base.json&#39;: all cases pooled went`
    )
    const junit = await p.lait(["eval", "eval.yml", "--repeat", "3", ...gate, "--format", "junit"])
    expect(junit.code).toBe(1)
    const suite = childrenNamed(parseXml(junit.stdout), "testsuite").find((s) => s.attributes["name"] === "baseline")!
    expect(suite.attributes).toMatchObject({ tests: "9", failures: "1" })
    const pooled = childrenNamed(suite, "testcase").at(-1)!
    expect(pooled.attributes["name"]).toBe("all cases (pooled)")
    expect(childrenNamed(pooled, "failure")[0]!.attributes["type"]).toBe("regressed")

    // The minimum follows --significance: 5 of 5 against 0 of 5 is the first below 0.01.
    const strict = await p.lait(["eval", "eval.yml", "--repeat", "3", ...gate, "--significance", "0.01"])
    expect(strict.stderr).toContain("warning: with 3 runs per case no single case can reach p < 0.01; use --repeat 5 or more")
    expect(strict.code).toBe(1)
    // Without the flag the pass rates decide (exit 1), and the reports still show the regression.
    const plain = await p.lait(["eval", "eval.yml", "--repeat", "3", "--baseline", "base.json", "--format", "json"])
    expect(plain.code).toBe(1)
    expect(JSON.parse(plain.stdout).baseline).toMatchObject({ regression: true, fail_on_regression: false })
  }, 120_000)

  test("a flaky case that did not regress passes the gate: exit 0, no warning, HTML and JSON say pass", async () => {
    const good = serve([{ content: "PASS", repeat: true }])
    const p = project(good.baseUrl)
    p.write("eval.yml", evalFile(["alpha", "beta"]))
    expect((await p.lait(["eval", "eval.yml", "--repeat", "4", "--save-baseline", "base.json"])).code).toBe(0)
    // beta now fails one run of 4: not significant (4/4 -> 3/4, p = 1). A fresh server for each eval.
    const flaky = () => p.configure(serve([{ match: "beta", content: "beta fail" }, { content: "PASS", repeat: true }]).baseUrl)
    const gate = ["--repeat", "4", "--baseline", "base.json", "--fail-on-regression"]
    flaky()
    const text = await p.lait(["eval", "eval.yml", ...gate])
    expect(text.stdout).toContain("case 2: 3/4 (75%) FAIL")
    expect(text.stdout.trimEnd().split("\n").at(-1)).toBe("  verdict: no significant regression")
    expect(text.stderr).not.toContain("warning:")
    expect(text.code).toBe(0)
    flaky()
    const html = await p.lait(["eval", "eval.yml", ...gate, "--format", "html"])
    expect(html.code).toBe(0)
    expect(html.stdout).toContain(`<div class="stat verdict-pass"><b>PASS</b>verdict</div>`)
    expect(html.stdout).not.toContain(`<p class="verdict-reason">`)
    flaky()
    const json = await p.lait(["eval", "eval.yml", ...gate, "--format", "json"])
    expect(json.code).toBe(0)
    expect(JSON.parse(json.stdout).baseline).toMatchObject({ regression: false, fail_on_regression: true })
    // Without the gate the failed run decides, and the page says FAIL.
    flaky()
    const plain = await p.lait(["eval", "eval.yml", "--repeat", "4", "--format", "html"])
    expect(plain.code).toBe(1)
    expect(plain.stdout).toContain(`<div class="stat verdict-fail"><b>FAIL</b>verdict</div>`)
  }, 120_000)
})

describe("eval merge of shards", () => {
  const SIX = ["s1x", "s2x", "s3x", "s4x", "s5x", "s6x"]

  /** The JSON reports of shards 1..n of eval.yml, written to s<k>.json; their case numbers. */
  const runShards = async (p: ReturnType<typeof project>, n: number, prefix = "s") => {
    const held: Array<Array<number>> = []
    for (let k = 1; k <= n; k++) {
      const r = await p.lait(["eval", "eval.yml", "--shard", `${k}/${n}`, "--format", "json"])
      p.write(`${prefix}${k}.json`, r.stdout)
      held.push(JSON.parse(r.stdout).cases.map((c: { case: number }) => c.case))
    }
    return held
  }

  test("a shard report records its shard; a lost, duplicated or foreign shard is refused", async () => {
    const s = serve([{ content: "PASS", repeat: true }])
    const p = project(s.baseUrl)
    const text = evalFile(SIX)
    p.write("eval.yml", text)
    const held = await runShards(p, 3)
    expect(held.flat().sort()).toEqual([1, 2, 3, 4, 5, 6])
    const sha256 = createHash("sha256").update(text).digest("hex")
    expect(JSON.parse(p.read("s2.json")).shard).toEqual({ index: 2, count: 3, file: "eval.yml", sha256, cases: 6 })

    const whole = await p.lait(["eval", "merge", "s3.json", "s1.json", "s2.json", "--format", "json"])
    expect(whole.code).toBe(0)
    expect(whole.stderr).toBe("")
    const single = await p.lait(["eval", "eval.yml", "--format", "json"])
    expect(withoutTimings(whole.stdout, "json")).toBe(withoutTimings(single.stdout, "json"))

    // Shard 3 lost: refused, whichever cases it held (an empty shard too).
    const lost = await p.lait(["eval", "merge", "s1.json", "s2.json"])
    expect(lost.code).toBe(1)
    expect(lost.stdout).toBe("")
    expect(lost.stderr).toBe(
      "lait: cannot merge: shard 3/3 of 'eval.yml' is missing; pass the report of every shard " +
        "(re-run old shards with this lait), or --allow-partial\n"
    )
    const lostTwo = await p.lait(["eval", "merge", "s2.json"])
    expect(lostTwo.stderr).toStartWith("lait: cannot merge: shard 1/3, 3/3 of 'eval.yml' are missing;")
    // The same shard twice: its cases (or, for an empty shard, the shard) in both.
    const fullShard = held.findIndex((h) => h.length > 0) + 1
    const twice = await p.lait(["eval", "merge", "s1.json", "s2.json", "s3.json", `s${fullShard}.json`])
    expect(twice.code).toBe(1)
    expect(twice.stderr).toMatch(
      new RegExp(`^lait: cannot merge: case \\d+ is in both 's${fullShard}\\.json' and 's${fullShard}\\.json'`)
    )
    // Another eval's shard, another split.
    p.write("eval.yml", evalFile([...SIX, "s7x"]))
    await runShards(p, 3, "new")
    const foreign = await p.lait(["eval", "merge", "s1.json", "s2.json", "new3.json"])
    expect(foreign.code).toBe(1)
    expect(foreign.stderr).toBe(
      `lait: cannot merge 'new3.json' with 's1.json': they ran different evals ('eval.yml' sha256 ${
        createHash("sha256").update(evalFile([...SIX, "s7x"])).digest("hex").slice(0, 12)
      }, 'eval.yml' sha256 ${sha256.slice(0, 12)})\n`
    )
    p.write("eval.yml", text)
    await runShards(p, 2, "half")
    const split = await p.lait(["eval", "merge", "s1.json", "half2.json"])
    expect(split.code).toBe(1)
    expect(split.stderr).toBe(
      "lait: cannot merge 'half2.json' with 's1.json': one is shard 2/2, the other shard 1/3 (--shard K/N with another N)\n"
    )
  }, 120_000)

  test("--allow-partial merges without a shard, with a warning, marked partial in every format", async () => {
    const s = serve([{ content: "PASS", repeat: true }])
    const p = project(s.baseUrl)
    p.write("eval.yml", evalFile(SIX))
    const held = await runShards(p, 3)
    const args = ["eval", "merge", "s1.json", "s2.json", "--allow-partial"]
    const why = "shard 3/3 of 'eval.yml' is missing"
    const text = await p.lait(args)
    expect(text.stderr).toBe(
      `warning: ${why}; merging anyway (--allow-partial): the report may lack cases and is marked partial\n`
    )
    // The verdict is that of the cases there: all passed.
    expect(text.code).toBe(0)
    const lines = text.stdout.trimEnd().split("\n")
    expect(lines[0]).toBe(`partial results: merged with --allow-partial: ${why}`)
    const present = held[0]!.length + held[1]!.length
    expect(lines).toContain(`${present} of ${present} case(s) fully passed`)

    const json = await p.lait([...args, "--format", "json"])
    expect(json.code).toBe(0)
    const cases = JSON.parse(json.stdout)
    expect(cases.map((c: { case: number }) => c.case).sort()).toEqual([...held[0]!, ...held[1]!].sort())
    expect(cases.every((c: { partial?: boolean }) => c.partial === true)).toBe(true)
    const junit = await p.lait([...args, "--format", "junit"])
    expect(junit.code).toBe(0)
    const props = childrenNamed(childrenNamed(childrenNamed(parseXml(junit.stdout), "testsuite")[0]!, "properties")[0]!, "property")
    expect(props.map((q) => [q.attributes["name"], q.attributes["value"]])).toEqual([
      ["partial", `merged with --allow-partial: ${why}`]
    ])
    const html = await p.lait([...args, "--format", "html"])
    expect(html.code).toBe(0)
    expect(html.stdout).toContain(`<b>partial</b>merged with --allow-partial: ${why.replace(/'/g, "&#39;")}</div>`)
    // No baseline is saved from a partial report, and a warning says so.
    const save = await p.lait([...args, "--save-baseline", "b.json"])
    expect(save.code).toBe(0)
    expect(save.stderr).toContain("warning: no baseline saved to 'b.json': the merged report is partial\n")
    expect(() => p.read("b.json")).toThrow()
    // A whole set needs no --allow-partial, and is not marked.
    const whole = await p.lait(["eval", "merge", "s1.json", "s2.json", "s3.json", "--allow-partial"])
    expect(whole.stderr).toBe("")
    expect(whole.stdout).not.toContain("partial")
  }, 120_000)

  test("reports without a shard record: one is merged as always, several only with --allow-partial", async () => {
    const s = serve([{ content: "PASS", repeat: true }])
    const p = project(s.baseUrl)
    p.write("eval.yml", evalFile(SIX))
    const held = await runShards(p, 2)
    // As an older lait wrote them: the bare array.
    for (const k of [1, 2]) p.write(`old${k}.json`, JSON.stringify(JSON.parse(p.read(`s${k}.json`)).cases))
    const single = await p.lait(["eval", "eval.yml", "--format", "json"])
    p.write("single.json", single.stdout)
    const one = await p.lait(["eval", "merge", "single.json", "--format", "junit"])
    expect(one.code).toBe(0)
    expect(one.stderr).toBe("")
    const old = await p.lait(["eval", "merge", "old1.json", "old2.json"])
    expect(old.code).toBe(1)
    expect(old.stderr).toBe(
      "lait: cannot merge: 'old1.json', 'old2.json' record no shard (written without --shard, or by an older lait); " +
        "pass the report of every shard (re-run old shards with this lait), or --allow-partial\n"
    )
    const mixed = await p.lait(["eval", "merge", "s1.json", "old2.json"])
    expect(mixed.code).toBe(1)
    expect(mixed.stderr).toStartWith("lait: cannot merge: shard 2/2 of 'eval.yml' is missing; 'old2.json' records no shard")
    const allowed = await p.lait(["eval", "merge", "old1.json", "old2.json", "--allow-partial"])
    expect(allowed.code).toBe(0)
    expect(allowed.stderr).toStartWith("warning: 'old1.json', 'old2.json' record no shard")
    expect(allowed.stdout).toStartWith("partial results: merged with --allow-partial: 'old1.json', 'old2.json' record no shard")
    expect(allowed.stdout).toContain(`${held.flat().length} of ${held.flat().length} case(s) fully passed`)
  }, 120_000)
})
