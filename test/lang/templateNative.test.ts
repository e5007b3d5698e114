// The native template renderer against the Handlebars path (templateNativeDiff.ts) on a table of
// tricky cases, and on every template in the examples, the docs and the test fixtures.
import { beforeAll, describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as path from "node:path"
import { parseAllDocuments } from "yaml"
import { nativeTemplate } from "../../src/lang/templateNative.ts"
import { differential, loadEngine, tally, type Verdict } from "./templateNativeDiff.ts"

beforeAll(loadEngine)

const data = {
  input: { city: "Tokyo", n: 37400000, tags: ["a", "b"], nothing: null, flag: true, off: false, zero: 0, empty: "" },
  steps: {
    list: [1, "two", { name: "three" }, [4], null, true],
    none: [],
    obj: { b: 2, a: 1, "10": "ten", "2": "two" },
    emptyObj: {},
    people: [{ name: "Ann", age: 3 }, { name: "Bo", age: 0 }],
    text: "multi\nline 'quoted' $(x)",
    uni: "日本語 😀 e\u0301"
  },
  inputs: { version: "1.2.0", lang: "ja" },
  loop: null
}

// Each is rendered natively (no fallback) and must equal Handlebars' output.
const NATIVE: ReadonlyArray<string> = [
  "{{input}}",
  "{{ input.city }} {{input.n}} {{input.flag}} {{ input.nothing }} {{input.zero}} [{{input.empty}}]",
  "{{   steps.obj   }}|{{steps.list}}|{{ steps.none }}|{{steps.emptyObj}}",
  "{{this}}",
  "{{ this.inputs.version }} {{this.input}}",
  "{{text input.city}} {{json input.city}} {{shq input.city}} {{ json steps.obj }} {{shq steps.text}} {{ text  steps.list }}",
  "{{json input.nothing}} {{shq input.n}} {{json this}}",
  "{{ steps.uni }} — ünïcödé {{ inputs.lang }}",
  "{{#if input.flag}}yes{{/if}}|{{#if input.off}}yes{{else}}no{{/if}}|{{#if input.zero}}z{{else}}not zero{{/if}}",
  "{{#if input.empty}}e{{else}}empty{{/if}} {{#if input.nothing}}n{{else}}null{{/if}} {{#if input.missing}}m{{else}}missing{{/if}}",
  "{{#if steps.none}}arr{{else}}empty array{{/if}} {{#if steps.emptyObj}}object is true{{/if}} {{#if input.tags}}tags{{/if}}",
  "{{#unless input.flag}}a{{else}}b{{/unless}}{{#unless steps.none}}c{{/unless}}{{#unless input.n}}d{{/unless}}",
  "{{#each steps.list}}[{{@index}}:{{@key}}:{{@first}}:{{@last}}={{this}}]{{/each}}",
  "{{#each steps.obj}}{{@key}}={{this}}({{@index}},{{@first}},{{@last}});{{/each}}",
  "{{#each steps.people}}{{name}} is {{age}}{{#if age}} (>0){{else}} (zero){{/if}}{{#unless @last}}, {{/unless}}{{/each}}",
  "{{#each steps.none}}x{{else}}nothing{{/each}} {{#each input.city}}x{{else}}not a list{{/each}} {{#each steps.emptyObj}}x{{else}}no keys{{/each}}",
  "{{#each steps.people}}{{#each this}}{{@key}}:{{this}}@{{@index}} {{/each}}/{{/each}}",
  "{{#each input.tags}}{{#if @first}}first {{/if}}{{this}}{{#if @last}} last{{/if}} {{/each}}",
  "{{#if input.flag}}{{#each input.tags}}{{#unless @first}},{{/unless}}{{shq this}}{{/each}}{{/if}}",
  "{{#if @index}}top-level index{{else}}no index at the top{{/if}}",
  // Standalone lines: a block tag alone on its line takes its line with it.
  "a\n{{#if input.flag}}\nyes\n{{/if}}\nb\n",
  "a\n  {{#if input.off}}  \nyes\n  {{else}}  \nno\n  {{/if}}  \nb",
  "{{#if input.flag}}\nfirst line at the start\n{{/if}}",
  "{{#each input.tags}}\n  - {{this}}\n{{/each}}\n",
  "{{#each input.tags}}\n  - {{this}}\n{{/each}}",
  "list:\r\n{{#each input.tags}}\r\n* {{this}}\r\n{{/each}}\r\nend\r\n",
  "x {{#if input.flag}}\ninline open, not standalone\n{{/if}} y",
  "\t{{#if input.flag}}\t\ntabs\n\t{{/if}}\t\n",
  "  {{#if input.flag}}\n    {{#unless input.off}}\n      nested\n    {{/unless}}\n  {{/if}}\n",
  "{{#if input.flag}}{{/if}}\n{{#if input.flag}}\n{{/if}}\n\n{{#if input.off}}\n{{else}}\n{{/if}}",
  "\n\n{{#if input.flag}}\n\n{{/if}}\n\n",
  "{{#if input.flag}} \n{{input.city}}\n {{/if}}",
  "{{input.city}}\n{{#if input.flag}}\n{{input.city}}\n{{/if}}\n{{input.city}}",
  "{{# if input.flag }}spaces{{ else }}in tags{{/ if }}",
  "} { }} {x} {{input.city}}}} ?".replace("}}}} ?", "}} }} ?"),
]

// Each goes to Handlebars (outside the subset, or the native render is unsure) and must still agree.
const FALLBACK: ReadonlyArray<string> = [
  "{{ steps.nope }}",
  "{{ input.city.x }}",
  "{{ nope.deeper }}",
  "{{text}}",
  "{{text input.city input.n}}",
  "{{json input.missing}}",
  "{{shq}}",
  "{{@index}}",
  "{{#each steps.list}}{{name}}{{/each}}",
  "{{#if input.missing.deeper}}y{{/if}}",
  "{{#if constructor}}y{{else}}n{{/if}}",
  "{{ steps.list.length }}",
  "{{{input.city}}} {{& input.city}} {{~input.city~}}",
  "{{!comment}}{{!-- {{x}} --}}ok",
  "\\{{input.city}} \\\\{{input.city}}",
  "{{input.tags.[1]}} {{@root.inputs.version}} {{#each input.tags}}{{../inputs.lang}}{{/each}}",
  "{{#with input}}{{city}}{{/with}} {{lookup input 'city'}}",
  "{{#each input.tags as |t|}}{{t}}{{/each}}",
  "{{#if input.flag includeZero=true}}y{{/if}}",
  "{{#if}}x{{/if}}",
  "{{#if input.flag}}y{{else if input.off}}z{{/if}}",
  "{{^input.flag}}inverted{{/input.flag}}",
  "{{#input.tags}}{{this}}{{/input.tags}}",
  "{{input.city\n}}",
  "{{\tinput.city}}",
  "{{ 1 }} {{ true }} {{ \"s\" }}",
  "{{input.city}}}",
  "{{#if x}}y{{/each}}",
  "{{ input",
  "a\nb {{#if x}}\n",
  "{{else}}",
  "{{#if input.flag}}a{{else}}b{{else}}c{{/if}}",
  "{{/if}}",
  "{{ }}",
  "{{a.this}}",
  "{{this.this}}",
  "{{ (text input.city) }}",
  "{{> partial}}",
  "{{{{raw}}}} {{x}} {{{{/raw}}}}",
  "{{input.0}}",
  "nul\u0000 {{input.city}}"
]

describe("native templates agree with Handlebars", () => {
  test.each(NATIVE.map((t) => [t]))("%j renders natively, as Handlebars does", async (source) => {
    expect(await differential(source, data)).toBe("native")
  })

  test.each(FALLBACK.map((t) => [t]))("%j is left to Handlebars, with the same result", async (source) => {
    expect(await differential(source, data)).not.toBe("native")
  })

  test("the release-notes templates", async () => {
    const d = { ...data, input: { summary: "Faster", breaking: true }, steps: { bullets: "- a\n- b" } }
    const source = "Release {{ inputs.version }}\n\n{{#if input.breaking}} (breaking change){{/if}}\n{{ input.summary }}"
    expect(await differential(source, d)).toBe("native")
    expect(await differential(source, { ...d, input: { summary: "s", breaking: false } })).toBe("native")
    expect(await differential("{{ steps.bullets }}", d)).toBe("native")
  })

  test("`this` and paths inside each over primitives, nulls and nested arrays", async () => {
    const d = { ...data, steps: { ...data.steps, mixed: [null, 0, "", false, [], {}, "s", 1.5] } }
    expect(await differential("{{#each steps.mixed}}<{{this}}|{{json this}}|{{#if this}}t{{else}}f{{/if}}>{{/each}}", d))
      .toBe("native")
  })

  test("odd data: a getter-free class instance, a function, a null-prototype object, a bigint", async () => {
    class Point {
      x = 1
    }
    const bare = Object.assign(Object.create(null) as object, { k: "v" })
    const odd = { ...data, steps: { point: new Point(), fn: () => "called", bare, big: 10n } }
    const verdicts = [
      await differential("{{steps.point.x}}", odd),
      await differential("{{#if steps.fn}}y{{/if}}", odd),
      await differential("{{steps.big}}", odd),
      await differential("{{#each steps.point}}{{this}}{{/each}}", odd)
    ]
    expect(verdicts).not.toContain("native")
    expect(await differential("{{steps.bare.k}}", odd)).toBe("native")
  })

  test("an unset input (a run without a PROMPT): blocks see it missing, printing it is left to Handlebars", async () => {
    const unset = { ...data, input: undefined }
    const blocks = "{{#if input}}a{{else}}b{{/if}}{{#unless input}}c{{/unless}}{{#each input}}d{{else}}e{{/each}}"
    expect(await differential(blocks, unset)).toBe("native")
    for (const printing of ["{{ input }}", "{{json input}}", "{{shq input}}", "x {{ input.city }}"]) {
      expect(await differential(printing, unset)).toBe("fell-back")
    }
  })
})

/** Every string holding `{{` in a YAML document: a file, or a fenced yaml block of a Markdown file. */
const templatesIn = (root: string): Array<{ readonly where: string; readonly template: string }> => {
  const found: Array<{ readonly where: string; readonly template: string }> = []
  const walk = (value: unknown, where: string): void => {
    if (typeof value === "string" && value.includes("{{")) found.push({ where, template: value })
    else if (Array.isArray(value)) value.forEach((v) => walk(v, where))
    else if (typeof value === "object" && value !== null) Object.values(value).forEach((v) => walk(v, where))
  }
  const yamlTexts = (file: string): Array<string> => {
    const text = fs.readFileSync(file, "utf8")
    if (file.endsWith(".md")) return [...text.matchAll(/```ya?ml\n([\s\S]*?)```/g)].map((m) => m[1]!)
    return /\.ya?ml$/.test(file) ? [text] : []
  }
  for (const file of fs.readdirSync(root, { recursive: true, encoding: "utf8" })) {
    const full = path.join(root, file)
    if (!fs.statSync(full).isFile()) continue
    for (const text of yamlTexts(full)) {
      for (const doc of parseAllDocuments(text)) {
        if (!("errors" in doc) || doc.errors.length > 0) continue
        walk(doc.toJS(), full)
      }
    }
  }
  return found
}

/** Data with a value at every path the template names (so the render has something to print). */
const filledFor = (template: string): Record<string, unknown> => {
  const out: Record<string, unknown> = { input: "in", steps: {}, inputs: {}, loop: { index: 0, item: "it" } }
  for (const match of template.matchAll(/\b((?:input|inputs|steps|loop|vars)(?:\.[A-Za-z_][\w-]*)+)/g)) {
    const parts = match[1]!.split(".")
    let node = out
    parts.forEach((part, i) => {
      if (i === parts.length - 1) {
        if (!(part in node)) node[part] = `v:${match[1]}`
      } else {
        if (typeof node[part] !== "object" || node[part] === null) node[part] = {}
        node = node[part] as Record<string, unknown>
      }
    })
  }
  return out
}

test("every template in examples/, docs/ and the test fixtures agrees; the release-notes ones are native", async () => {
  const repo = path.resolve(import.meta.dir, "../..")
  const templates = ["examples", "docs", "test/fixtures", "test/e2e"].flatMap((dir) =>
    fs.existsSync(path.join(repo, dir)) ? templatesIn(path.join(repo, dir)) : []
  )
  expect(templates.length).toBeGreaterThan(40)
  const verdicts: Array<Verdict> = []
  for (const { template } of templates) {
    verdicts.push(await differential(template, filledFor(template)))
    verdicts.push(await differential(template, data))
  }
  const counts = tally(verdicts)
  expect(counts.native).toBeGreaterThan(templates.length)
  const releaseNotes = templatesIn(path.join(repo, "examples/release-notes"))
  expect(releaseNotes.length).toBeGreaterThan(2)
  expect(releaseNotes.filter((t) => !nativeTemplate(t.template))).toEqual([])
}, 60_000)
