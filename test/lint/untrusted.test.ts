// Which argvs run a `-c` script (and which argument is the script), which templates in it are
// unquoted, and which `write:` path templates are warned about (src/lint/untrusted.ts).
import { describe, expect, test } from "bun:test"
import { shellScriptIndex, shellTemplate, writePathTemplate } from "../../src/lint/untrusted.ts"

describe("shellScriptIndex", () => {
  test.each([
    [["sh", "-c", "S"], 2],
    [["bash", "-c", "S", "name", "arg"], 2],
    [["/bin/sh", "-e", "-c", "S"], 3],
    [["bash", "-euc", "S"], 2],
    [["bash", "-o", "pipefail", "-c", "S"], 4],
    [["bash", "-eo", "pipefail", "-c", "S"], 4],
    [["bash", "--norc", "-c", "S"], 3],
    [["sh", "-c", "--", "S"], 3],
    [["zsh", "-c", "S"], 2],
    [["env", "LC_ALL=C", "-i", "dash", "-c", "S"], 5],
    [["/usr/bin/env", "bash", "-c", "S"], 3]
  ] as const)("%j runs its script at %d", (argv, index) => {
    expect(shellScriptIndex(argv)).toBe(index)
    expect(argv[index]).toBe("S")
  })

  test.each([
    [["sh", "script.sh", "-c"]],
    [["sh", "-e", "script.sh"]],
    [["python3", "-c", "print(1)"]],
    [["echo", "-c", "x"]],
    [["sh", "-c"]],
    [["shellcheck", "-c", "x"]],
    [["env"]]
  ] as const)("%j runs no -c script", (argv) => {
    expect(shellScriptIndex(argv)).toBeUndefined()
  })
})

describe("shellTemplate", () => {
  test("the first template not wrapped in shq, as written, with its quoted form", () => {
    expect(shellTemplate(["sh", "-c", "a {{ shq steps.x }} b {{steps.y}} {{ steps.z }}"])).toEqual({
      index: 2,
      shell: "sh",
      template: "{{steps.y}}",
      quoted: "{{ shq steps.y }}"
    })
    expect(shellTemplate(["bash", "-c", "echo {{{ input }}} {{json steps.y}}"])?.quoted).toBe("{{ shq input }}")
    expect(shellTemplate(["bash", "-c", "echo {{json steps.y}}"])?.quoted).toBe("{{ shq (json steps.y) }}")
  })

  test("templates inside blocks count; comments, escaped mustaches and block tags themselves do not", () => {
    expect(shellTemplate(["sh", "-c", "{{#if steps.a}}echo {{ shq steps.a }}{{/if}} {{! {{steps.b}} }} \\{{steps.c}}"]))
      .toBeUndefined()
    expect(shellTemplate(["sh", "-c", "{{#each steps.list}}echo {{this}};{{/each}}"])?.template).toBe("{{this}}")
  })

  test("values passed after the script, argvs without a shell, and scripts that do not parse are left alone", () => {
    expect(shellTemplate(["sh", "-c", 'echo "$1"', "sh", "{{ steps.x }}"])).toBeUndefined()
    expect(shellTemplate(["printf", "%s", "{{ steps.x }}"])).toBeUndefined()
    expect(shellTemplate(["sh", "-c", "echo {{ steps.x "])).toBeUndefined()
  })
})

describe("writePathTemplate", () => {
  test("the first template that prints a value; loop counters and plain paths are fine", () => {
    expect(writePathTemplate("out/{{ loop.index }}-{{ steps.name }}.txt")).toBe("{{ steps.name }}")
    expect(writePathTemplate("{{ inputs.out }}")).toBe("{{ inputs.out }}")
    expect(writePathTemplate("out/{{loop.index}}.txt")).toBeUndefined()
    expect(writePathTemplate("{{#each x}}{{@index}}{{/each}}.txt")).toBeUndefined()
    expect(writePathTemplate("out/plain.txt")).toBeUndefined()
  })
})
