// The native jq evaluator (src/lang/jq/) against jq-wasm (jqNativeDiff.ts) on what lait itself feeds
// it: every jq filter of the repository's examples, docs, fixtures and benchmarks on several inputs with
// `$steps`/`$inputs`/`$loop` bound, then hand-written cases for each point of jq's semantics the
// evaluator implements. jq's own test corpus: jqCorpus.test.ts.
import { afterAll, describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as path from "node:path"
import { parseAllDocuments } from "yaml"
import type { Json } from "../../src/core/json.ts"
import { nativeFilter, runNative } from "../../src/lang/jq/index.ts"
import { differential, type Globals, jqCompiles, type Verdict } from "./jqNativeDiff.ts"

const root = path.resolve(import.meta.dir, "../..")
const JQ_KEYS = new Set(["jq", "expr", "when", "args_jq", "for_each", "while", "until", "output", "input"])

const filesUnder = (dir: string): Array<string> =>
  fs.readdirSync(path.join(root, dir), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.join(e.parentPath, e.name))
    .filter((file) => !file.includes("node_modules"))

const yamlTexts = (file: string): Array<string> => {
  const text = fs.readFileSync(file, "utf8")
  if (/\.ya?ml$/.test(file)) return [text]
  if (file.endsWith(".md")) return [...text.matchAll(/```ya?ml\n([\s\S]*?)```/g)].map((m) => m[1]!)
  return []
}

const collect = (value: unknown, into: Set<string>): void => {
  if (Array.isArray(value)) for (const item of value) collect(item, into)
  else if (value !== null && typeof value === "object") {
    for (const [key, item] of Object.entries(value)) {
      if (JQ_KEYS.has(key) && typeof item === "string" && item.trim().length > 0) into.add(item)
      collect(item, into)
    }
  }
}

/** Every string under a jq-valued key in the repository's YAML (files and YAML blocks of Markdown). */
const repositoryFilters = (): Array<string> => {
  const found = new Set<string>()
  const files = ["examples", "docs", "test/fixtures", "bench"].flatMap(filesUnder).concat([path.join(root, "README.md")])
  for (const file of files) {
    for (const text of yamlTexts(file)) {
      for (const doc of parseAllDocuments(text)) {
        if ("errors" in doc && doc.errors.length === 0) collect(doc.toJS(), found)
      }
    }
  }
  return [...found].sort()
}

const INPUTS: ReadonlyArray<Json> = [
  null,
  4,
  "some words here",
  [3, 1, 2],
  { a: 1, b: "x", n: 5, status: "ok", ok: true, items: [{ id: 1, name: "a" }, { id: 2, name: "b" }] },
  { category: "billing", urgency: 2, summary: "503 errors", words: 12, route: { priority: "page" }, kind: "x" },
  { changes: [{ kind: "feat", title: "A" }, { kind: "chore", title: "B" }], text: "a b", n: 3, items: [] }
]
const GLOBALS: Globals = {
  steps: { draft: { output: "D" }, numbers: [1, 2], kind: "k", route: "r", reply: "y", name: "N" },
  inputs: { topic: "t" },
  loop: { index: 1, item: "i" }
}

describe("repository filters", () => {
  test("agree with jq-wasm on every input, and most are native", async () => {
    const filters = repositoryFilters()
    let accepted = 0
    let native = 0
    const verdicts: Record<Verdict, number> = { unsupported: 0, bailed: 0, same: 0, "jq-error": 0 }
    for (const filter of filters) {
      if (!(await jqCompiles(filter))) continue // a template or plain text under a jq-named key
      accepted++
      let nativeHere = false
      for (const input of INPUTS) {
        const verdict = await differential(filter, input, GLOBALS)
        verdicts[verdict]++
        if (verdict !== "unsupported") nativeHere = true
      }
      if (nativeHere) native++
    }
    const share = native / accepted
    console.log(
      `repository jq filters: ${accepted} compile, ${native} parsed natively (${(share * 100).toFixed(1)} %); ` +
        `runs: ${JSON.stringify(verdicts)}`
    )
    expect(accepted).toBeGreaterThan(60)
    expect(share).toBeGreaterThan(0.85)
  }, 120_000)
})

// [filter, inputs]: each point of jq's semantics the evaluator claims, run on each input.
const CASES: ReadonlyArray<readonly [string, ReadonlyArray<Json>]> = [
  // generators, order, precedence
  ["(1,2) + (10,20)", [null]],
  ["(1,2) | . * 10, 3", [null]],
  ["1, 2 | . + 1", [null]],
  ["[.[] | . * 2]", [[1, 2, 3]]],
  ["[.[]?]", [null, 1, "s", [1], { a: 1 }]],
  ["{a:(1,2), b:(3,4)}", [null]],
  ["{(\"a\",\"b\"): (1,2)}", [null]],
  ["[.[][0,1]]", [[[1, 2], [3, 4]]]],
  ["\"\\(1,2) \\(3,4)\"", [null]],
  ["empty, 1", [null]],
  ["[limit(3; .[])]", [[1, 2, 3, 4], []]],
  ["[limit(0; 1, 2)]", [null]],
  ["first(.[]), last(.[])", [[5, 6, 7]]],
  ["[first(empty)], [last(empty)], [nth(1; .[])]", [[5, 6, 7]]],
  ["first, last, nth(1), nth(-1)", [[5, 6, 7], [], null]],
  ["-1 + 2, -2 * 3, 2 * -3 + 1, 1 - -1, -(1, 2)", [null]],
  ["1 + 2 * 3 - 4 / 2 % 3", [null]],
  // alternative, and/or, comparisons
  [".a // \"d\"", [{}, { a: null }, { a: false }, { a: 0 }, "s", [1]]],
  ["(1, null, 2) // 3", [null]],
  ["(null, false) // (3, 4)", [null]],
  ["(1, error(\"x\")) // 3", [null]],
  ["empty // 1", [null]],
  ["(true, false) and (true, false)", [null]],
  ["(true, false) or (true, false)", [null]],
  ["false and error(\"x\"), true or error(\"x\")", [null]],
  [". == 1, . != 1, . < 1, . <= 1, . > 1, . >= 1", [0, 1, 2, "1", null, [1]]],
  ["[null, false, true, 0, -1, \"a\", \"\", [], [0], {}, {\"a\": 1}] | sort", [null]],
  ["[{\"b\": 1, \"a\": 2}, {\"a\": 2, \"b\": 0}, {\"c\": 0}, {\"a\": 1}] | sort", [null]],
  ["[\"\\uE000\", \"\\ud83d\\ude00\", \"z\", \"é\"] | sort", [null]],
  ["{\"\\uE000\": 1, \"\\ud83d\\ude00\": 2, \"z\": 3} | keys", [null]],
  ["[[1, 2], [1], [0, 5], []] | sort", [null]],
  // arithmetic on every type
  [". + .", [null, 1, "ab", [1], { a: 1 }, true]],
  [". + {\"b\": 2, \"a\": 3}", [{ a: 1, c: 0 }, null]],
  [". - [2]", [[1, 2, 2, 3], 1]],
  [". * {\"a\": {\"c\": 2}, \"d\": 1}", [{ a: { b: 1 }, d: { x: 1 } }, { a: 1 }]],
  [". / \",\"", ["a,b,,c", ",", "abc"]],
  [". % 3, . % -3", [5, -5, 0, 5.5]],
  [". / 0", [1, 0]],
  ["1 / 3, 10 / 4, 0.1 + 0.2", [null]],
  [". * 2, . * 0.5", [1.5, 3]],
  // paths and indexing
  [".a, .a.b, .a?.b?, .\"a\", .[\"a\"], .a[0]?", [{ a: { b: [1] } }, { a: [7] }, null, "s"]],
  [".[0], .[-1], .[5], .[-5]", [[1, 2, 3], null, {}]],
  [".[1:], .[:2], .[-2:], .[1:-1], .[5:], .[:-9]", [[1, 2, 3, 4], "héllo😀x", null]],
  [".[1.5]", [[1, 2, 3]]],
  // `?` right after an index skips the values it fails on; elsewhere it is `try`, which ends the stream
  ["[.[].a?], [.[][]?], [.[] | .[0]?], [(.[] | .a)?], [.[][1:]?], [.[].\"a\"?]", [[{ a: 1 }, "s", { a: 2 }, [3]]]],
  [".a.b?, .a?.b, [.a[]?], (.a)?, .a?, .[\"a\"]?, .[0]?", ["s", { a: "s" }, { a: { b: 1 } }, [1]]],
  [".a.[0]?", [{ a: [1] }, { a: 1 }]],
  [".__proto__, .constructor, .toString", [{ __proto__: 1 } as Json, {}, null]],
  ["$steps.draft.output, $inputs.topic, $loop.index", [null]],
  // construction
  ["{a, b: .b, \"c d\": 1, (.k): 2, $steps}", [{ a: 1, b: 2, k: "kk" }]],
  ["{a: 1, b: 2, a: 3}", [null]],
  ["{(.k): 1}", [{ k: 1 }, { k: "1" }, { k: "__proto__" }]],
  ["{a: 1 + 2, b: 1 | 2, c: -1}", [null]],
  ["{\"b\": 1} + {\"1\": 2} | keys_unsorted", [null]],
  ["[.[] | {name, id}]", [[{ id: 1, name: "a", x: 0 }, { name: "b" }]]],
  ["\"x\\(.)y\", \"\\(.a)-\\(.b)\"", [{ a: 1, b: "s" }, 1.5, [1, { a: "é" }], "\u007f"]],
  // control
  ["if . > 3 then \"big\" elif . > 1 then \"mid\" else \"small\" end", [5, 2, 0]],
  ["if . then 1 end, if (true, false) then 1 else 2 end", [true, null]],
  ["try error(\"x\"), try (1, error(\"x\"), 3), (1, error(\"x\"))?", [null]],
  ["try error(\"x\") catch .", [null]],
  ["[.[] | try (if . > 1 then error(\"big\") else . end)]", [[1, 2, 0]]],
  ["try 1 + error(\"x\")", [null]],
  ["reduce .[] as $x (0; . + $x), [foreach .[] as $x (0; . + $x)], [foreach .[] as $x (0; . + $x; ., -.)]", [[1, 2, 3]]],
  ["reduce .[] as $x (0; empty), reduce .[] as $x (0; ., 1)", [[1, 2]]],
  [". as $x | [$x, $x + 1] | . as $y | $y", [1]],
  ["1 + . as $x | $x * 2", [3]],
  // builtins
  ["length", [null, true, -3, 2.5, "héllo😀", [1, 2], { a: 1 }]],
  ["utf8bytelength", ["héllo😀", 1]],
  ["keys, keys_unsorted, to_entries", [{ b: 1, a: 2 }, [5, 6], null]],
  ["has(\"a\"), has(0), has(1.5), has([])", [{ a: 1 }, [1, 2], null, 1]],
  ["map(.a), map_values(. + 1)", [[{ a: 1 }], { x: 1, y: 2 }, null]],
  ["map_values(empty), map_values(., .)", [{ a: 1 }, [1, 2]]],
  ["with_entries(.value += 1), with_entries(select(.value > 1))", [{ a: 1, b: 2 }]],
  ["from_entries", [[{ key: "a", value: 1 }, { k: "b", v: 2 }], [{ name: "a", value: 1 }], [{ key: 1, value: 2 }]]],
  ["select(.ok), select(.n > 3) | .n", [{ ok: true, n: 4 }, { ok: false, n: 1 }]],
  ["add, add(.[] | . * 2), any, all", [[1, 2], [], ["a", "b"], [[1], [2]], [true, false], { a: 1 }]],
  ["any(. > 2), all(. > 0), any(.[]; . == 1)", [[1, 2, 3], []]],
  ["[range(5)], [range(2; 5)], [range(0, 1; 3, 4)], [range(.)]", [3, -1, 2.5]],
  ["floor, ceil, sqrt, fabs, round", [2.5, -2.5, 4, 2, -0.5, 0]],
  ["tostring, tojson, @text, @json", [1, 1.5, "s", null, [1, "a"], { a: [1.5] }, 1e300, 12345678901234567890]],
  ["tostring", [0.1, 0.001, 0.0001, 0.00001, 1e-7, 123456.789, 1500000000000000.5, 2 ** 53, 2 ** 53 + 2, -0.25]],
  [
    "[. + 0.2, . / 3, . * 1.1, . / 7, . - 0.999, 1 / .] | tostring, tojson, \"\\(.)\"",
    [0.1, 1, 2, 1e-3, 12345.678, 1e15, -7]
  ],
  ["tonumber", ["12", "1.5", "1e2", " 1", "01", "abc", 3, "-0", "nan"]],
  ["fromjson", ["{\"a\":1}", "[1, 2]", "nan", "1.0", "x", "{\"b\":1,\"a\":2}"]],
  ["type, [.[]?|type]", [null, true, 1, "s", [1, "a"], { a: null }]],
  ["sort, sort_by(-.), group_by(. % 2), unique, unique_by(. % 2), min, max", [[3, 1, 2, 1], []]],
  ["min_by(.a), max_by(.a), sort_by(.a), group_by(.a)", [[{ a: 1, i: 0 }, { a: 0, i: 1 }, { a: 1, i: 2 }, { a: 0, i: 3 }]]],
  ["sort_by(.a, .b)", [[{ a: 1, b: 2 }, { a: 1, b: 1 }, { a: 0, b: 3 }]]],
  ["reverse", [[1, 2, 3], [], "abc", null]],
  ["contains(\"b\"), contains([\"b\"]), contains({a: [1]})", ["abc", ["abc", "x"], { a: [1, 2], b: 0 }]],
  ["inside(\"abc\"), inside([1, 2])", ["b", [1]]],
  ["startswith(\"ab\"), endswith(\"bc\"), ltrimstr(\"a\"), rtrimstr(\"c\"), rtrimstr(\"\")", ["abc", 1]],
  ["ascii_downcase, ascii_upcase", ["aBc É", 1]],
  ["split(\", \"), split(\"\"), join(\"-\")", ["a, b, c", ["a", 1, null, true], [[1]], ""]],
  ["join(\", \")", [["a", "b"], [], [1.5], { a: "x" }]],
  ["explode, (explode | implode)", ["héllo😀"]],
  ["getpath([\"a\", 0]), getpath([\"x\", \"y\"])", [{ a: [1] }, { a: 1 }, null]],
  ["flatten, flatten(1), flatten(0)", [[1, [2, [3, [4]]]], [], { a: [1] }]],
  ["values, nulls, booleans, numbers, strings, arrays, objects, iterables, scalars", [null, true, 1, "s", [], {}]],
  ["in({\"a\": 1}), in([0])", ["a", 0, "b"]],
  ["@base64, @uri, @html", ["héllo <a href='x'>&\"</a> !*()~", 1, [1]]],
  ["error, error(\"x\"), error(null)", [null, "m"]],
  [". == \"\\ufffd\", length", ["\ud800", "a\udc00b"]],
  ["[.[] | . + 1]", [[1e308, 1]]],
  ["not, (. | not | not)", [null, false, 0, "", []]],
  ["[..], [recurse], [..?], [..[]?], [.. | .a?], [.. | numbers], [recurse(.a?)]", [{ a: [1, { b: 2 }], c: "x" }, [[1]], 3]],
  ["[recurse(if . < 5 then . + 1 else empty end)]", [2]],
  ["1 # a comment\n+ 2", [null]],
  ["\"\\($steps) # not a comment\" # $inputs.x in a comment\n| length", [null]],
  ["1 # a comment that goes on \\\n+ 2\n", [null]],
  [
    "test(\"refund\"), test(\"^lait \"), test(\"a.b\"), test(\"\"), test(\"é😀\"), test(\"4 ?%\"), test(\"b$\")",
    ["refunds", "lait x", "x\nlait y", "aXb", "a.b", "é😀", "4 %", "ab\n", 1, null]
  ],
  ["test(.[]?)", ["abc"]],
  [
    "gsub(\" \"; \"-\"), sub(\" \"; \"-\"), gsub(\"a\"; \"bb\"), gsub(\".\"; \"x\"), gsub(\" \"; \"\\(.)\"), gsub(\" \"; \"$&\")",
    ["a b  c", "aaa", "a.b", "", "é é", 1, null]
  ],
  ["gsub(\" \"; \"x\", \"y\"), sub(\"^a\"; \"b\"), gsub(\"\"; \"-\"), sub(\"a\"; 1)", ["a b", "ab"]],
  ["@csv, @tsv, @sh", [[1, "a,b", "c\"d", null, true, 1.5], [1, "a\tb", "c\\d", "x\ny\r"], [[1]], [{ a: 1 }], "it's", 1, null, { a: 1 }]],
  [".[] as $p | \"abc\" | test($p)", [["a", "^a", "^b", "[a]", "", 1]]]
]

/** The top-level `, `-separated parts of a case, each also run on its own (one failing part fails all). */
const parts = (filter: string): Array<string> => {
  const out: Array<string> = []
  let depth = 0
  let inString = false
  let start = 0
  for (let i = 0; i < filter.length; i++) {
    const c = filter[i]!
    if (inString) {
      if (c === "\\") i++
      else if (c === "\"") inString = false
    } else if (c === "\"") inString = true
    else if ("([{".includes(c)) depth++
    else if (")]}".includes(c)) depth--
    else if (c === "," && depth === 0) {
      out.push(filter.slice(start, i).trim())
      start = i + 1
    }
  }
  return out.length === 0 ? [] : [...out, filter.slice(start).trim()]
}

const tally: Record<Verdict, number> = { unsupported: 0, bailed: 0, same: 0, "jq-error": 0 }
describe("hand-written cases", () => {
  afterAll(() => console.log(`hand-written: ${JSON.stringify(tally)}`))
  for (const [filter, inputs] of CASES) {
    test(filter, async () => {
      for (const text of [filter, ...parts(filter)]) {
        for (const input of inputs) tally[await differential(text, input, GLOBALS)]++
      }
    })
  }
})

// What jq-wasm would run for long (or until it runs out of memory) runs in its worker, which a step's
// timeout and Ctrl-C can abandon: the native evaluator, on the main thread, must hand such filters over.
describe("endless or huge work is handed to jq-wasm", () => {
  const endless = [
    "[recurse(. + 1)]",
    "[range(1000000000)] | length",
    "reduce range(1000000000) as $i (0; . + 1)",
    "reduce range(64) as $i ([1]; . + .) | length",
    "reduce range(64) as $i (\"ab\"; . + .) | length",
    "[range(100000)] as $a | [$a[] as $x | $a[] | select(. == $x)] | length",
    "last(range(1000000000))"
  ]
  for (const filter of endless) {
    test(filter, () => {
      const node = nativeFilter(filter)
      expect(node).toBeDefined()
      // Undefined: it gave up within its budget (run to the end, it would have a value to return).
      expect(runNative(node!, 0, { steps: {}, inputs: {}, loop: null }, [], 2)).toBeUndefined()
    })
  }
})
