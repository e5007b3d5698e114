// The native YAML parser against the yaml package: for every text the native parser accepts, the
// package must accept it too and agree on every node's kind, range and value, on the toJS value and
// on the line of every offset (test/core/yamlNativeDiff.ts). Over the repository's own YAML files,
// the YAML blocks of the documentation, a table of tricky cases (whose accept/bail decision is pinned
// too) and random documents, some of them mutated into near-misses.
import { describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as path from "node:path"
import { parseYamlValue } from "../../src/core/yamlTree.ts"
import { compare } from "./yamlNativeDiff.ts"
import { prng as mulberry32 } from "../fixtures/prng.ts"

const repo = path.resolve(import.meta.dir, "../..")

const walk = (dir: string, keep: (file: string) => boolean): Array<string> =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (e.name === "node_modules" || e.name === "dist" || e.name.startsWith(".")) return []
    const file = path.join(dir, e.name)
    return e.isDirectory() ? walk(file, keep) : keep(file) ? [file] : []
  })

describe("the repository's YAML", () => {
  const files = walk(repo, (f) => /\.ya?ml$/.test(f))

  test("every .yml/.yaml file: the native parser agrees with the package or declines", () => {
    expect(files.length).toBeGreaterThan(100)
    const problems: Array<string> = []
    let native = 0
    for (const file of files) {
      const verdict = compare(fs.readFileSync(file, "utf8"))
      if (verdict.problem !== undefined) problems.push(`${path.relative(repo, file)}: ${verdict.problem}`)
      if (verdict.native) native++
    }
    expect(problems).toEqual([])
    // Only the files that are broken or hostile on purpose are left to the package.
    expect(native / files.length).toBeGreaterThan(0.9)
  })

  test("the examples are all in the native subset", () => {
    const examples = files.filter((f) => f.startsWith(path.join(repo, "examples")))
    expect(examples.length).toBeGreaterThan(5)
    expect(examples.filter((f) => !compare(fs.readFileSync(f, "utf8")).native).map((f) => path.relative(repo, f)))
      .toEqual([])
  })

  test("the documentation's YAML blocks", () => {
    const blocks = walk(repo, (f) => f.endsWith(".md")).flatMap((f) =>
      [...fs.readFileSync(f, "utf8").matchAll(/```ya?ml\n([\s\S]*?)```/g)].map((m) => ({ f, text: m[1]! }))
    )
    expect(blocks.length).toBeGreaterThan(20)
    const problems = blocks.flatMap(({ f, text }) => {
      const verdict = compare(text)
      return verdict.problem === undefined ? [] : [`${path.relative(repo, f)}: ${verdict.problem}\n${text}`]
    })
    expect(problems).toEqual([])
    expect(blocks.filter(({ text }) => compare(text).native).length).toBeGreaterThan(blocks.length / 2)
  })
})

// [text, whether the native parser takes it]
const TABLE: ReadonlyArray<readonly [string, boolean]> = [
  // quoting and escapes
  ["a: 'it''s'\nb: \"t\\tq\\\"\\\\ \\x41\\u00e9\\U0001F600 \\/ \\_ \\N \\e\\0 \\a\\b\\f\\v\\r\\L\\P\"\n", true],
  ["a: \"\\q\"\n", false],
  ["a: \"\\x4\"\n", false],
  ["a: \"\\U00110000\"\n", false],
  ["a: \"\\uD800\"\n", true],
  ["a: 'x''\n", false],
  ["a: 'x' y\n", false],
  ["a: '' \nb: \"\" #c\n", true],
  // `#` and `:` inside scalars, comments after values
  ["a: x#y\nb: \"#\"\nc: '# no'\nd: x # yes\n", true],
  ["key:value\n", true],
  ["a: x:y\nb: http://h:1/p?q=r#f\n", true],
  ["a: b: c\n", false],
  ["a : 1\n", false],
  ["a: [x]#c\n", false],
  ["a: [x] #c\nb: {y: z} # d\n", true],
  // block scalars: chomping, indentation, folding, comments inside and after
  ["a: |\n  x\n   y\n\n  z\n\nb: |-\n  x\n\n\nc: |+\n  x\n\n\nd: >\n  a\n  b\n\n  c\n    more\n  d\ne: >-\n  f\n", true],
  ["a: |+\n  x\n\n# c\nb: 1\n", true],
  ["a: >+\n  x\n\n", true],
  ["a: |\n\n  x\n", true],
  ["a: |\n  x\n  # content\nb: 2\n", true],
  ["a: |  # c\n  x\nb: |-  # d\n  y\n", true],
  ["a: >\n  x\n\n\n  y\n   z\n  w\n", true],
  ["a: |\n  x", true],
  ["a: |2\n   x\n", false],
  ["a: |\n   \n  x\n", false],
  ["a: |\n  x\n b: 1\n", false],
  ["a: |\nb: 1\n", false],
  ["- |\n  x\n- >-\n  y\n  z\n- |+\n  w\n\n- - |\n    v\n", true],
  ["a:\n- |\n  x\n- b: |\n    y\n  c: 1\n", true],
  ["a: x &y\nb: x *y\nc: x !y\nd: x | y\n", true],
  // sequences, compact forms, empty values
  ["- - x\n  - y\n- - - z\n", true],
  ["- a: 1\n  b: 2\n- c: 3\n", true],
  ["- \n- a\n-\n", true],
  ["a:\n- x\n- y\nb: 1\n", true],
  ["a:\nb: ~\nc: null\nd: Null\ne: NULL\nf: \"\"\ng: ''\n", true],
  ["a:      \n", true],
  ["a:  # c\n", false],
  ["- a\n - b\n", false],
  ["- a\nb: 1\n", false],
  ["a: - x\n", false],
  // numbers and the other core-schema scalars
  ["n: [1_000, +1, .5, 1e3, 0o17, 0x1F, -0, 1., -.inf, .NaN, .Inf, 012, 1e, 0x, 0o8, 3.14e-2, -1E+5, 0.10]\n", true],
  ["b: [True, true, TRUE, yes, no, on, off, y, n, tRue, ~, Null, nULL]\n", true],
  ["a: 12345678901234567890\nb: 1e400\nc: 0x7FFFFFFFFFFFFFFFFF\nd: -.INF\n", true],
  ["1: a\n2: b\n0x10: c\ntrue: d\n1.5: e\n", true],
  // flow collections
  ["a: {x: 1, 'y': \"2\", z: [a, {b: c}]}\nb: []\nc: {}\nd: [ ]\n", true],
  ["a: [-1, -x, a b, 'q', \"r\"]\n", true],
  ["a: [a, , b]\n", false],
  ["a: [a, b,]\n", false],
  ["a: {a}\n", false],
  ["a: {a: }\n", false],
  ["a: {x:y}\n", false],
  ["a: [1,\n 2]\n", false],
  ["[a, b]: c\n", false],
  // comments around collection ends
  ["a:\n  b: x\n    # d\n  # e\nf: 1\n", true],
  ["x:\n  a:\n    b: 1\n    # d\n  c: 2\n", true],
  ["- k: v\n  # c\n- k2: v2\n  # d\n", true],
  ["a:\n  b: |\n    x\n\n   # d\n", true],
  ["a:\n  b:\n  # d\n", false],
  ["k:\n  q:\n\n# n\n    a\nx: 1\n", false],
  ["- q:\n\n# n\n    a\n- 1\n", false],
  ["k:\n\n# c\n  b: 1\nl:\n  # c\n  - 1\n", true],
  // what always goes to the package
  ["a: &x 1\nb: *x\n", false],
  ["a: !!str 1\n", false],
  ["? a\n: b\n", false],
  ["a: 1\na: 2\n", false],
  ["1: a\n'1': b\n", false],
  ["a:\tb\n", false],
  ["a: 1\r\nb: 2\r\n", false],
  ["<<: {a: 1}\n", false],
  ["__proto__: 1\n", false],
  ["null: 1\n", false],
  ["a: 1\n---\nb: 2\n", false],
  ["%YAML 1.2\n---\na: 1\n", false],
  ["\ufeffa: 1\n", false],
  [`a: ${"[".repeat(100)}${"]".repeat(100)}\n`, false],
  // plain scalars over several lines
  ["a: b\n  c\n\n  d\n\n\n  e\nf: 1\n", true],
  ["- a\n  b  \n- k: c\n   d # e\n  k2:\n    f\n    g\n", true],
  ["a: 1\n  2\nb: true\n  x\n", true],
  ["a: b # x\n  c\n", false],
  ["a: b\n  c: d\n", false],
  ["a: b\n  - c\n", false],
  ["x\ny\n", false],
  // quoted scalars over several lines
  ["a: \"x\n  y\"\nb: 'x\n\n  y  \n   z'\n", true],
  ["a: \"x  \n  y\\\n   z\\n \n\n  w\"\n", true],
  ["- \"a\n  b\" # c\n- 'it''s\n  ok'\n", true],
  ["a: \"x\ny\"\n", false],
  ["a: \"\\q\n  x\"\n", false],
  // documents that are not mappings
  ["x\n", true],
  ["\"x\"\n", true],
  ["[1, 2]\n", true],
  ["", true],
  ["# only a comment\n\n", true],
  ["  a: 1\n  b: 2\n", true],
  ["a: é日本語 😀\n", true]
]

describe("tricky cases", () => {
  for (const [text, native] of TABLE) {
    test(JSON.stringify(text).slice(0, 90), () => {
      expect(compare(text)).toEqual({ native })
    })
  }

  test("values as the package gives them, through parseYamlValue", () => {
    expect(parseYamlValue("a: 0o17\nb: 0x1F\nc: 1_000\nd: .5\ne: yes\nf: ~\ng: '1'\n")).toEqual({
      a: 15,
      b: 31,
      c: "1_000",
      d: 0.5,
      e: "yes",
      f: null,
      g: "1"
    })
    expect(() => parseYamlValue("a: 1\na: 2\n")).toThrow("duplicate entry with key \"a\" at line 2, column 1")
  })
})

// ---------------------------------------------------------------------------------------------
// Random documents

const PLAINS = [
  "abc", "a b", "1", "-2", "0o17", "0x1F", "1e3", ".5", "+1", "~", "null", "True", "false", "yes", "a#b", "x:y",
  "http://h/p?q=1", "1_000", ".inf", "-.Inf", ".NaN", "12345678901234567890", "é", "😀", "-x", "a  b", "3.0", "0.10",
  "{{ input }}", ".a | .b", "$x", "a,b", "a]b", "a'b", "a\"b", "a:", "a: b", "- a", "? a", "@a", "`a`", "%a", "&a", "*a",
  "!a", "|", ">"
]
const QUOTED = [
  "''", "\"\"", "'a''b'", "'# x'", "\"a\\nb\"", "\"\\t\\\\\"", "\"\\u00e9\"", "\"x: y\"", "'x: y'", "\"\\q\"", "'a", "\"a"
]
const KEYS = ["a", "b", "c", "key", "1", "true", "k-1", "\"q k\"", "'s k'", "null", "x y", "a", "0x1"]

const generate = (rand: () => number): string => {
  const pick = <A>(list: ReadonlyArray<A>): A => list[Math.floor(rand() * list.length)]!
  const comment = () => (rand() < 0.2 ? " # c" : "")
  const noise = (indent: number): string => {
    let out = ""
    while (rand() < 0.15) out += rand() < 0.5 ? "\n" : `${" ".repeat(Math.floor(rand() * (indent + 4)))}# n\n`
    return out
  }
  const scalar = (): string => {
    const r = rand()
    if (r < 0.5) return pick(PLAINS)
    if (r < 0.75) return pick(QUOTED)
    if (r < 0.87) return `[${Array.from({ length: Math.floor(rand() * 3) }, () => pick(PLAINS.slice(0, 20))).join(", ")}]`
    return `{${Array.from({ length: Math.floor(rand() * 3) }, (_, i) => `${pick(KEYS.slice(0, 5))}${i}: ${pick(PLAINS.slice(0, 20))}`).join(", ")}}`
  }
  const blockScalar = (indent: number): string => {
    const header = pick(["|", "|-", "|+", ">", ">-", ">+", "|2", ">1-"])
    let body = ""
    const n = 1 + Math.floor(rand() * 4)
    for (let i = 0; i < n; i++) {
      const r = rand()
      if (r < 0.2) body += "\n"
      else if (r < 0.3) body += `${" ".repeat(indent + 2 + Math.floor(rand() * 4))}\n`
      else body += `${" ".repeat(indent + 2 + (rand() < 0.2 ? 2 : 0))}${pick(["x", "y z", "# h", "a: b", "- i"])}\n`
    }
    return `${header}${comment()}\n${body}${rand() < 0.3 ? "\n" : ""}`
  }
  // A plain scalar over several lines, continued deeper than `indent` (or not: a near-miss).
  const multiPlain = (indent: number): string => {
    let out = pick(PLAINS)
    const n = 1 + Math.floor(rand() * 3)
    for (let i = 0; i < n; i++) {
      if (rand() < 0.3) out += `\n${" ".repeat(Math.floor(rand() * 3))}`
      out += `\n${" ".repeat(indent + (rand() < 0.1 ? 0 : 1 + Math.floor(rand() * 3)))}${pick(PLAINS)}${rand() < 0.2 ? "  " : ""}`
    }
    return out
  }
  // A quoted scalar over several lines (escapes, escaped line breaks, blank lines, trailing spaces).
  const multiQuoted = (indent: number): string => {
    const q = rand() < 0.5 ? "\"" : "'"
    const words = q === "\"" ? ["a", "b c", "\\n", "\\t", "\\\"", "\\", "# h", "x: y", "\\q"] : ["a", "b c", "''", "# h", "x: y"]
    let out = q + pick(words)
    const n = 1 + Math.floor(rand() * 3)
    for (let i = 0; i < n; i++) {
      if (rand() < 0.2) out += " "
      if (q === "\"" && rand() < 0.15) out += "\\"
      if (rand() < 0.3) out += `\n${" ".repeat(Math.floor(rand() * 3))}`
      out += `\n${" ".repeat(indent + (rand() < 0.1 ? 0 : 1 + Math.floor(rand() * 3)))}${pick(words)}`
    }
    return out + q
  }
  const node = (indent: number, depth: number, inline: boolean): string => {
    const r = rand()
    const pad = " ".repeat(indent)
    if (depth < 4 && r < 0.3) {
      let out = ""
      const n = 1 + Math.floor(rand() * 3)
      for (let i = 0; i < n; i++) {
        const head = i === 0 && inline ? "" : pad
        out += `${head}${pick(KEYS)}:${value(indent, depth)}${noise(indent)}`
      }
      return out
    }
    if (depth < 4 && r < 0.55) {
      let out = ""
      const n = 1 + Math.floor(rand() * 3)
      for (let i = 0; i < n; i++) {
        const head = i === 0 && inline ? "" : pad
        const rr = rand()
        if (rr < 0.3) out += `${head}- ${node(indent + 2, depth + 1, true)}`
        else if (rr < 0.4) out += `${head}-${comment()}\n${node(indent + 2, depth + 1, false)}`
        else if (rr < 0.5) out += `${head}-\n`
        else if (rr < 0.6) out += `${head}- ${blockScalar(indent)}`
        else if (rr < 0.7) out += `${head}- ${multiPlain(indent)}${comment()}\n`
        else if (rr < 0.75) out += `${head}- ${multiQuoted(indent)}${comment()}\n`
        else out += `${head}- ${scalar()}${comment()}\n`
        out += noise(indent)
      }
      return out
    }
    return `${inline ? "" : pad}${scalar()}${comment()}\n`
  }
  const value = (indent: number, depth: number): string => {
    const r = rand()
    if (r < 0.4) return ` ${scalar()}${comment()}\n`
    if (r < 0.45) return ` ${rand() < 0.5 ? multiPlain(indent) : multiQuoted(indent)}${comment()}\n`
    if (r < 0.6) return ` ${blockScalar(indent)}`
    if (r < 0.67) return `${comment()}\n`
    const sameIndentSeq = rand() < 0.15
    return `${comment()}\n${noise(indent)}${node(sameIndentSeq ? indent : indent + 2, depth + 1, false)}`
  }
  return node(0, 0, false)
}

const mutate = (rand: () => number, text: string): string => {
  const at = Math.floor(rand() * (text.length + 1))
  if (rand() < 0.5) return text.slice(0, at) + text.slice(at + 1)
  const chars = [":", "-", " ", "#", "'", "\"", "\n", "[", "]", "{", "}", "|", ">", "\\", ",", "  "]
  return text.slice(0, at) + chars[Math.floor(rand() * chars.length)] + text.slice(at)
}

test("random documents and near-misses: the native parser agrees with the package or declines", () => {
  const rand = mulberry32(Number(process.env["YAML_SEED"] ?? 24))
  const problems: Array<string> = []
  let native = 0
  let total = 0
  for (let i = 0; i < 4000; i++) {
    const text = generate(rand)
    for (const candidate of [text, mutate(rand, text)]) {
      total++
      const verdict = compare(candidate)
      if (verdict.native) native++
      if (verdict.problem !== undefined && problems.length < 5) problems.push(`${verdict.problem}\n${JSON.stringify(candidate)}`)
    }
  }
  expect(problems).toEqual([])
  // The generator writes mostly the subset: a parser that declined everything would fail here.
  expect(native / total).toBeGreaterThan(0.3)
}, 60_000)
