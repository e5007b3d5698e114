// `lait graph`: the Mermaid and DOT renderings of a workflow with every control kind, and the command
// run as a real process.
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Effect, Exit } from "effect"
import { FileLoader } from "../../src/platform/FileLoader.ts"
import { renderGraph } from "../../src/lang/graph.ts"
import { parseWorkflowText } from "../../src/lang/load.ts"
import type { Workflow } from "../../src/lang/model.ts"
import { runCli } from "../e2e/util.ts"

const WORKFLOW = `name: graph demo
steps:
  - id: fetch
    run: [curl, "-s", "{{input}}"]
    retry: {max_attempts: 2}
    on_error:
      - jq: '"offline"'
  - id: route
    when: '. != ""'
    switch:
      - when: 'startswith("{")'
        steps:
          - jq: fromjson
      - when: '. == "stop"'
        steps:
          - stop: true
    else:
      - jq: '{text: .}'
  - id: fan
    parallel:
      a:
        - agent: critic
      b:
        - workflow: child.yml
  - id: items
    for_each: '[.a, .b]'
    max_concurrency: 2
    steps:
      - write: 'out/{{loop.index}}.txt'
  - id: loop
    while: 'length < 3'
    max_iterations: 5
    steps:
      - jq: '. + ["x"]'
      - break: true
        when: 'length == 2'
  - id: wrap
    group:
      - until: '. > 2'
        max_iterations: 3
        steps:
          - prompt: 'Count from {{input}}'
`

const MERMAID = `flowchart TD
    n1(("start"))
    n2["[fetch]<br/>run<br/>curl -s {{input}}"]
    n3["[step-1.on_error.1]<br/>jq<br/>#quot;offline#quot;"]
    n4{"[route]<br/>switch<br/>when: . != #quot;#quot;"}
    n5["[step-2.case1.1]<br/>jq<br/>fromjson"]
    n6(("stop"))
    n7["[step-2.else.1]<br/>jq<br/>{text: .}"]
    n8{"[fan]<br/>parallel"}
    n9{"join"}
    n10["[step-3.a.1]<br/>agent<br/>critic (lait.config.yml agents)"]
    n11["[step-3.b.1]<br/>workflow<br/>child.yml"]
    n12{"[items]<br/>for_each: [.a, .b]<br/>max_concurrency: 2"}
    n13["[step-4.1]<br/>write<br/>out/{{loop.index}}.txt"]
    n14{"[loop]<br/>while length < 3<br/>max_iterations: 5"}
    n15["[step-5.1]<br/>jq<br/>. + [#quot;x#quot;]"]
    n16(("break<br/>when: length == 2"))
    n17{"[wrap]<br/>group"}
    n18{"[step-6.1]<br/>until . > 2<br/>max_iterations: 3"}
    n19["[step-6.1.1]<br/>prompt"]
    n20(("end"))
    subgraph sg0["fetch: on_error"]
        n3
    end
    subgraph sg1["branch 'a'"]
        n10
    end
    subgraph sg2["branch 'b'"]
        n11
    end
    subgraph sg3["[items] for_each body"]
        n13
    end
    subgraph sg4["[loop] loop body"]
        n15
        n16
    end
    subgraph sg5["[step-6.1] loop body"]
        n19
    end
    subgraph sg6["[wrap] group"]
        n18
    end
    n2 -->|"on_error"| n3
    n4 -->|"case 1: startswith(#quot;{#quot;)"| n5
    n4 -->|"case 2: . == #quot;stop#quot;"| n6
    n4 -->|"else"| n7
    n2 --> n4
    n3 --> n4
    n8 --> n10
    n10 --> n9
    n8 --> n11
    n11 --> n9
    n5 --> n8
    n7 --> n8
    n4 --> n8
    n12 -->|"per item"| n13
    n13 -->|"next item"| n12
    n9 --> n12
    n15 --> n16
    n14 -->|"iterate"| n15
    n16 -->|"next iteration"| n14
    n12 --> n14
    n18 -->|"iterate"| n19
    n19 -->|"next iteration"| n18
    n17 --> n18
    n14 --> n17
    n1 --> n2
    n18 --> n20
`

const DOT = `digraph workflow {
    rankdir=TB;
    n1 [shape=ellipse, label="start"];
    n2 [shape=box, label="[fetch]\\lrun\\lcurl -s {{input}}"];
    n3 [shape=box, label="[step-1.on_error.1]\\ljq\\l\\"offline\\""];
    n4 [shape=diamond, label="[route]\\lswitch\\lwhen: . != \\"\\""];
    n5 [shape=box, label="[step-2.case1.1]\\ljq\\lfromjson"];
    n6 [shape=ellipse, label="stop"];
    n7 [shape=box, label="[step-2.else.1]\\ljq\\l{text: .}"];
    n8 [shape=diamond, label="[fan]\\lparallel"];
    n9 [shape=diamond, label="join"];
    n10 [shape=box, label="[step-3.a.1]\\lagent\\lcritic (lait.config.yml agents)"];
    n11 [shape=box, label="[step-3.b.1]\\lworkflow\\lchild.yml"];
    n12 [shape=diamond, label="[items]\\lfor_each: [.a, .b]\\lmax_concurrency: 2"];
    n13 [shape=box, label="[step-4.1]\\lwrite\\lout/{{loop.index}}.txt"];
    n14 [shape=diamond, label="[loop]\\lwhile length < 3\\lmax_iterations: 5"];
    n15 [shape=box, label="[step-5.1]\\ljq\\l. + [\\"x\\"]"];
    n16 [shape=ellipse, label="break\\lwhen: length == 2"];
    n17 [shape=diamond, label="[wrap]\\lgroup"];
    n18 [shape=diamond, label="[step-6.1]\\luntil . > 2\\lmax_iterations: 3"];
    n19 [shape=box, label="[step-6.1.1]\\lprompt"];
    n20 [shape=ellipse, label="end"];
    subgraph cluster_0 {
        label="fetch: on_error";
        n3;
    }
    subgraph cluster_1 {
        label="branch 'a'";
        n10;
    }
    subgraph cluster_2 {
        label="branch 'b'";
        n11;
    }
    subgraph cluster_3 {
        label="[items] for_each body";
        n13;
    }
    subgraph cluster_4 {
        label="[loop] loop body";
        n15;
        n16;
    }
    subgraph cluster_5 {
        label="[step-6.1] loop body";
        n19;
    }
    subgraph cluster_6 {
        label="[wrap] group";
        n18;
    }
    n2 -> n3 [label="on_error"];
    n4 -> n5 [label="case 1: startswith(\\"{\\")"];
    n4 -> n6 [label="case 2: . == \\"stop\\""];
    n4 -> n7 [label="else"];
    n2 -> n4;
    n3 -> n4;
    n8 -> n10;
    n10 -> n9;
    n8 -> n11;
    n11 -> n9;
    n5 -> n8;
    n7 -> n8;
    n4 -> n8;
    n12 -> n13 [label="per item"];
    n13 -> n12 [label="next item"];
    n9 -> n12;
    n15 -> n16;
    n14 -> n15 [label="iterate"];
    n16 -> n14 [label="next iteration"];
    n12 -> n14;
    n18 -> n19 [label="iterate"];
    n19 -> n18 [label="next iteration"];
    n17 -> n18;
    n14 -> n17;
    n1 -> n2;
    n18 -> n20;
}
`

let dir = ""
let workflow: Workflow

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "lait-graph-"))
  fs.writeFileSync(path.join(dir, "graph.yml"), WORKFLOW)
  fs.writeFileSync(path.join(dir, "invalid.yml"), "steps:\n  - jq: .\n  - break: true\n")
  const exit = await Effect.runPromiseExit(
    parseWorkflowText(WORKFLOW, path.join(dir, "graph.yml")).pipe(Effect.provide(FileLoader.layer))
  )
  if (Exit.isFailure(exit)) throw new Error(String(exit.cause))
  workflow = exit.value
})
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

const relativeToDir = { displayPath: (p: string) => path.relative(dir, p) }

describe("renderGraph", () => {
  test("Mermaid: rectangles for actions, diamonds for control steps, circles for terminals, subgraphs", () => {
    expect(renderGraph(workflow, "mermaid", relativeToDir)).toBe(MERMAID)
  })

  test("DOT: the same graph, quotes and backslashes escaped, lines left-aligned", () => {
    expect(renderGraph(workflow, "dot", relativeToDir)).toBe(DOT)
  })

  test("agent paths are shown as stored unless a displayPath is given; a child workflow's as written", async () => {
    const exit = await Effect.runPromiseExit(parseWorkflowText(
      "steps:\n  - agent: ./agents/a.md\n  - workflow: ./sub/../child.yml\n",
      path.join(dir, "paths.yml")
    ).pipe(Effect.provide(FileLoader.layer)))
    if (Exit.isFailure(exit)) throw new Error(String(exit.cause))
    const text = renderGraph(exit.value, "mermaid")
    expect(text).toContain(`agent<br/>${path.join(dir, "agents/a.md")}"]`)
    expect(text).toContain(`workflow<br/>./sub/../child.yml"]`)
    expect(renderGraph(exit.value, "mermaid", relativeToDir)).toContain(`workflow<br/>./sub/../child.yml"]`)
  })

  test("registry workflows, inline and path agents are described by where they come from", async () => {
    const exit = await Effect.runPromiseExit(parseWorkflowText(
      "agents:\n  me: {system: hi}\nsteps:\n  - agent: me\n  - agent: a/b.md\n  - workflow: summarize\n",
      path.join(dir, "refs.yml")
    ).pipe(Effect.provide(FileLoader.layer)))
    if (Exit.isFailure(exit)) throw new Error(String(exit.cause))
    const text = renderGraph(exit.value, "mermaid", relativeToDir)
    expect(text).toContain(`n2["[step-1]<br/>agent<br/>me (inline)"]`)
    expect(text).toContain(`n3["[step-2]<br/>agent<br/>a/b.md"]`)
    expect(text).toContain(`n4["[step-3]<br/>workflow<br/>summarize (lait.config.yml workflows)"]`)
  })
})

describe("lait graph (as a process)", () => {
  test("prints the Mermaid graph with nothing appended, exit 0", async () => {
    const r = await runCli(["graph", "graph.yml"], { cwd: dir })
    expect(r).toMatchObject({ code: 0, stderr: "", stdout: MERMAID })
  })

  test("--format dot", async () => {
    const r = await runCli(["graph", "graph.yml", "--format", "dot"], { cwd: dir })
    expect(r).toMatchObject({ code: 0, stderr: "", stdout: DOT })
  })

  test("the binary keeps quotes in Mermaid labels and shows a child workflow's path as written", async () => {
    const sub = path.join(dir, "flows")
    fs.mkdirSync(sub, { recursive: true })
    fs.writeFileSync(
      path.join(sub, "quotes.yml"),
      "steps:\n  - jq: '{\"a\": \"b\"}'\n  - workflow: ../shared/child.yml\n    when: '. != \"\"'\n"
    )
    const r = await runCli(["graph", "flows/quotes.yml"], { cwd: dir, binary: true })
    expect(r).toMatchObject({ code: 0, stderr: "" })
    expect(r.stdout).toBe(
      [
        "flowchart TD",
        '    n1(("start"))',
        '    n2["[step-1]<br/>jq<br/>{#quot;a#quot;: #quot;b#quot;}"]',
        '    n3["[step-2]<br/>workflow<br/>../shared/child.yml<br/>when: . != #quot;#quot;"]',
        '    n4(("end"))',
        "    n2 --> n3",
        "    n1 --> n2",
        "    n3 --> n4",
        ""
      ].join("\n")
    )
    const dot = await runCli(["graph", "flows/quotes.yml", "--format", "dot"], { cwd: dir, binary: true })
    expect(dot.stdout).toContain('label="[step-2]\\lworkflow\\l../shared/child.yml\\lwhen: . != \\"\\""];')
  })

  test("an invalid workflow: exit 3 and one 'lait: ...' line on stderr, nothing on stdout", async () => {
    const r = await runCli(["graph", "invalid.yml"], { cwd: dir })
    expect(r.code).toBe(3)
    expect(r.stdout).toBe("")
    expect(r.stderr).toBe(
      "lait: failed to load workflow 'invalid.yml' (line 3): 'break' (break) must be inside a 'for_each'/'while'/'until' " +
        "body (and cannot cross a 'parallel' branch or a concurrent 'for_each')\n"
    )
  })
})
