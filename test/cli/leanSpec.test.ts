// The lean reader's flags (src/cli/leanSpec.generated.json) are generated from the command tree
// (scripts/gen-lean-spec.ts): regenerating them must change nothing, or a flag of `lait run` or
// `lait eval` changed without the file — and the lean path would read the old one.
import { expect, test } from "bun:test"
import * as fs from "node:fs"
import { generatedPath, leanSpec, leanSpecSource } from "../../scripts/gen-lean-spec.ts"
import { LEAN_SPEC } from "../../src/cli/leanSpec.ts"

test("regenerating src/cli/leanSpec.generated.json from the command tree changes nothing", () => {
  expect(fs.readFileSync(generatedPath, "utf8")).toBe(leanSpecSource())
})

test("the generated spec holds the tree's flags, with effect/cli's values for absent ones", () => {
  expect(LEAN_SPEC).toEqual(leanSpec())
  const run = LEAN_SPEC.commands.find((c) => c.name === "run")!
  const evalSpec = LEAN_SPEC.commands.find((c) => c.name === "eval")!
  expect(run.arguments).toEqual([{ key: "file", optional: false }, { key: "prompt", optional: true }])
  expect(run.flags.find((f) => f.name === "output")).toEqual({
    key: "output", name: "output", aliases: ["o"], type: "string", option: true
  })
  expect(evalSpec.flags.find((f) => f.name === "jobs")).toMatchObject({ aliases: ["j"], type: "integer", default: 8 })
  expect(evalSpec.flags.find((f) => f.name === "format")).toMatchObject({
    choices: ["text", "json", "junit", "html", "github", "markdown"]
  })
  expect(evalSpec.subcommands).toEqual(["merge"])
})
