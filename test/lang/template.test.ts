import { beforeAll, describe, expect, test } from "bun:test"
import { Effect, Exit } from "effect"
import { renderChain } from "../../src/core/errors.ts"
import { TemplateError } from "../../src/lang/languageErrors.ts"
import type { Json } from "../../src/core/json.ts"
import {
  checkTemplateSyntax,
  loadTemplateEngine,
  renderTemplate,
  renderTemplateParts,
  renderTemplateWith,
  type TemplateData
} from "../../src/lang/template.ts"

// The synchronous syntax check needs Handlebars loaded (rendering loads it itself).
beforeAll(() => Effect.runPromise(loadTemplateEngine))

const data = (over: Partial<TemplateData> = {}): TemplateData => ({
  input: { city: "Tokyo", population: 37400000, tags: ["a", "b"], html: "<b>&</b>", nothing: null, flag: true },
  steps: { extract: { city: "Osaka", ok: true } },
  inputs: { lang: "ja" },
  loop: null,
  ...over
})

const render = (source: string, d: TemplateData = data()) => Effect.runPromise(renderTemplate(source, d))

/** The rendered failure chain (`failed to render template: "...": reason`). */
const failure = async (source: string, d: Readonly<Record<string, unknown>> = data()): Promise<string> => {
  const exit = await Effect.runPromiseExit(renderTemplateWith(source, d))
  if (!Exit.isFailure(exit)) throw new Error(`expected ${JSON.stringify(source)} to fail`)
  const error = exit.cause.reasons.find((r) => r._tag === "Fail")
  if (error === undefined || error._tag !== "Fail") throw new Error("no typed failure")
  expect(error.error).toBeInstanceOf(TemplateError)
  return renderChain(error.error)
}

describe("bare references print the text form", () => {
  test("strings as they are, numbers, booleans and null as JSON", async () => {
    expect(await render("city: {{ input.city }} ({{input.population}}) {{input.flag}} {{input.nothing}}")).toBe(
      "city: Tokyo (37400000) true null"
    )
  })

  test("objects and arrays as compact JSON, never [object Object]", async () => {
    expect(await render("{{ input.tags }} {{steps.extract}}")).toBe("[\"a\",\"b\"] {\"city\":\"Osaka\",\"ok\":true}")
    expect(await render("{{input}}", data({ input: { b: 2, a: 1 } }))).toBe("{\"b\":2,\"a\":1}")
  })

  test("no HTML escaping", async () => {
    expect(await render("{{input.html}} & {{{input.html}}}")).toBe("<b>&</b> & <b>&</b>")
  })

  test("triple-stash, {{& }} and whitespace control also print the text form", async () => {
    expect(await render("{{{input.tags}}}|{{& steps.extract}}|  {{~input.tags~}}  |")).toBe(
      "[\"a\",\"b\"]|{\"city\":\"Osaka\",\"ok\":true}|[\"a\",\"b\"]|"
    )
  })

  test("inputs, steps, loop and input are all visible", async () => {
    const d = data({ input: "in", loop: { index: 0, item: "x" }, steps: { a: 1 } })
    expect(await render("{{ inputs.lang }}/{{ steps.a }}/{{ loop.index }}/{{ loop.item }}/{{ input }}", d)).toBe(
      "ja/1/0/x/in"
    )
  })

  test("array indexes, @root, this. and ../ paths", async () => {
    expect(await render("{{input.tags.[1]}} {{@root.inputs.lang}} {{this.input.city}}")).toBe("b ja Tokyo")
    expect(await render("{{#each input.tags}}{{../inputs.lang}}{{/each}}")).toBe("jaja")
  })

  test("escaped mustaches, comments and text without mustaches are left alone", async () => {
    expect(await render("\\{{input.city}} {{input.city}}")).toBe("{{input.city}} Tokyo")
    expect(await render("{{!-- {{input.nope}} --}}ok{{! note }}")).toBe("ok")
    expect(await render("no placeholder here")).toBe("no placeholder here")
  })
})

describe("the json helper", () => {
  test("always prints JSON: strings come out quoted", async () => {
    expect(await render("{{json input.city}} {{ json input.tags }} {{json input.nothing}}")).toBe(
      "\"Tokyo\" [\"a\",\"b\"] null"
    )
    expect(await render("{{json input.html}}")).toBe("\"<b>&</b>\"")
  })

  test("works on a sub-expression", async () => {
    expect(await render("{{json (lookup input 'tags')}}")).toBe("[\"a\",\"b\"]")
  })
})

describe("the shq helper", () => {
  const sh = (script: string, args: ReadonlyArray<string> = []) => {
    const r = Bun.spawnSync(["sh", "-c", script, "sh", ...args], { stdout: "pipe", stderr: "pipe" })
    return r.stdout.toString()
  }

  test("quotes the text form in single quotes; a quote is closed, escaped and reopened", async () => {
    expect(await render("{{shq input.city}}")).toBe("'Tokyo'")
    expect(await render("{{shq input.population}} {{ shq input.tags }} {{shq input.nothing}}")).toBe("'37400000' '[\"a\",\"b\"]' 'null'")
    expect(await render("{{shq input}}", data({ input: "it's" }))).toBe("'it'\\''s'")
    expect(await render("{{shq input}}", data({ input: "" }))).toBe("''")
  })

  test("whatever the value holds, sh reads it back as one literal word", async () => {
    const hostile = [
      "'; touch pwned; '",
      "$(id) `id` ${HOME} $HOME",
      "a\nb\\\" \\' ' '' \t*?[x]~ # ; && || | > < &",
      "-n",
      "\u00e9\u4e16 \u0001"
    ]
    for (const value of hostile) {
      const script = await render("printf %s {{shq input}}", data({ input: value }))
      expect(sh(script)).toBe(value)
    }
  })

  test("is strict about its argument and takes exactly one", async () => {
    expect(await failure("{{shq steps.nope}}")).toContain(": \"steps.nope\" is not defined")
    expect(await failure("{{shq input.city input.city}}")).toContain(": {{shq}} takes exactly one argument, got 2")
  })

  test("works on a sub-expression", async () => {
    expect(await render("{{shq (json input.city)}}")).toBe("'\"Tokyo\"'")
  })
})

describe("renderTemplateParts", () => {
  const parts = (source: string, d: TemplateData = data()) => Effect.runPromise(renderTemplateParts(source, d))

  test("returns what each {{…}} printed, apart from the template's own text", async () => {
    expect(await parts("out/{{ input.city }}-{{json input.flag}}.txt")).toEqual({
      text: "out/Tokyo-true.txt",
      printed: ["Tokyo", "true"]
    })
    expect(await parts("plain/path.txt")).toEqual({ text: "plain/path.txt", printed: [] })
  })

  test("sees values inside blocks and from any helper; block bodies' own text is not a value", async () => {
    expect(await parts("{{#each input.tags}}d/{{this}}{{/each}}{{lookup input 'city'}}{{#if input.flag}}/x{{/if}}")).toEqual({
      text: "d/ad/bTokyo/x",
      printed: ["a", "b", "Tokyo"]
    })
    expect(await parts("{{input.nothing}}|{{lookup input 'absent'}}")).toEqual({ text: "null|", printed: ["null", ""] })
  })

  test("prints exactly what renderTemplate prints, and fails the same way", async () => {
    const source = "a/{{ input.city }}/{{{input.tags}}}/{{~ input.flag ~}} /{{json input.html}}"
    expect((await parts(source)).text).toBe(await render(source))
    const exit = await Effect.runPromiseExit(renderTemplateParts("{{ steps.nope }}", data()))
    expect(Exit.isFailure(exit)).toBe(true)
  })
})

describe("built-in helpers", () => {
  test("#each over arrays and objects, with @index, @key, this and block params", async () => {
    expect(await render("{{#each input.tags}}[{{this}}:{{@index}}]{{/each}}")).toBe("[a:0][b:1]")
    expect(await render("{{#each steps.extract}}{{@key}}={{this}};{{/each}}")).toBe("city=Osaka;ok=true;")
    expect(await render("{{#each input.tags as |tag i|}}{{i}}{{tag}} {{/each}}")).toBe("0a 1b ")
  })

  test("#if / #unless / else, #with and lookup", async () => {
    expect(await render("{{#if input.flag}}Y{{else}}N{{/if}}{{#unless input.nothing}}U{{/unless}}")).toBe("YU")
    expect(await render("{{#with steps.extract}}{{city}}{{/with}}")).toBe("Osaka")
    expect(await render("{{lookup input.tags 0}}")).toBe("a")
  })

  test("block helpers treat a missing value as empty (how optional fields are tested)", async () => {
    expect(await render("{{#if input.optional}}set{{else}}unset{{/if}}")).toBe("unset")
    expect(await render("{{#each steps.nope}}x{{/each}}-")).toBe("-")
  })
})

describe("strict mode", () => {
  test("a missing field fails and names the path", async () => {
    expect(await failure("{{ input.nope }}")).toBe(
      "failed to render template: \"{{ input.nope }}\": \"input.nope\" is not defined at line 1, column 4"
    )
  })

  test("a missing top-level variable fails", async () => {
    expect(await failure("{{nope}}")).toBe("failed to render template: \"{{nope}}\": \"nope\" is not defined at line 1, column 3")
  })

  test("an unrecorded step id fails", async () => {
    expect(await failure("{{ steps.later }}")).toBe(
      "failed to render template: \"{{ steps.later }}\": \"steps.later\" is not defined at line 1, column 4"
    )
  })

  test("several missing levels, and a field of null, fail the same way", async () => {
    expect(await failure("{{input.a.b.c}}")).toContain(": \"input.a.b.c\" is not defined")
    expect(await failure("{{input.nothing.x}}")).toContain(": \"input.nothing.x\" is not defined")
    expect(await failure("{{loop.index}}")).toContain(": \"loop.index\" is not defined")
  })

  test("text and json are strict about their argument, including missing fields in it", async () => {
    expect(await failure("{{text input.a.b}}")).toBe(
      "failed to render template: \"{{text input.a.b}}\": \"input.a.b\" is not defined at line 1, column 8"
    )
    expect(await failure("{{json steps.nope}}")).toContain(": \"steps.nope\" is not defined")
    expect(await failure("{{json (lookup input 'nope')}}")).toBe(
      "failed to render template: \"{{json (lookup input 'nope')}}\": the argument of {{json}} is not defined at line 1, column 1"
    )
  })

  test("text and json take exactly one argument", async () => {
    expect(await failure("{{json input.city input.city}}")).toContain(": {{json}} takes exactly one argument, got 2")
    expect(await failure("{{#with input}}{{text}}{{/with}}")).toContain(": \"text\" is not defined")
  })

  test("inherited properties are not data", async () => {
    expect(await failure("{{input.city.constructor}}")).toContain(": \"input.city.constructor\" is not defined")
  })

  test("the location is that of the source as written (multi-line)", async () => {
    expect(await failure("first line\n  {{ nope }}")).toBe(
      "failed to render template: \"first line\\n  {{ nope }}\": \"nope\" is not defined at line 2, column 6"
    )
  })

  test("other render errors keep Handlebars' reason", async () => {
    expect(await failure("{{> partial}}")).toBe("failed to render template: \"{{> partial}}\": The partial partial could not be found")
  })
})

describe("renderTemplateWith", () => {
  test("renders any data shape (named prompts see vars, not inputs)", async () => {
    const d = { input: "x", steps: {}, vars: { lang: "英語" } }
    expect(await Effect.runPromise(renderTemplateWith("{{ vars.lang }}/{{input}}", d))).toBe("英語/x")
    expect(await failure("{{ inputs.lang }}", d)).toContain(": \"inputs.lang\" is not defined")
  })
})

describe("syntax checks", () => {
  test("valid templates, including references not yet known, pass", () => {
    expect(checkTemplateSyntax("summarize: {{ input.city }}")).toBeUndefined()
    expect(checkTemplateSyntax("{{ nope }}")).toBeUndefined()
    expect(checkTemplateSyntax("plain text")).toBeUndefined()
    expect(checkTemplateSyntax("{{#each input}}{{this}}{{else}}none{{/each}}")).toBeUndefined()
  })

  test("a parse error gives one line with the template and Handlebars' reason", () => {
    expect(checkTemplateSyntax("{{ input")).toBe(
      "failed to parse template: \"{{ input\": Parse error on line 1: Expecting 'ID', 'STRING', 'NUMBER', 'BOOLEAN', 'UNDEFINED', 'NULL', 'DATA', got 'INVALID'"
    )
    expect(checkTemplateSyntax("{{#if x}}y{{/each}}")).toBe(
      "failed to parse template: \"{{#if x}}y{{/each}}\": if doesn't match each - 1:3"
    )
  })

  test("multi-line templates are quoted on one line", () => {
    // The block is never closed: the error is at the end, line 3.
    expect(checkTemplateSyntax("a\nb {{#if x}}\n")).toBe(
      "failed to parse template: \"a\\nb {{#if x}}\\n\": Parse error on line 3: Expecting 'OPEN_INVERSE_CHAIN', 'INVERSE', 'OPEN_ENDBLOCK', got 'EOF'"
    )
  })

  test("rendering a template that does not parse fails with the parse message", async () => {
    expect(await failure("{{ input")).toBe(
      "failed to parse template: \"{{ input\": Parse error on line 1: Expecting 'ID', 'STRING', 'NUMBER', 'BOOLEAN', 'UNDEFINED', 'NULL', 'DATA', got 'INVALID'"
    )
  })
})

describe("the compiled-template cache", () => {
  test("the same text rendered against different data gives each its own result", async () => {
    const source = "city: {{ input.city }}"
    expect(await render(source, data({ input: { city: "Tokyo" } }))).toBe("city: Tokyo")
    expect(await render(source, data({ input: { city: "Kyoto" } }))).toBe("city: Kyoto")
    expect(await failure(source, data({ input: {} }))).toContain("\"input.city\" is not defined")
  })

  test("values of every JSON type render through the same template", async () => {
    const values: ReadonlyArray<readonly [Json, string]> = [
      ["s", "s"],
      [1.5, "1.5"],
      [false, "false"],
      [null, "null"],
      [[1, [2]], "[1,[2]]"],
      [{ k: { v: "w" } }, "{\"k\":{\"v\":\"w\"}}"]
    ]
    for (const [input, expected] of values) expect(await render("{{input}}", data({ input }))).toBe(expected)
  })
})
