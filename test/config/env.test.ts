import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"
import { afterAll, describe, expect, test } from "bun:test"
import { Effect, Result } from "effect"
import { type Env, expandList, expandMap, expandVars, expandVarsResult, parseDotenv } from "../../src/config/env.ts"
import { loadDotenv } from "../../src/config/dotenv.ts"
import { exitCodeOf, LaitError, renderChain } from "../../src/core/errors.ts"
import { FileLoader } from "../../src/platform/FileLoader.ts"

const dirs: Array<string> = []
afterAll(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })))
const tempDir = () => {
  const d = fs.realpathSync(fs.mkdtempSync(nodePath.join(os.tmpdir(), "lait-env-")))
  dirs.push(d)
  return d
}

const ok = <A, E>(r: Result.Result<A, E>): A => {
  if (Result.isFailure(r)) throw new Error(`expected success, got ${renderChain(r.failure)}`)
  return r.success
}
const err = <A, E>(r: Result.Result<A, E>): E => {
  if (Result.isSuccess(r)) throw new Error(`expected failure, got ${JSON.stringify(r.success)}`)
  return r.failure
}

describe("expandVars", () => {
  const env: Env = { HOST: "api.example.com", SCHEME: "https", EMPTY: "", KEY: "sk-1" }

  test("leaves a value without placeholders unchanged", () => {
    expect(ok(expandVarsResult("plain-value", env))).toBe("plain-value")
  })

  test("expands whole, embedded and repeated placeholders", () => {
    expect(ok(expandVarsResult("${KEY}", env))).toBe("sk-1")
    expect(ok(expandVarsResult("${SCHEME}://${HOST}/v1", env))).toBe("https://api.example.com/v1")
    expect(ok(expandVarsResult("${KEY}${KEY}", env))).toBe("sk-1sk-1")
  })

  test("a bare $X, a lone $ and $$ stay literal (no escape syntax)", () => {
    expect(ok(expandVarsResult("$HOST and $ and $$", env))).toBe("$HOST and $ and $$")
    expect(ok(expandVarsResult("$${HOST}", env))).toBe("$api.example.com")
  })

  test("a variable set to the empty string is accepted", () => {
    expect(ok(expandVarsResult("a${EMPTY}b", env))).toBe("ab")
  })

  test("an unset variable is an error naming it", () => {
    const e = err(expandVarsResult("x-${MISSING}", env))
    expect(e).toMatchObject({ _tag: "ConfigError", reason: { _tag: "UnsetVariable", name: "MISSING" } })
    expect(e.message).toBe("environment variable 'MISSING' referenced by '${MISSING}' is not set")
  })

  test("an unterminated placeholder quotes the value", () => {
    expect(err(expandVarsResult("https://${HOST", env)).message).toBe(
      `unterminated '\${' placeholder in "https://\${HOST"`
    )
  })

  test("an invalid name is an error; so is an empty one", () => {
    expect(err(expandVarsResult("${bad-name}", env)).message).toBe(
      `invalid environment variable placeholder '\${bad-name}' in "\${bad-name}" (must be alphanumeric/underscore)`
    )
    expect(err(expandVarsResult("${}", env)).message).toBe(
      `invalid environment variable placeholder '\${}' in "\${}" (must be alphanumeric/underscore)`
    )
    // Lookup never happens for an invalid name, even when such a variable exists.
    expect(Result.isFailure(expandVarsResult("${API-KEY}", { "API-KEY": "x" }))).toBe(true)
  })

  test("the secret option keeps the value out of the messages", () => {
    const a = err(expandVarsResult("sk-live-123${", env, { secret: true })).message
    const b = err(expandVarsResult("sk-live-123${a b}", env, { secret: true })).message
    expect(a).toBe(`unterminated '\${' placeholder in "<redacted>"`)
    expect(b).toBe(`invalid environment variable placeholder '\${a b}' in "<redacted>" (must be alphanumeric/underscore)`)
    expect(a + b).not.toContain("sk-live-123")
  })

  test("Effect forms: expandVars, expandList, expandMap", async () => {
    expect(await Effect.runPromise(expandVars("${HOST}", env))).toBe("api.example.com")
    expect(await Effect.runPromise(expandList(["${SCHEME}", "x"], env))).toEqual(["https", "x"])
    expect(await Effect.runPromise(expandMap({ Authorization: "Bearer ${KEY}" }, env))).toEqual({
      Authorization: "Bearer sk-1"
    })
    const failure = await Effect.runPromise(Effect.flip(expandMap({ a: "${NOPE}" }, env)))
    expect(failure.message).toContain("'NOPE'")
    expect(exitCodeOf(failure)).toBe(1)
  })
})

describe("parseDotenv", () => {
  test("KEY=VALUE lines, blank lines, comments, export prefix", () => {
    const text = "# comment\n\nFOO=bar\n  # indented comment\nexport BAZ=qux\nexport\tTAB=1\n"
    expect(ok(parseDotenv(text))).toEqual([["FOO", "bar"], ["BAZ", "qux"], ["TAB", "1"]])
  })

  test("single quotes are raw", () => {
    expect(ok(parseDotenv("A='raw \\n $X # not a comment'\n"))).toEqual([["A", "raw \\n $X # not a comment"]])
  })

  test("double quotes take escapes", () => {
    expect(ok(parseDotenv(`A="l1\\nl2\\tt \\"q\\" back\\\\slash \\$"\n`))).toEqual([["A", "l1\nl2\tt \"q\" back\\slash $"]])
  })

  test("bare values: trailing ' #' comment stripped, a glued '#' kept, '=' kept, whitespace trimmed", () => {
    expect(ok(parseDotenv("A=bar # comment\nB=a#b\nC=x=y=z\nD =  spaced  \nE=\n"))).toEqual([
      ["A", "bar"],
      ["B", "a#b"],
      ["C", "x=y=z"],
      ["D", "spaced"],
      ["E", ""]
    ])
  })

  test("comments after quoted values; CRLF line endings", () => {
    expect(ok(parseDotenv("A=\"x\" # c\r\nB='y'   \r\n"))).toEqual([["A", "x"], ["B", "y"]])
  })

  test("a bad line is an error naming its line number, never its content", () => {
    const e = err(parseDotenv("A=1\n# c\nSECRET_WITHOUT_EQUALS\n"))
    expect(e.message).toBe("failed to parse '.env' line 3: expected KEY=VALUE")
    expect(e.message).not.toContain("SECRET_WITHOUT_EQUALS")
  })

  test("multi-line quoted values are not supported", () => {
    const e = err(parseDotenv("A=1\nKEY=\"-----BEGIN\nabc\n-----END\"\n"))
    expect(e.message).toBe(
      "failed to parse '.env' line 2: unterminated double-quoted value (multi-line values are not supported)"
    )
    expect(err(parseDotenv("K='never closed\n")).message).toContain("line 1: unterminated single-quoted value")
  })

  test("other malformed lines", () => {
    expect(err(parseDotenv("FOO-BAR=x\n")).message).toContain("line 1: invalid variable name")
    expect(err(parseDotenv("1FOO=x\n")).message).toContain("line 1: invalid variable name")
    expect(err(parseDotenv("=x\n")).message).toBe("failed to parse '.env' line 1: expected KEY=VALUE")
    expect(err(parseDotenv("A=\"v\" trailing\n")).message).toContain("unexpected text after the closing quote")
    const escape = err(parseDotenv("A=\"sk-hidden \\x\"\n")).message
    expect(escape).toContain("unsupported escape sequence '\\x'")
    expect(escape).not.toContain("sk-hidden")
  })
})

describe("loadDotenv", () => {
  const load = (cwd: string, env: Env) =>
    Effect.runPromise(loadDotenv({ cwd, env }).pipe(Effect.provide(FileLoader.layer)))

  test("fills only variables that are not set (an empty value counts as set)", async () => {
    const cwd = tempDir()
    fs.writeFileSync(nodePath.join(cwd, ".env"), "NEW=from-file\nSET=from-file\nBLANK=from-file\n")
    const env: Env = { SET: "from-shell", BLANK: "" }
    expect(await load(cwd, env)).toEqual(["NEW"])
    expect(env).toEqual({ NEW: "from-file", SET: "from-shell", BLANK: "" })
  })

  test("a missing .env is fine, and only the CWD is read (not a parent)", async () => {
    const parent = tempDir()
    fs.writeFileSync(nodePath.join(parent, ".env"), "PARENT=1\n")
    const child = nodePath.join(parent, "child")
    fs.mkdirSync(child)
    const env: Env = {}
    expect(await load(child, env)).toEqual([])
    expect(env).toEqual({})
  })

  test("a malformed .env fails with its line number", async () => {
    const cwd = tempDir()
    fs.writeFileSync(nodePath.join(cwd, ".env"), "A=1\nB=2\noops\n")
    const e = await Effect.runPromise(Effect.flip(loadDotenv({ cwd, env: {} })).pipe(Effect.provide(FileLoader.layer)))
    expect(renderChain(e)).toBe("failed to parse '.env' line 3: expected KEY=VALUE")
  })

  test("a .env that is not a readable file is an error, not silently skipped", async () => {
    const cwd = tempDir()
    fs.mkdirSync(nodePath.join(cwd, ".env"))
    const e = await Effect.runPromise(Effect.flip(loadDotenv({ cwd, env: {} })).pipe(Effect.provide(FileLoader.layer)))
    expect(renderChain(e)).toBe(`failed to read '${nodePath.join(cwd, ".env")}': is a directory`)
  })
})
