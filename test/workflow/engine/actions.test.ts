// Action kinds: jq, run, write, ask.
import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test"
import * as fs from "node:fs"
import * as path from "node:path"
import { Effect } from "effect"
import { LaitError } from "../../../src/core/errors.ts"
import type { Answerer } from "../../../src/platform/terminal.ts"
import { alive, errorOf, makeDir, runYaml, valueOf } from "./harness.ts"

// Tests here wait on processes: bun's 5 s default is no bound for a loaded machine.
setDefaultTimeout(60_000)

const dir = makeDir("engine-actions")
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

// A bound for a machine many times slower: a wait ends as soon as the predicate holds.
const waitFor = async (predicate: () => boolean, ms = 30_000) => {
  const end = Date.now() + ms
  while (!predicate() && Date.now() < end) await Bun.sleep(20)
  return predicate()
}

describe("jq", () => {
  test("a jq step's value is its result, any JSON type", async () => {
    const ran = await runYaml(dir, "steps:\n  - jq: '{n: ., list: [1, 2], s: \"x\", t: true, z: null}'\n", 7)
    expect(valueOf(ran)).toEqual({ n: 7, list: [1, 2], s: "x", t: true, z: null })
  })

  test("$steps of an unrecorded id is null and $loop is null outside loops", async () => {
    const ran = await runYaml(dir, "steps:\n  - jq: '[$steps.nothing, $loop]'\n", null)
    expect(valueOf(ran)).toEqual([null, null])
  })

  test("a jq failure names the step", async () => {
    const ran = await runYaml(dir, "steps:\n  - id: boom\n    jq: 'error(\"bad value\")'\n", null)
    expect(errorOf(ran)).toStartWith("step 'boom': ")
    expect(errorOf(ran)).toContain("bad value")
  })
})

describe("run", () => {
  test("stdin is the text form of the input; one trailing newline of stdout is removed", async () => {
    const ran = await runYaml(
      dir,
      `
steps:
  - id: object
    input: '{a: 1}'
    run: [cat]
  - id: text
    input: '"line\\n\\n"'
    run: [cat]
  - id: crlf
    run: [printf, 'x\\r\\n']
  - jq: '[$steps.object, $steps.text, $steps.crlf]'
`,
      null
    )
    expect(valueOf(ran)).toEqual(["{\"a\":1}", "line\n", "x"])
  })

  test("each argv element is a template over input, steps, inputs and loop; no shell", async () => {
    const ran = await runYaml(
      dir,
      `
inputs:
  greeting: string
steps:
  - id: who
    jq: '{name: "Ada; rm -rf /"}'
  - run: [echo, '{{ inputs.greeting }}', '{{ steps.who.name }}', '{{ json input }}', '$HOME']
`,
      null,
      { inputs: { greeting: "hi" } }
    )
    expect(valueOf(ran)).toBe("hi Ada; rm -rf / {\"name\":\"Ada; rm -rf /\"} $HOME")
  })

  test("a non-zero exit fails with the exit status and stderr", async () => {
    const ran = await runYaml(dir, "steps:\n  - id: fails\n    run: [sh, -c, 'echo out; echo \"  went wrong  \" >&2; exit 7']\n", null)
    expect(errorOf(ran)).toBe("step 'fails': command 'sh' exited with exit status: 7: went wrong")
  })

  test("a program that cannot be started is reported with the OS error", async () => {
    const ran = await runYaml(dir, "steps:\n  - id: missing\n    run: [lait-no-such-program-xyz]\n", null)
    expect(errorOf(ran)).toBe(
      "step 'missing': failed to run command 'lait-no-such-program-xyz': No such file or directory (os error 2)"
    )
  })

  test("a child killed by a signal reports the signal", async () => {
    const ran = await runYaml(dir, "steps:\n  - id: killed\n    run: [sh, -c, 'kill -9 $$']\n", null)
    expect(errorOf(ran)).toBe("step 'killed': command 'sh' exited with signal: 9 (SIGKILL):")
  })

  test("non-UTF-8 stdout is an error", async () => {
    const ran = await runYaml(dir, "steps:\n  - id: binary\n    run: [printf, '\\377\\376']\n", null)
    expect(errorOf(ran)).toBe(
      "step 'binary': command 'printf' produced non-UTF-8 output on stdout; binary output is not supported"
    )
  })

  test("env is an allowlist with ${VAR} expansion: the child sees only those variables", async () => {
    const ran = await runYaml(
      dir,
      "steps:\n  - run: [env]\n    env:\n      GREETING: 'hello ${LAIT_TEST_WHO}'\n      PLAIN: '$NOT_EXPANDED'\n",
      null,
      { context: { env: { LAIT_TEST_WHO: "ada" } } }
    )
    expect(String(valueOf(ran)).split("\n").sort()).toEqual(["GREETING=hello ada", "PLAIN=$NOT_EXPANDED"])
  })

  test("an unset variable in env or cwd fails the step before anything runs", async () => {
    const env = await runYaml(dir, "steps:\n  - id: e\n    run: [env]\n    env:\n      A: '${LAIT_UNSET_VAR}'\n", null, {
      context: { env: {} }
    })
    expect(errorOf(env)).toBe(
      "step 'e': 'env': environment variable 'LAIT_UNSET_VAR' referenced by '${LAIT_UNSET_VAR}' is not set"
    )
    const cwd = await runYaml(dir, "steps:\n  - id: c\n    run: [pwd]\n    cwd: '${LAIT_UNSET_DIR}/x'\n", null, {
      context: { env: {} }
    })
    expect(errorOf(cwd)).toBe(
      "step 'c': 'cwd': environment variable 'LAIT_UNSET_DIR' referenced by '${LAIT_UNSET_DIR}' is not set"
    )
  })

  test("cwd sets the child's working directory", async () => {
    const sub = path.join(dir, "sub")
    fs.mkdirSync(sub, { recursive: true })
    const ran = await runYaml(dir, "steps:\n  - run: [pwd]\n    cwd: '${LAIT_TEST_DIR}'\n", null, {
      context: { env: { LAIT_TEST_DIR: sub } }
    })
    expect(valueOf(ran)).toBe(fs.realpathSync(sub))
  })

  test("stdout over 16 MiB fails the step and kills the process tree", async () => {
    const pidFile = path.join(dir, "flood.pid")
    const ran = await runYaml(
      dir,
      `steps:\n  - id: flood\n    run: [sh, -c, 'sleep 60 & echo $! > "$0"; yes', '${pidFile}']\n`,
      null
    )
    expect(errorOf(ran)).toBe(
      "step 'flood': failed to read stdout from command: command stdout output exceeds the configured limit of 16777216 bytes"
    )
    const background = Number(fs.readFileSync(pidFile, "utf8").trim())
    expect(await waitFor(() => !alive(background))).toBe(true)
  })

  test("an interrupted command gets SIGTERM first, so it can clean up", async () => {
    const marker = path.join(dir, "cleaned-up")
    const ran = await runYaml(
      dir,
      `steps:\n  - id: polite\n    run: [sh, -c, 'trap "echo bye > \\"$0\\"; exit 0" TERM; sleep 30 & wait', '${marker}']\n    timeout: 1\n`,
      null
    )
    expect(errorOf(ran)).toBe("step 'polite' timed out after 1s (attempt 1/1)")
    expect(fs.readFileSync(marker, "utf8")).toBe("bye\n")
  })

  test("a command that ignores SIGTERM is killed after the grace period", async () => {
    const pidFile = path.join(dir, "stubborn.pid")
    const started = Date.now()
    const ran = await runYaml(
      dir,
      `steps:\n  - id: stubborn\n    run: [sh, -c, 'trap "" TERM; echo $$ > "$0"; while :; do sleep 0.1; done', '${pidFile}']\n    timeout: 1\n`,
      null
    )
    expect(errorOf(ran)).toBe("step 'stubborn' timed out after 1s (attempt 1/1)")
    // A lower bound (the 1 s timeout, then the 2 s grace), which a slower machine cannot break.
    expect(Date.now() - started, "ms until the step failed").toBeGreaterThanOrEqual(2900)
    expect(await waitFor(() => !alive(Number(fs.readFileSync(pidFile, "utf8").trim())))).toBe(true)
  })

  test("stderr is capped the same way", async () => {
    const ran = await runYaml(dir, "steps:\n  - id: noisy\n    run: [sh, -c, 'yes >&2']\n", null)
    expect(errorOf(ran)).toBe(
      "step 'noisy': failed to read stderr from command: command stderr output exceeds the configured limit of 16777216 bytes"
    )
  })
})

describe("write", () => {
  test("writes the text form of the input, overwrites, and passes the input through", async () => {
    const target = path.join(dir, "out.json")
    fs.writeFileSync(target, "old contents that are longer than the new ones")
    const ran = await runYaml(
      dir,
      `steps:\n  - id: name\n    jq: '"out"'\n  - jq: '{k: [1, 2]}'\n  - write: '${dir}/{{ steps.name }}.json'\n  - write: '${dir}/out.txt'\n    input: '"plain"'\n`,
      null
    )
    expect(valueOf(ran)).toBe("plain")
    expect(fs.readFileSync(target, "utf8")).toBe("{\"k\":[1,2]}")
    expect(fs.readFileSync(path.join(dir, "out.txt"), "utf8")).toBe("plain")
  })

  test("parent directories are not created", async () => {
    const target = path.join(dir, "missing-dir", "x.txt")
    const ran = await runYaml(dir, `steps:\n  - id: w\n    write: '${target}'\n`, "x")
    expect(errorOf(ran)).toBe(`step 'w': failed to write output to '${target}': No such file or directory (os error 2)`)
    expect(fs.existsSync(path.dirname(target))).toBe(false)
  })

  test("a templated value holding '/' or '..' is refused before anything is opened; the author's directories are not", async () => {
    fs.mkdirSync(path.join(dir, "sub"), { recursive: true })
    const write = (value: string, template: string) =>
      runYaml(dir, `steps:\n  - id: v\n    jq: ${JSON.stringify(JSON.stringify(value))}\n  - id: w\n    input: '"x"'\n    write: '${template}'\n`, null)
    for (const [value, what] of [["../escaped", "'/'"], ["a/b", "'/'"], ["..", "'..'"], ["x..y", "'..'"]] as const) {
      const ran = await write(value, `${dir}/sub/{{ steps.v }}.txt`)
      expect(errorOf(ran)).toBe(
        `step 'w': refusing to write ${JSON.stringify(`${dir}/sub/${value}.txt`)}: the templated value ${JSON.stringify(value)} ` +
          `contains ${what}; a value in a 'write' path may only fill in a file name`
      )
    }
    expect(fs.readdirSync(path.join(dir, "sub"))).toEqual([])
    expect(fs.existsSync(path.join(dir, "escaped.txt"))).toBe(false)
    expect(valueOf(await write("fine.name", `${dir}/sub/{{ steps.v }}`))).toBe("x")
    expect(fs.readdirSync(path.join(dir, "sub"))).toEqual(["fine.name"])
  })

  test("a relative path is relative to the current directory", async () => {
    const previous = process.cwd()
    process.chdir(dir)
    try {
      const ran = await runYaml(dir, "steps:\n  - write: relative-out.txt\n", "here")
      expect(valueOf(ran)).toBe("here")
      expect(fs.readFileSync(path.join(dir, "relative-out.txt"), "utf8")).toBe("here")
    } finally {
      process.chdir(previous)
    }
  })
})

describe("ask", () => {
  const scripted = (answers: Array<string>, interactive = true): Answerer & { readonly asked: Array<boolean> } => {
    const asked: Array<boolean> = []
    return {
      asked,
      interactive: () => interactive,
      read: (multiline) => {
        asked.push(multiline)
        const next = answers.shift()
        return next === undefined ? Effect.fail(new LaitError({ message: "no scripted answer" })) : Effect.succeed(next)
      }
    }
  }

  test("without a terminal the default answers, and nothing is read", async () => {
    const answerer = scripted([], false)
    const ran = await runYaml(dir, "steps:\n  - ask: 'Proceed?'\n    choices: ['yes', 'no']\n    default: 'no'\n", null, {
      context: { answerer }
    })
    expect(valueOf(ran)).toBe("no")
    expect(answerer.asked).toEqual([])
  })

  test("without a terminal and without a default the step fails", async () => {
    const ran = await runYaml(dir, "steps:\n  - id: q\n    ask: 'Name?'\n", null, { context: { answerer: scripted([], false) } })
    expect(errorOf(ran)).toBe(
      "step 'q': stdin is not an interactive terminal and no 'default:' is set; an 'ask' step has no way to get an answer"
    )
  })

  test("on a terminal the rendered question and choices go to stderr and one line is read", async () => {
    const answerer = scripted(["yes\n"])
    const ran = await runYaml(dir, "steps:\n  - ask: 'Deploy {{ input }}?'\n    choices: ['yes', 'no']\n", "v2", {
      context: { answerer }
    })
    expect(valueOf(ran)).toBe("yes")
    expect(ran.lines).toEqual(["[1] step-1 (ask)", "Deploy v2?", "choices: yes, no"])
    expect(answerer.asked).toEqual([false])
  })

  test("an answer outside the choices fails without asking again", async () => {
    const answerer = scripted(["Yes\n", "yes\n"])
    const ran = await runYaml(dir, "steps:\n  - id: confirm\n    ask: 'Sure?'\n    choices: ['yes', 'no']\n", null, {
      context: { answerer }
    })
    expect(errorOf(ran)).toBe("step 'confirm': answer \"Yes\" is not one of the configured 'choices': yes, no")
    expect(answerer.asked).toEqual([false])
  })

  test("multiline reads to EOF and keeps inner newlines", async () => {
    const answerer = scripted(["first\nsecond\n"])
    const ran = await runYaml(dir, "steps:\n  - ask: 'Notes?'\n    multiline: true\n", null, { context: { answerer } })
    expect(valueOf(ran)).toBe("first\nsecond")
    expect(answerer.asked).toEqual([true])
  })
})
