// The command line of an `exec:` target split as a shell splits words, without expanding anything.
import { expect, test } from "bun:test"
import { splitCommandLine } from "../../src/proxy/execTarget.ts"

test("words, quotes and backslashes as a shell reads them", () => {
  expect(splitCommandLine("node app.mjs --fast")).toEqual(["node", "app.mjs", "--fast"])
  expect(splitCommandLine("  python   -m  triage\t")).toEqual(["python", "-m", "triage"])
  expect(splitCommandLine(`sh -c 'echo "$HOME" $1'`)).toEqual(["sh", "-c", `echo "$HOME" $1`])
  expect(splitCommandLine(`app "a \\"quoted\\" word" b\\ c`)).toEqual(["app", `a "quoted" word`, "b c"])
  expect(splitCommandLine(`app ''`)).toEqual(["app", ""])
  expect(splitCommandLine(`pre'fix'"ed" *.txt $VAR`)).toEqual(["prefixed", "*.txt", "$VAR"])
})

test("an unterminated quote is refused", () => {
  expect(splitCommandLine("node 'app.mjs")).toBeUndefined()
  expect(splitCommandLine(`node "app.mjs`)).toBeUndefined()
})
