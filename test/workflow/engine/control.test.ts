// Control steps: group, switch, parallel, for_each (sequential and concurrent), while/until, stop, break.
import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test"
import * as fs from "node:fs"
import * as path from "node:path"
import { alive, errorOf, makeDir, runYaml, valueOf } from "./harness.ts"

// Tests here wait on processes: bun's 5 s default is no bound for a loaded machine.
setDefaultTimeout(60_000)

const dir = makeDir("engine-control")

// A bound for a machine many times slower: a wait ends as soon as the predicate holds.
const waitFor = async (predicate: () => boolean, ms = 30_000) => {
  const end = Date.now() + ms
  while (!predicate() && Date.now() < end) await Bun.sleep(20)
  return predicate()
}
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

describe("group and switch", () => {
  test("a group runs its steps as one step and shares the counter and $steps", async () => {
    const ran = await runYaml(
      dir,
      `
steps:
  - id: g
    group:
      - id: inner
        jq: '. + 1'
      - jq: '. * 2'
    output: '{g: ., inner: $steps.inner}'
`,
      1
    )
    expect(valueOf(ran)).toEqual({ g: 4, inner: 2 })
    expect(ran.lines).toEqual(["[1] g", "[2] inner", "[3] step-1.2 (jq)"])
  })

  const switchYaml = `
steps:
  - id: route
    switch:
      - when: '. == "a"'
        steps:
          - jq: '"case one"'
      - when: '. == "b"'
        steps:
          - jq: '"case two"'
    else:
      - jq: '"fallback"'
`

  test("the first truthy case runs", async () => {
    const ran = await runYaml(dir, switchYaml, "b")
    expect(valueOf(ran)).toBe("case two")
    expect(ran.lines).toEqual(["[1] route", "    -> case 2 matched", "[2] step-1.case2.1 (jq)"])
  })

  test("no matching case runs else", async () => {
    const ran = await runYaml(dir, switchYaml, "z")
    expect(valueOf(ran)).toBe("fallback")
    expect(ran.lines).toEqual(["[1] route", "    -> no case matched, running 'else'", "[2] step-1.else.1 (jq)"])
  })

  test("no matching case and no else is an error", async () => {
    const ran = await runYaml(dir, "steps:\n  - id: pick\n    switch:\n      - when: 'false'\n        steps:\n          - jq: '1'\n", 0)
    expect(errorOf(ran)).toBe("step 'pick': no case matched and no 'else' is defined")
  })

  test("a failing case condition names the case", async () => {
    const ran = await runYaml(dir, "steps:\n  - id: pick\n    switch:\n      - when: 'error(\"x\")'\n        steps:\n          - jq: '1'\n", 0)
    expect(errorOf(ran)).toStartWith("step 'pick': case 1 'when': ")
  })
})

describe("parallel", () => {
  test("branches get the same input, their own counter and $steps copy, joined in declaration order", async () => {
    const ran = await runYaml(
      dir,
      `
steps:
  - id: before
    jq: '10'
  - id: fan
    parallel:
      zeta:
        - id: inner
          jq: '. + 1'
        - jq: '{v: ., before: $steps.before, inner: $steps.inner}'
      alpha:
        - jq: '. * 3'
  - jq: '{fan: ., inner_after: $steps.inner}'
`,
      null
    )
    const value = valueOf(ran) as { fan: Record<string, unknown>; inner_after: unknown }
    expect(value).toEqual({ fan: { zeta: { v: 11, before: 10, inner: 11 }, alpha: 30 }, inner_after: null })
    expect(Object.keys(value.fan)).toEqual(["zeta", "alpha"])
    expect(ran.lines.slice(0, 3)).toEqual(["[1] before", "[2] fan", "    -> running 2 branches concurrently"])
    expect([...ran.lines.slice(3, 6)].sort()).toEqual(["[alpha] [1] step-2.alpha.1 (jq)", "[zeta] [1] inner", "[zeta] [2] step-2.zeta.2 (jq)"])
    expect(ran.lines.slice(6)).toEqual(["    -> branches joined", "[3] step-3 (jq)"])
  })

  test("branches run concurrently", async () => {
    // Each branch marks itself started and waits (10 s at most) until all three have, then says how
    // many it saw: one branch after another would see 1, 2, 3.
    const seen = fs.mkdtempSync(path.join(dir, "branches-"))
    const branch = (name: string) =>
      `      ${name}:\n        - run: [sh, -c, 'touch "$0"/${name}; i=0; until [ "$(ls "$0" | wc -l)" -ge 3 ] || ` +
      `[ $i -ge 200 ]; do sleep 0.05; i=$((i+1)); done; ls "$0" | wc -l | tr -d " "', '${seen}']\n`
    const ran = await runYaml(dir, `steps:\n  - parallel:\n${branch("a")}${branch("b")}${branch("c")}`, null)
    expect(valueOf(ran)).toEqual({ a: "3", b: "3", c: "3" })
  }, 60_000)

  test("the first failing branch fails the step and stops the others", async () => {
    const pidFile = path.join(dir, "slow-branch.pid")
    const ran = await runYaml(
      dir,
      `
steps:
  - id: fan
    parallel:
      slow:
        - run: [sh, -c, 'echo $$ > "$0"; exec sleep 30', '${pidFile}']
      fast:
        - run: [sh, -c, 'sleep 0.3; echo nope >&2; exit 1']
`,
      null
    )
    expect(errorOf(ran)).toBe("step 'step-1.fast.1 (run)': command 'sh' exited with exit status: 1: nope")
    const pid = Number(fs.readFileSync(pidFile, "utf8").trim())
    expect(await waitFor(() => !alive(pid))).toBe(true)
  })
})

describe("for_each", () => {
  test("sequential: items in order, loop = {index, item}, counter and $steps carried across items", async () => {
    const ran = await runYaml(
      dir,
      `
steps:
  - id: each
    for_each: '.'
    steps:
      - id: last
        jq: '{i: $loop.index, item: $loop.item, prev: $steps.last.item}'
`,
      ["a", "b"]
    )
    expect(valueOf(ran)).toEqual([{ i: 0, item: "a", prev: null }, { i: 1, item: "b", prev: "a" }])
    expect(ran.lines).toEqual([
      "[1] each",
      "    -> iterating over 2 item(s)",
      "    -> item 1/2",
      "[2] last",
      "    -> item 2/2",
      "[3] last"
    ])
  })

  test("an empty array gives [] without running the body", async () => {
    const ran = await runYaml(dir, "steps:\n  - for_each: '[]'\n    steps:\n      - jq: 'error(\"never\")'\n", null)
    expect(valueOf(ran)).toEqual([])
    expect(ran.lines).toEqual(["[1] step-1 (for_each)", "    -> iterating over 0 item(s)"])
  })

  test("the expression must produce an array", async () => {
    const ran = await runYaml(dir, "steps:\n  - id: loop\n    for_each: '\"text\"'\n    steps:\n      - jq: '.'\n", null)
    expect(errorOf(ran)).toBe("step 'loop': 'for_each' must produce a JSON array, got a string")
    const object = await runYaml(dir, "steps:\n  - id: loop\n    for_each: '{}'\n    steps:\n      - jq: '.'\n", null)
    expect(errorOf(object)).toBe("step 'loop': 'for_each' must produce a JSON array, got an object")
  })

  test("break ends the loop keeping the current item's value; stop ends the file", async () => {
    const broken = await runYaml(
      dir,
      "steps:\n  - for_each: '.'\n    steps:\n      - jq: '. * 10'\n      - when: '. >= 20'\n        break: true\n  - jq: '{result: .}'\n",
      [1, 2, 3]
    )
    expect(valueOf(broken)).toEqual({ result: [10, 20] })
    const stopped = await runYaml(
      dir,
      "steps:\n  - for_each: '.'\n    steps:\n      - when: '. == 2'\n        stop: true\n  - jq: '\"not reached\"'\noutput: '{stopped_with: .}'\n",
      [1, 2, 3]
    )
    expect(valueOf(stopped)).toEqual({ stopped_with: 2 })
  })

  test("concurrent: [item-i] prefixes, own counters and $steps copies, order preserved", async () => {
    const ran = await runYaml(
      dir,
      `
steps:
  - id: each
    for_each: '.'
    max_concurrency: 3
    steps:
      - id: mine
        run: [sh, -c, 'sleep "$0"; echo "$1"', '{{ input.delay }}', '{{ input.name }}']
      - jq: '{name: ., index: $loop.index, mine: $steps.mine}'
  - jq: '{all: ., mine: $steps.mine}'
`,
      [{ delay: 0.4, name: "slow" }, { delay: 0, name: "fast" }, { delay: 0.2, name: "mid" }]
    )
    expect(valueOf(ran)).toEqual({
      all: [
        { name: "slow", index: 0, mine: "slow" },
        { name: "fast", index: 1, mine: "fast" },
        { name: "mid", index: 2, mine: "mid" }
      ],
      mine: null
    })
    expect(ran.lines.slice(0, 2)).toEqual(["[1] each", "    -> iterating over 3 item(s), up to 3 concurrently"])
    expect(ran.lines.at(-1)).toBe("[2] step-2 (jq)")
    expect([...ran.lines.slice(2, -1)].sort()).toEqual([
      "[item-1] [1] mine",
      "[item-1] [2] step-1.2 (jq)",
      "[item-2] [1] mine",
      "[item-2] [2] step-1.2 (jq)",
      "[item-3] [1] mine",
      "[item-3] [2] step-1.2 (jq)"
    ])
    // The fast item finished first, so its lines came before the slow one's second step.
    expect(ran.lines.indexOf("[item-2] [2] step-1.2 (jq)")).toBeLessThan(ran.lines.indexOf("[item-1] [2] step-1.2 (jq)"))
  })

  test("concurrent items are limited to max_concurrency at a time", async () => {
    const log = path.join(dir, "limit.log")
    const ran = await runYaml(
      dir,
      `
steps:
  - for_each: '[range(6)]'
    max_concurrency: 2
    steps:
      - run: [sh, -c, 'echo "start $(date +%s%N)" >> "$0"; sleep 0.2; echo "end $(date +%s%N)" >> "$0"', '${log}']
`,
      null
    )
    expect(valueOf(ran)).toEqual(["", "", "", "", "", ""])
    let running = 0
    let peak = 0
    const events = fs.readFileSync(log, "utf8").trim().split("\n").map((line) => {
      const [kind, at] = line.split(" ")
      return { kind: kind!, at: BigInt(at!) }
    }).sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : a.kind === "end" ? -1 : 1))
    for (const event of events) {
      running += event.kind === "start" ? 1 : -1
      peak = Math.max(peak, running)
    }
    expect(peak).toBe(2)
  })
})

describe("while and until", () => {
  test("while checks before each iteration and can run zero times; loop = {index}", async () => {
    const ran = await runYaml(
      dir,
      "steps:\n  - id: w\n    while: '.n < 3'\n    max_iterations: 10\n    steps:\n      - jq: '{n: (.n + 1), seen: (.seen + [$loop.index])}'\n",
      { n: 0, seen: [] }
    )
    expect(valueOf(ran)).toEqual({ n: 3, seen: [0, 1, 2] })
    expect(ran.lines).toEqual([
      "[1] w",
      "    -> iteration 1/10",
      "[2] step-1.1 (jq)",
      "    -> iteration 2/10",
      "[3] step-1.1 (jq)",
      "    -> iteration 3/10",
      "[4] step-1.1 (jq)"
    ])
    const zero = await runYaml(dir, "steps:\n  - while: 'false'\n    max_iterations: 1\n    steps:\n      - jq: '\"ran\"'\n", "kept")
    expect(valueOf(zero)).toBe("kept")
  })

  test("until checks each iteration's result", async () => {
    const ran = await runYaml(dir, "steps:\n  - until: '. >= 8'\n    max_iterations: 10\n    steps:\n      - jq: '. * 2'\n", 1)
    expect(valueOf(ran)).toBe(8)
  })

  test("reaching max_iterations without satisfying the condition is an error", async () => {
    const w = await runYaml(dir, "steps:\n  - id: spin\n    while: 'true'\n    max_iterations: 2\n    steps:\n      - jq: '.'\n", 0)
    expect(errorOf(w)).toBe("step 'spin': reached max_iterations (2) without satisfying 'while'")
    const u = await runYaml(dir, "steps:\n  - id: spin\n    until: 'false'\n    max_iterations: 3\n    steps:\n      - jq: '.'\n", 0)
    expect(errorOf(u)).toBe("step 'spin': reached max_iterations (3) without satisfying 'until'")
  })

  test("break ends the loop normally, from inside a switch, and skips the loop step's own output", async () => {
    const ran = await runYaml(
      dir,
      `
steps:
  - id: l
    while: 'true'
    max_iterations: 10
    steps:
      - jq: '. + 1'
      - switch:
          - when: '. == 3'
            steps:
              - break: true
                output: '. * 100'
        else:
          - jq: '.'
  - jq: '{final: ., l: $steps.l}'
`,
      0
    )
    expect(valueOf(ran)).toEqual({ final: 300, l: 300 })
  })
})

describe("stop", () => {
  test("stop ends the file with the current value; the top-level output still applies", async () => {
    const ran = await runYaml(
      dir,
      "steps:\n  - jq: '. + 1'\n  - group:\n      - stop: true\n        input: '. * 2'\n  - jq: '\"not reached\"'\noutput: '{out: .}'\n",
      1
    )
    expect(valueOf(ran)).toEqual({ out: 4 })
    expect(ran.lines).toEqual(["[1] step-1 (jq)", "[2] step-2 (group)", "[3] step-2.1 (stop)"])
  })
})
