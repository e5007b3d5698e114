// The references lint checks: `inputs.x`/`steps.x` in templates (from Handlebars' parse tree) and
// `$inputs.x`/`$steps.x` in jq (a scanner that knows strings, interpolation and comments).
import { describe, expect, test } from "bun:test"
import { jqReferences, templateReferences } from "../../src/lint/refs.ts"

const names = (refs: ReadonlyArray<{ root: string; name: string }>) => refs.map((r) => `${r.root}.${r.name}`)

describe("templateReferences", () => {
  test("bare paths, helper arguments, sub-expressions and hash values", () => {
    expect(
      names(templateReferences("{{inputs.lang}} {{json steps.a}} {{text (lookup steps.b 'x')}} {{#if inputs.c}}y{{/if}}"))
    ).toEqual(["inputs.lang", "steps.a", "steps.b", "inputs.c"])
  })

  test("each name once, in order of appearance; the text as written is kept", () => {
    const refs = templateReferences("{{inputs.a}} {{inputs.a.b}} {{inputs.[my-name]}}")
    expect(refs.map((r) => [r.name, r.text])).toEqual([["a", "inputs.a"], ["my-name", "inputs.[my-name]"]])
  })

  test("inside #each/#with the context is the item: only ../ and @root reach the root", () => {
    const source = "{{#each inputs.items as |it|}}{{it.x}}{{inputs.nested}}{{../inputs.up}}{{@root.steps.r}}" +
      "{{else}}{{inputs.empty}}{{/each}}{{#with steps.w}}{{steps.inner}}{{/with}}"
    expect(names(templateReferences(source))).toEqual(["inputs.items", "inputs.up", "steps.r", "inputs.empty", "steps.w"])
  })

  test("#if does not change the context", () => {
    expect(names(templateReferences("{{#if input}}{{inputs.x}}{{else}}{{steps.y}}{{/if}}"))).toEqual([
      "inputs.x",
      "steps.y"
    ])
  })

  test("comments, raw text and the whole object are not references", () => {
    expect(names(templateReferences("{{! inputs.a }} {{!-- steps.b --}} inputs.c {{inputs}} {{steps}} \\{{inputs.d}}"))).toEqual([])
  })

  test("a template that does not parse has none (the loader reports it)", () => {
    expect(templateReferences("{{inputs.a")).toEqual([])
  })
})

describe("jqReferences", () => {
  test(".name, .\"name\", [\"name\"] and .[\"name\"]", () => {
    const refs = jqReferences(`$inputs.lang + $inputs."a b" + $steps["my-step"] + $steps.["x"]`)
    expect(refs.map((r) => [r.root, r.name, r.text])).toEqual([
      ["inputs", "lang", "$inputs.lang"],
      ["inputs", "a b", `$inputs."a b"`],
      ["steps", "my-step", `$steps["my-step"]`],
      ["steps", "x", `$steps.["x"]`]
    ])
  })

  test("string literals are skipped, their interpolations are not", () => {
    expect(names(jqReferences(`"$inputs.no \\($inputs.yes) \\"$steps.no\\"" + $steps.after`))).toEqual([
      "inputs.yes",
      "steps.after"
    ])
  })

  test("nested interpolation and parentheses inside it", () => {
    expect(names(jqReferences(`"\\(($inputs.a | tostring) + "\\($steps.b)")" | $inputs.c`))).toEqual([
      "inputs.a",
      "steps.b",
      "inputs.c"
    ])
  })

  test("comments run to the end of the line", () => {
    expect(names(jqReferences("$inputs.a # $inputs.b\n| $steps.c"))).toEqual(["inputs.a", "steps.c"])
  })

  test("other variables, bare roots and dynamic keys are not references", () => {
    expect(names(jqReferences(`$inputsx.a | $input.b | $inputs | $steps[.k] | $steps["\\(.k)"] | . as $steps2 | $steps2.z`)))
      .toEqual([])
  })
})
