import { afterAll, describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as path from "node:path"
import { Effect } from "effect"
import type { ShellTool } from "../../src/config/schema.ts"
import { callShellTool, formatArgv, previewShellTool, shellToolEntries } from "../../src/tools/shell.ts"
import { failureOf, tempDir } from "./helpers.ts"

const dir = tempDir("shell")
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

const tool = (command: ReadonlyArray<string>, extra: Partial<ShellTool> = {}): ShellTool => ({
  command,
  parameters: { type: "object", properties: {} },
  timeout: 30,
  ...extra
})

const env = { ...process.env, SHELL_TOOL_HOME: dir }
const call = (t: ShellTool, args: string) => Effect.runPromise(callShellTool("t", t, args, { env }))

describe("shell tools", () => {
  test("argv elements are templates over the arguments; no shell is involved", async () => {
    expect(await call(tool(["echo", "{{input.text}}", "{{json input.n}}"]), `{"text":"a; rm -rf /","n":[1,2]}`))
      .toBe("a; rm -rf / [1,2]")
    expect(await call(tool(["printf", "%s", "{{input}}"]), `{"a":{"b":1}}`)).toBe(`{"a":{"b":1}}`)
  })

  test("stdout loses one trailing newline; a non-zero exit is returned to the model with stderr", async () => {
    expect(await call(tool(["printf", "x\\n\\n"]), "")).toBe("x\n")
    expect(await call(tool(["sh", "-c", "echo oops >&2; exit 3"]), "{}")).toBe(
      "tool command failed: command 'sh' exited with exit status: 3: oops"
    )
  })

  test("parameters are validated before anything runs; the failure goes back to the model", async () => {
    const marker = path.join(dir, "ran")
    const strict = tool(["touch", marker], {
      parameters: {
        type: "object",
        properties: { mode: { type: "string", enum: ["safe", "check"] } },
        required: ["mode"]
      }
    })
    expect(await call(strict, "{}")).toBe("tool arguments failed validation: arguments is missing required field(s): mode")
    expect(await call(strict, `{"mode":1}`)).toBe(
      "tool arguments failed validation: arguments.mode must be of type string (got number)"
    )
    expect(await call(strict, `{"mode":"unsafe"}`)).toBe(
      `tool arguments failed validation: arguments.mode must be one of ["safe","check"] (got "unsafe")`
    )
    expect(fs.existsSync(marker)).toBe(false)
    expect(await call(strict, `{"mode":"safe"}`)).toBe("")
    expect(fs.existsSync(marker)).toBe(true)
  })

  test("a template that cannot render is returned to the model", async () => {
    expect(await call(tool(["echo", "{{input.text}}"]), "{}")).toBe(
      `tool command failed: failed to render template: "{{input.text}}": "input.text" is not defined at line 1, column 3`
    )
  })

  test("arguments that are not a JSON object stop the run; blank and null mean {}", async () => {
    expect(await call(tool(["echo", "ok"]), "null")).toBe("ok")
    expect(await call(tool(["echo", "ok"]), " ")).toBe("ok")
    expect((await failureOf(callShellTool("t", tool(["echo"]), "[1]", { env }))).message).toBe(
      "tool call arguments must be a JSON object, got [1]"
    )
    expect((await failureOf(callShellTool("t", tool(["echo"]), "{no", { env }))).message).toMatch(
      /^tool call arguments must be a JSON object: /
    )
  })

  test("timeout: the command is stopped and the model is told", async () => {
    // Left to finish, the command would take 300 s, far past this test's own 60 s bound.
    expect(await call(tool(["sleep", "300"], { timeout: 1 }), "{}")).toBe(`tool command failed: command timed out after 1s: ["sleep", "300"]`)
  }, 60_000)

  test("env is an allowlist with ${VAR} values; cwd is expanded too", async () => {
    const out = await call(
      tool(["sh", "-c", `echo "$ONLY|$HOME|$OPENAI_API_KEY|$(pwd)"`], { env: { ONLY: "v=${SHELL_TOOL_HOME}" }, cwd: "${SHELL_TOOL_HOME}" }),
      "{}"
    )
    expect(out).toBe(`v=${dir}|||${dir}`)
    expect(
      (await failureOf(callShellTool("t", tool(["true"], { env: { A: "${LAIT_TEST_UNSET_X}" } }), "{}", { env }))).message
    ).toBe("shell tool 't': 'env': environment variable 'LAIT_TEST_UNSET_X' referenced by '${LAIT_TEST_UNSET_X}' is not set")
  })

  test("entries: tool__<name>, description and parameters sent as configured", async () => {
    const registry = { echo: tool(["echo"], { description: "Echo it" }), bare: tool(["true"]) }
    const entries = await Effect.runPromise(shellToolEntries(["echo", "bare"], registry, { env }))
    expect(entries.map((e) => e.definition)).toEqual([
      { type: "function", function: { name: "tool__echo", description: "Echo it", parameters: { type: "object", properties: {} } } },
      { type: "function", function: { name: "tool__bare", parameters: { type: "object", properties: {} } } }
    ])
    expect((await failureOf(shellToolEntries(["nope"], registry, { env }))).message).toBe(
      "unknown tool 'nope'; define it under 'tools:' in lait.config.yml"
    )
    expect((await failureOf(shellToolEntries(["echo", "echo"], registry, { env }))).message).toBe(
      "duplicate tool name 'echo' in 'tools:'"
    )
  })

  test("the approval preview shows the rendered argv, or nothing when it cannot render", async () => {
    expect(await Effect.runPromise(previewShellTool(tool(["echo", "{{input.text}}"]), `{"text":"hi there"}`))).toBe(
      `["echo", "hi there"]`
    )
    expect(await Effect.runPromise(previewShellTool(tool(["echo", "{{input.text}}"]), "{}"))).toBeUndefined()
    expect(formatArgv(["a\"b", "c"])).toBe(`["a\\"b", "c"]`)
  })
})
