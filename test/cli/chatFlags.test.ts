// The root command's check for chat flags given before a subcommand (upstream's ArgumentConflict).
import { describe, expect, test } from "bun:test"
import { subcommandConflict } from "../../src/cli/chatFlags.ts"

const subs = ["run", "test", "compare", "sessions"]

describe("subcommandConflict", () => {
  test("a root-only flag before a subcommand names the flag as upstream does", () => {
    expect(subcommandConflict(["--model", "m", "run", "wf.yml"], subs))
      .toBe("the argument '--model <MODEL>' cannot be used with subcommand 'run'")
    expect(subcommandConflict(["--json", "test", "t.yml"], subs))
      .toBe("the argument '--json' cannot be used with subcommand 'test'")
    expect(subcommandConflict(["-o", "out", "run", "wf.yml"], subs))
      .toBe("the argument '--output <PATH>' cannot be used with subcommand 'run'")
    expect(subcommandConflict(["--temperature=1", "compare"], subs))
      .toBe("the argument '--temperature <TEMPERATURE>' cannot be used with subcommand 'compare'")
  })

  test("no conflict: a PROMPT (even one after flag values named like subcommands), global flags, flags after the subcommand", () => {
    expect(subcommandConflict(["--model", "run", "hello"], subs)).toBeUndefined()
    expect(subcommandConflict(["--model", "m", "hello", "run"], subs)).toBeUndefined()
    expect(subcommandConflict(["-v", "--config", "c.yml", "--cache", "run", "wf.yml"], subs)).toBeUndefined()
    expect(subcommandConflict(["run", "wf.yml", "--json"], subs)).toBeUndefined()
    expect(subcommandConflict(["compare", "--model", "a", "--model", "b"], subs)).toBeUndefined()
    expect(subcommandConflict(["--", "--model", "run"], subs)).toBeUndefined()
  })
})
