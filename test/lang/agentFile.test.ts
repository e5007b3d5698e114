import { expect, test } from "bun:test"
import { Effect, Exit } from "effect"
import { exitCodeOf, renderChain } from "../../src/core/errors.ts"
import { parseAgentText } from "../../src/lang/agentFile.ts"

const parse = (text: string) => Effect.runSyncExit(parseAgentText(text, "/agents/city.md"))
const error = (text: string) => {
  const exit = parse(text)
  if (Exit.isSuccess(exit)) throw new Error("expected failure")
  const r = exit.cause.reasons[0]
  if (r?._tag !== "Fail") throw new Error(String(exit.cause))
  expect({ tag: r.error._tag, code: exitCodeOf(r.error) }).toEqual({ tag: "WorkflowLoadError", code: 3 })
  return renderChain(r.error)
}

test("frontmatter and body", () => {
  const exit = parse("---\nname: city-fact\nmodel: local\nreasoning_effort: medium\ntemperature: 0.7\n---\nExtract the city.\n{{ input.text }}\n")
  expect(exit).toEqual(Exit.succeed({
    system: "Extract the city.\n{{ input.text }}",
    dir: "/agents",
    name: "city-fact",
    model: "local",
    reasoning_effort: "medium",
    temperature: 0.7
  }))
})

test("schemas: inline, or {file} relative to the agent file", () => {
  const exit = parse("---\ninput_schema: {file: schemas/in.json}\noutput_schema:\n  type: object\n  required: [city]\nschema_name: city_fact\n---\nbody\n")
  if (Exit.isFailure(exit)) throw new Error(String(exit.cause))
  expect(exit.value.inputSchema).toEqual({ source: { kind: "file", path: "/agents/schemas/in.json" } })
  expect(exit.value.outputSchema).toEqual({ source: { kind: "inline", schema: { type: "object", required: ["city"] } } })
  expect(exit.value.schemaName).toBe("city_fact")
})

test("bad files give one-line reasons", () => {
  expect(error("no frontmatter\n")).toBe(
    "failed to parse agent file '/agents/city.md': agent file must start with a '---' frontmatter delimiter"
  )
  expect(error("---\nname: x\nbody\n")).toBe(
    "failed to parse agent file '/agents/city.md': agent file frontmatter has no closing '---' delimiter"
  )
  expect(error("---\ntemperature: 2.5\n---\nb\n")).toBe(
    "failed to parse agent file '/agents/city.md': 'temperature' must be between 0 and 2, got 2.5"
  )
  expect(error("---\nstructured_output: true\n---\nb\n")).toStartWith(
    "failed to parse agent file '/agents/city.md': unknown field 'structured_output'; agents accept: name, description,"
  )
  expect(error("---\nschema_name: x\n---\nb\n")).toBe(
    "failed to parse agent file '/agents/city.md': 'schema_name' requires 'output_schema'"
  )
})
