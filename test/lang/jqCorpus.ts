// jq's own test corpus (test/fixtures/jq/jq.test, from jqlang/jq) read the way jq's `--run-tests`
// reads it (src/jq_test.c): blank lines and lines starting with `#` separate cases; a case is a program
// line, an input line and the expected output lines, or, after a `%%FAIL` line, a program that must not
// compile followed by the lines its error message starts with (`%%FAIL IGNORE MSG`: any message).
import * as fs from "node:fs"

export type Case =
  | {
    readonly kind: "run"
    readonly line: number
    readonly program: string
    readonly input: string
    readonly expected: ReadonlyArray<string>
  }
  | { readonly kind: "fail"; readonly line: number; readonly program: string; readonly message?: string }

const separator = (line: string): boolean => /^[ \t]*(?:#|$)/.test(line)

export const readCorpus = (file: string): ReadonlyArray<Case> => {
  const lines = fs.readFileSync(file, "utf8").split("\n")
  if (lines.at(-1) === "") lines.pop()
  const cases: Array<Case> = []
  let at = 0
  // The lines up to the next separator (or the end), from `at` on.
  const block = (): Array<string> => {
    const out: Array<string> = []
    while (at < lines.length && !separator(lines[at]!)) out.push(lines[at++]!)
    return out
  }
  let mustFail: "message" | "any" | undefined
  while (at < lines.length) {
    const text = lines[at]!
    if (separator(text)) {
      at++
      continue
    }
    if (text === "%%FAIL" || text === "%%FAIL IGNORE MSG") {
      mustFail = text === "%%FAIL" ? "message" : "any"
      at++
      continue
    }
    const line = at + 1
    at++
    if (mustFail !== undefined) {
      const message = block()
      cases.push(mustFail === "message" ? { kind: "fail", line, program: text, message: message.join("\n") } : {
        kind: "fail",
        line,
        program: text
      })
      mustFail = undefined
      continue
    }
    const input = lines[at++] ?? ""
    cases.push({ kind: "run", line, program: text, input, expected: block() })
  }
  return cases
}
