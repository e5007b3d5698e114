// Baselines and shards of an eval that compares `targets:`, in this process (docs/architecture.md#testing)
// and once as the compiled binary, against the fixture OpenAI server. A baseline keeps each (target, case)
// apart, so a target that got worse is `regressed` for that target only; 4 shards of a 2-target eval merge
// into the single run's report — every run's output, assertions, tokens and cost included — in every
// format.
import { describe, expect, test } from "bun:test"
import { childrenNamed, parseXml } from "../eval/xml.ts"
import { evalProjects } from "./evalProject.ts"

const { serve, project, drawn, withoutTimings } = evalProjects("e2e-evalmatrix")

/** Two prompt targets of model `m`, A and B, whose requests differ by their `tA `/`tB ` prefix. */
const twoTargets = (cases: ReadonlyArray<{ readonly input: string; readonly name?: string }>) =>
  [
    "targets:",
    "  - { name: A, model: m, prompt: 'tA {{input}}' }",
    "  - { name: B, model: m, prompt: 'tB {{input}}' }",
    "cases:",
    ...cases.map((c) =>
      `  - input: ${c.input}\n${c.name === undefined ? "" : `    name: ${c.name}\n`}` +
      "    assert: [{ type: contains, value: PASS }]"
    ),
    ""
  ].join("\n")

describe("baseline with targets", () => {
  test("each (target, case) is saved and compared apart: B regressed on alpha, A did not", async () => {
    const good = serve([{ content: "PASS", repeat: true }])
    const p = project(good.baseUrl)
    p.write("eval.yml", twoTargets([{ input: "alpha" }, { input: "beta" }]))
    // As a user meets it: the compiled binary (its lean `eval` path); the runs after it in this process.
    const saved = await p.lait(["eval", "eval.yml", "--repeat", "12", "--save-baseline", "base.json"], { binary: true })
    expect(saved.code).toBe(0)
    expect(saved.stderr).toContain("note: saved the baseline of 2 case(s) on 2 target(s) to 'base.json'")
    const base = JSON.parse(p.read("base.json"))
    expect(base.cases.map((c: { case: number; target: string }) => [c.case, c.target])).toEqual([
      [1, "A"],
      [1, "B"],
      [2, "A"],
      [2, "B"]
    ])

    // Only target B's answers to alpha got worse (1 in 5 passes); A's stay perfect.
    const worse = serve([drawn("tB alpha", 1, 4), { content: "PASS", repeat: true }], 3)
    p.configure(worse.baseUrl)
    const args = ["eval", "eval.yml", "--repeat", "12", "--baseline", "base.json"]
    const r = await p.lait([...args, "--fail-on-regression"])
    const lines = r.stdout.trimEnd().split("\n")
    const from = lines.indexOf(
      "compared with baseline 'base.json' (Fisher's exact test, two-sided, significant at p < 0.05):"
    )
    expect(from).toBeGreaterThan(0)
    expect(lines[from + 1]).toBe("  case 1 [A]: unchanged  12/12 (100%) -> 12/12 (100%)  p=1.0000")
    expect(lines[from + 2]).toMatch(/^ {2}case 1 \[B\]: regressed {2}12\/12 \(100%\) -> [0-5]\/12 \(\d+%\) {2}p/)
    expect(lines[from + 3]).toBe("  case 2 [A]: unchanged  12/12 (100%) -> 12/12 (100%)  p=1.0000")
    expect(lines[from + 4]).toBe("  case 2 [B]: unchanged  12/12 (100%) -> 12/12 (100%)  p=1.0000")
    expect(lines[from + 5]).toContain("1 regressed, 0 improved, 3 unchanged, 0 new, 0 missing")
    expect(r.code).toBe(1)
    expect(r.stderr).toEndWith(
      "lait: 1 eval case(s) regressed against the baseline 'base.json' (Fisher's exact test, p < 0.05)\n"
    )

    const json = await p.lait([...args, "--format", "json"])
    const doc = JSON.parse(json.stdout)
    expect(doc.targets.map((t: { name: string }) => t.name)).toEqual(["A", "B"])
    expect(doc.cases).toHaveLength(2)
    expect(doc.baseline.cases.map((c: { target: string; status: string }) => `${c.target}:${c.status}`)).toEqual([
      "A:unchanged",
      "B:regressed",
      "A:unchanged",
      "B:unchanged"
    ])
    const junit = await p.lait([...args, "--format", "junit"])
    const suites = childrenNamed(parseXml(junit.stdout), "testsuite")
    expect(suites.map((s) => s.attributes["name"])).toEqual(["eval.yml [A]", "eval.yml [B]", "baseline"])
    const baselineSuite = suites.at(-1)!
    expect(baselineSuite.attributes).toMatchObject({ tests: "4", failures: "1" })
    const regressed = childrenNamed(baselineSuite, "testcase").filter((c) => childrenNamed(c, "failure").length > 0)
    expect(regressed.map((c) => c.attributes["name"])).toEqual(["case 1 [B]"])
  }, 120_000)
})

describe("shards with targets", () => {
  test("4 shards of a 2-target eval merge into the single run's report, per-run details included", async () => {
    // Named and unnamed cases; each (target, case) answers from its own draw.
    const cases = Array.from({ length: 12 }, (_, i) => ({
      input: `q${String(i + 1).padStart(2, "0")}`,
      ...(i % 3 === 0 ? { name: `named ${i + 1}` } : {})
    }))
    const script = cases.flatMap((c, i) => [drawn(`tA ${c.input}`, 1 + (i % 3), 1), drawn(`tB ${c.input}`, 2, i % 2)])
    const p = project("http://127.0.0.1:9/v1", { pricing: true })
    p.write("eval.yml", twoTargets(cases))
    // A draw depends on the seed, the request and how many identical requests came before; -j 1 gives
    // each repeat the same draw in the single run as in its shard.
    p.configure(serve(script, 7).baseUrl)
    const single = await p.lait(["eval", "eval.yml", "--repeat", "3", "-j", "1", "--format", "json"])
    p.write("single.json", single.stdout)
    p.configure(serve(script, 7).baseUrl)
    const shardCases: Array<Array<number>> = []
    for (const k of [1, 2, 3, 4]) {
      const r = await p.lait(["eval", "eval.yml", "--repeat", "3", "-j", "1", "--shard", `${k}/4`, "--format", "json"])
      expect(r.stderr).toContain(`eval: shard ${k}/4: `)
      p.write(`s${k}.json`, r.stdout)
      const doc = JSON.parse(r.stdout)
      expect(doc.targets.map((t: { name: string }) => t.name)).toEqual(["A", "B"])
      shardCases.push(doc.cases.map((c: { case: number }) => c.case))
    }
    expect(shardCases.flat().sort((a, b) => a - b)).toEqual(cases.map((_, i) => i + 1))
    expect(shardCases.filter((s) => s.length > 0).length).toBeGreaterThan(1)

    const shards = ["s3.json", "s1.json", "s4.json", "s2.json"]
    const merged = await p.lait(["eval", "merge", ...shards, "--format", "json"])
    expect(merged.code).toBe(single.code)
    expect(withoutTimings(merged.stdout, "json")).toBe(withoutTimings(single.stdout, "json"))
    // The details survive the merge: a failed run's output and assertion, tokens and the priced cost.
    const run = JSON.parse(merged.stdout).cases[0].results[1].runs[0]
    expect(run.output).toMatch(/^tB q01 (PASS|fail)$/)
    expect(run.assertions[0]).toMatchObject({ assertion: 1, type: "contains" })
    expect(run.tokens.total).toBeGreaterThan(0)
    expect(run.cost_usd).toBeGreaterThan(0)
    for (const format of ["text", "junit", "html"]) {
      const fromShards = await p.lait(["eval", "merge", ...shards, "--format", format, "-o", `m.${format}`])
      const fromSingle = await p.lait(["eval", "merge", "single.json", "--format", format, "-o", `s.${format}`])
      expect(fromShards.stdout).toBe("")
      expect(fromShards.code).toBe(fromSingle.code)
      expect(withoutTimings(p.read(`m.${format}`), format)).toBe(withoutTimings(p.read(`s.${format}`), format))
    }
    expect(p.read("m.text")).toStartWith("case ")
    expect(p.read("m.text")).toContain("named 1")
    expect(p.read("m.html")).toContain("<h2>Comparison</h2>")

    // A cell in two reports is refused, naming its target.
    const twice = await p.lait(["eval", "merge", "s1.json", "s1.json"])
    expect(twice.code).toBe(1)
    expect(twice.stderr).toMatch(/^lait: cannot merge: case \d+ \[A\] is in both 's1\.json' and 's1\.json'/)
  }, 120_000)
})
