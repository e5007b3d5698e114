// `lait run` as a user meets it: run in this process (runCli's default; the tests about the process
// itself, a terminal or Ctrl-C, start the compiled binary, or `bun src/main.ts` when dist/lait has not
// been built), stdout and stderr kept apart, exit codes. Covers the examples, every step kind, the runtime
// error messages, the command-line rules (PROMPT/stdin, --input, -o, --json, --dry-run), the file's
// timeout, concurrency of for_each, and Ctrl-C.
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as path from "node:path"
import { alive, binaryPath, ensureBinary, makeTempDir, repoRoot, run, runCli, type RunResult } from "./util.ts"

const examples = path.join(repoRoot, "examples", "workflows")
let cwd = ""
// For the tests that start lait as a process: the compiled binary when dist/lait exists (rebuilt when
// stale) and starts; else the sources.
let useBinary = false

beforeAll(async () => {
  cwd = fs.realpathSync(makeTempDir("e2e-run"))
  if (fs.existsSync(binaryPath)) {
    const binary = await ensureBinary().catch(() => undefined)
    const smoke = binary === undefined ? undefined : await run([binary, "--version"], { cwd, timeoutMs: 30_000 })
    useBinary = smoke?.code === 0
    if (!useBinary) process.stderr.write(`note: dist/lait does not start; running src/main.ts instead\n${smoke?.stderr ?? ""}`)
  }
}, 300_000)
afterAll(() => fs.rmSync(cwd, { recursive: true, force: true }))

const env = () => ({ ...process.env, NO_COLOR: "1", XDG_CONFIG_HOME: path.join(cwd, "xdg"), HOME: cwd })

const lait = (args: ReadonlyArray<string>, options: { readonly stdin?: string; readonly dir?: string } = {}) =>
  runCli(args, {
    cwd: options.dir ?? cwd,
    env: env(),
    timeoutMs: 60_000,
    ...(options.stdin !== undefined ? { stdin: options.stdin } : {})
  })

const write = (name: string, text: string, dir = cwd): string => {
  const file = path.join(dir, name)
  fs.mkdirSync(path.dirname(file), { recursive: true })
  fs.writeFileSync(file, text)
  return file
}

const outcome = (r: RunResult) => ({ code: r.code, stdout: r.stdout, stderr: r.stderr })

/** The command line that starts lait, for tests that need the process itself. */
const laitCommand = (): Array<string> =>
  useBinary ? [binaryPath] : [process.execPath, path.join(repoRoot, "src", "main.ts")]

const waitFor = async (predicate: () => boolean, ms: number): Promise<boolean> => {
  const end = Date.now() + ms
  while (!predicate() && Date.now() < end) await Bun.sleep(25)
  return predicate()
}

describe("the examples", () => {
  test("hello: jq steps, $steps and the top-level output", async () => {
    expect(outcome(await lait(["run", path.join(examples, "hello.yml"), "Ada Lovelace"]))).toEqual({
      code: 0,
      stdout: "{\"greeting\":\"Hello, Ada!\",\"first_name\":\"Ada\"}\n",
      stderr: "==> hello: greets whoever is named in the PROMPT\n[1] name\n[2] step-2 (jq)\n"
    })
  })

  test("text-tools: piped PROMPT, run with stdin, write, --input", async () => {
    const r = await lait(["run", path.join(examples, "text-tools.yml"), "--input", "out=sorted.txt"], {
      stdin: "b a c\n"
    })
    expect(outcome(r)).toEqual({
      code: 0,
      stdout: "3 words written to sorted.txt\n",
      stderr: [
        "==> text-tools: sorts the words of the PROMPT with sort(1) and writes them to a file",
        "[1] words",
        "[2] sorted",
        "[3] count",
        "[4] step-4 (write)",
        "[5] step-5 (run)",
        ""
      ].join("\n")
    })
    expect(fs.readFileSync(path.join(cwd, "sorted.txt"), "utf8")).toBe("a\nb\nc")
  })

  test("control-flow: switch/else, until, while with break, group and stop", async () => {
    const r = await lait(["run", path.join(examples, "control-flow.yml"), "7"])
    expect(r.code).toBe(0)
    expect(r.stdout).toBe("{\"kind\":\"odd\",\"halved_to\":1,\"counted_to\":3}\n")
    const lines = r.stderr.trimEnd().split("\n")
    expect(lines.slice(0, 4)).toEqual([
      "==> control-flow: classifies a number, then halves it down to 1, then counts up until a break",
      "[1] kind",
      "    -> no case matched, running 'else'",
      "[2] step-1.else.1 (jq)"
    ])
    expect(lines).toContain("    -> iteration 9/20")
    expect(lines).not.toContain("    -> iteration 10/20")
    expect(lines.slice(-3)).toEqual(["[20] step-4 (group)", "[21] step-4.1 (jq)", "[22] step-4.2 (stop)"])
  })

  test("fan-out: parallel and for_each, sequential and concurrent", async () => {
    const r = await lait(["run", path.join(examples, "fan-out.yml"), "3 1 2"])
    expect(r.code).toBe(0)
    expect(JSON.parse(r.stdout)).toEqual({
      stats: { sum: 6, max: 3, sorted: [1, 2, 3] },
      squares: [9, 1, 4],
      labelled: ["item 0 of the loop: 3", "item 1 of the loop: 1", "item 2 of the loop: 2"]
    })
    expect(r.stderr).toContain("    -> running 3 branches concurrently\n")
    expect(r.stderr).toContain("[sum] [1] step-2.sum.1 (jq)\n")
    expect(r.stderr).toContain("    -> iterating over 3 item(s), up to 4 concurrently\n")
    expect(r.stderr).toContain("[item-3] [1] step-4.1 (run)\n")
  })

  test("nested: a child workflow per item, inputs bound by with:", async () => {
    const r = await lait(["run", path.join(examples, "nested.yml"), "Ada,Grace"])
    expect(outcome(r)).toEqual({
      code: 0,
      stdout: "Hello, Ada! Hello, Grace.\n",
      stderr: [
        "==> nested: greets every name of a comma-separated PROMPT through a child workflow",
        "[1] step-1 (for_each)",
        "    -> iterating over 2 item(s)",
        "    -> item 1/2",
        "[2] step-1.1 (workflow)",
        "    -> greet-child: formats one greeting",
        "    [1] step-1 (jq)",
        "    -> item 2/2",
        "[3] step-1.1 (workflow)",
        "    -> greet-child: formats one greeting",
        "    [1] step-1 (jq)",
        "[4] step-2 (jq)",
        ""
      ].join("\n")
    })
  })

  test("resilient: retry until success, on_error rescue", async () => {
    const r = await lait(["run", path.join(examples, "resilient.yml"), "go"])
    expect(r.code).toBe(0)
    expect(JSON.parse(r.stdout)).toEqual({
      attempts: "ok after 3",
      rescued: "recovered from: step 'rescued': command 'sh' exited with exit status: 3: disk full"
    })
    expect(r.stderr).toContain(
      "    -> attempt 1/3 failed: step 'attempts': command 'sh' exited with exit status: 1: not yet (1); retrying in 0.0s\n"
    )
    expect(r.stderr).toContain(
      "    -> step failed, running 'on_error': step 'rescued': command 'sh' exited with exit status: 3: disk full\n"
    )
  })

  test("ask: without a terminal the default answers", async () => {
    const r = await lait(["run", path.join(examples, "ask.yml"), "deploy v2"])
    expect(outcome(r)).toEqual({
      code: 0,
      stdout: "cancelled\n",
      stderr: "==> ask: asks for confirmation before doing anything\n[1] answer\n[2] step-2 (switch)\n" +
        "    -> no case matched, running 'else'\n[3] step-2.else.1 (jq)\n"
    })
  })

  // util-linux `script` gives lait a terminal on stdin.
  const hasScript = Bun.which("script") !== null && process.platform === "linux"
  test.skipIf(!hasScript)("ask: on a terminal the question is asked and the answer read", async () => {
    const command = [...laitCommand(), "run", path.join(examples, "ask.yml"), "deploy v2"]
      .map((a) => `'${a.replace(/'/g, "'\\''")}'`)
      .join(" ")
    const child = Bun.spawn(["script", "-qec", command, "/dev/null"], {
      cwd,
      env: env(),
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe"
    })
    const output = new Response(child.stdout).text()
    await Bun.sleep(useBinary ? 1500 : 3000)
    child.stdin.write("yes\n")
    await child.stdin.flush()
    const code = await child.exited
    const text = (await output).replace(/\r/g, "")
    expect(code).toBe(0)
    expect(text).toContain("Proceed with \"deploy v2\"?\nchoices: yes, no\n")
    expect(text).toContain("proceeding\n")
  }, 30_000)
})

describe("command line", () => {
  const echo = () => write("echo.yml", "steps:\n  - jq: '.'\n")

  test("without PROMPT, stdin or declared inputs it is an error", async () => {
    expect(outcome(await lait(["run", echo()]))).toEqual({
      code: 1,
      stdout: "",
      stderr:
        "lait: a PROMPT is required; provide one or pipe input via stdin (a workflow that declares 'inputs:' may be run without one)\n"
    })
  })

  test("piped stdin is the PROMPT, is appended to a PROMPT after a blank line, and '-' reads it", async () => {
    const file = echo()
    expect((await lait(["run", file], { stdin: "from pipe\n\n" })).stdout).toBe("from pipe\n")
    expect((await lait(["run", file, "instruction"], { stdin: "context\n" })).stdout).toBe("instruction\n\ncontext\n")
    expect((await lait(["run", file, "-"], { stdin: "dash\n" })).stdout).toBe("dash\n")
    expect((await lait(["run", file, "just this"], { stdin: "  \n" })).stdout).toBe("just this\n")
  })

  test("a workflow with inputs: runs without PROMPT on a null initial value", async () => {
    const file = write("inputs.yml", "inputs:\n  n:\n    type: integer\n  tag: string\nsteps:\n  - jq: '{initial: ., n: $inputs.n, tag: $inputs.tag}'\n")
    const r = await lait(["run", file, "--input", "n=41", "--input", "tag=007", "--input", "n=42"])
    expect(outcome(r)).toEqual({ code: 0, stdout: "{\"initial\":null,\"n\":42,\"tag\":\"007\"}\n", stderr: "[1] step-1 (jq)\n" })
  })

  test("--input must be KEY=VALUE", async () => {
    const file = write("inputs2.yml", "inputs:\n  n: string\nsteps:\n  - jq: '.'\n")
    const r = await lait(["run", file, "--input", "novalue"])
    expect(r.stdout).toBe("")
    expect(r.stderr).toBe("lait: invalid --input \"novalue\": expected KEY=VALUE\n")
    expect(r.code).toBe(2)
  })

  test("the PROMPT is read through the input_schema", async () => {
    const file = write("typed.yml", "input_schema:\n  type: object\n  required: [a]\nsteps:\n  - jq: '.a'\n")
    expect(outcome(await lait(["run", file, "{\"a\": [1]}"]))).toEqual({ code: 0, stdout: "[1]\n", stderr: "[1] step-1 (jq)\n" })
    const bad = await lait(["run", file, "not json"])
    expect(bad.code).toBe(1)
    expect(bad.stdout).toBe("")
    expect(bad.stderr).toStartWith("lait: the initial input must be JSON matching the workflow's 'input_schema'")
  })

  test("-o writes the result to a file, '-' is stdout, --json wraps it", async () => {
    const file = echo()
    const r = await lait(["run", file, "result text", "-o", "out/result.txt"])
    expect(r.code).toBe(1)
    // Checked before the first step runs: no step line.
    expect(r.stderr).toBe("lait: failed to write the response to 'out/result.txt': No such file or directory (os error 2)\n")
    fs.mkdirSync(path.join(cwd, "out"), { recursive: true })
    expect(outcome(await lait(["run", file, "result text", "-o", "out/result.txt"]))).toEqual({
      code: 0,
      stdout: "",
      stderr: "[1] step-1 (jq)\n"
    })
    expect(fs.readFileSync(path.join(cwd, "out/result.txt"), "utf8")).toBe("result text\n")
    // Replacing goes through a temp file and a rename: the old contents are never torn, the mode stays.
    fs.chmodSync(path.join(cwd, "out/result.txt"), 0o600)
    const before = fs.statSync(path.join(cwd, "out/result.txt")).ino
    expect((await lait(["run", file, "second", "-o", "out/result.txt"])).code).toBe(0)
    expect(fs.readFileSync(path.join(cwd, "out/result.txt"), "utf8")).toBe("second\n")
    expect(fs.statSync(path.join(cwd, "out/result.txt")).ino).not.toBe(before)
    expect(fs.statSync(path.join(cwd, "out/result.txt")).mode & 0o777).toBe(0o600)
    expect(fs.readdirSync(path.join(cwd, "out"))).toEqual(["result.txt"])
    expect((await lait(["run", file, "to stdout", "-o", "-"])).stdout).toBe("to stdout\n")
    expect((await lait(["run", file, "wrapped", "--json"])).stdout).toBe(
      "{\"content\":\"wrapped\",\"reasoning\":null,\"usage\":null,\"finish_reason\":null}\n"
    )
  })

  test("a write: step replaces its file atomically: new inode, mode kept, a hard link keeps the old text", async () => {
    const dir = path.join(cwd, "write-atomic")
    const wf = write("write-atomic/wf.yml", "steps:\n  - write: out.txt\n", cwd)
    const out = write("write-atomic/out.txt", "old text\n", cwd)
    fs.chmodSync(out, 0o640)
    const alias = path.join(dir, "alias.txt")
    fs.linkSync(out, alias)
    const before = fs.statSync(out)
    expect(outcome(await lait(["run", wf, "new text"], { dir }))).toEqual({
      code: 0,
      stdout: "new text\n",
      stderr: "[1] step-1 (write)\n"
    })
    const after = fs.statSync(out)
    expect(fs.readFileSync(out, "utf8")).toBe("new text")
    // Renamed into place: another inode, so the hard link still names the old file (docs/workflows.md#write).
    expect(after.ino).not.toBe(before.ino)
    expect(after.nlink).toBe(1)
    expect(fs.readFileSync(alias, "utf8")).toBe("old text\n")
    expect(after.mode & 0o777).toBe(0o640)
    expect(fs.readdirSync(dir).sort()).toEqual(["alias.txt", "out.txt", "wf.yml"])
  })

  test("a workflows: registry name from lait.config.yml runs that file", async () => {
    const project = path.join(cwd, "project")
    write("flows/greet.yml", "steps:\n  - jq: '\"hi \" + .'\n", project)
    write("lait.config.yml", "workflows:\n  greet: flows/greet.yml\n", project)
    const r = await lait(["run", "greet", "there"], { dir: project })
    expect(outcome(r)).toEqual({
      code: 0,
      stdout: "hi there\n",
      stderr: `note: resolved 'greet' to '${path.join(project, "flows/greet.yml")}' via 'workflows:'\n[1] step-1 (jq)\n`
    })
    // A workflow: step may name the registry entry too, and run env values see .env variables.
    write(".env", "WHO=from-dotenv\n", project)
    write(
      "caller.yml",
      "steps:\n  - workflow: greet\n  - run: [env]\n    env:\n      GREETED: '${WHO}: {{ input }}'\n",
      project
    )
    const caller = await lait(["run", "caller.yml", "you"], { dir: project })
    expect(outcome(caller)).toEqual({
      code: 0,
      // ${VAR} is expanded; templates are not (a value rendered from a model cannot smuggle in a secret).
      stdout: "GREETED=from-dotenv: {{ input }}\n",
      stderr: "[1] step-1 (workflow)\n    [1] step-1 (jq)\n[2] step-2 (run)\n"
    })
    write("greet", "steps:\n  - jq: '\"file wins\"'\n", project)
    const shadowed = await lait(["run", "greet", "x"], { dir: project })
    expect(shadowed.stdout).toBe("file wins\n")
    expect(shadowed.stderr).toStartWith(
      "note: 'greet' exists as a file and is also a 'workflows:' entry; running the file\n"
    )
  })

  test("a missing file is a read error; an invalid file a validation error (exit 3)", async () => {
    const missing = await lait(["run", "nope.yml", "x"])
    expect(missing.code).toBe(1)
    expect(missing.stderr).toStartWith("lait: failed to load workflow 'nope.yml': failed to read 'nope.yml'")
    const invalid = await lait(["run", write("invalid.yml", "steps:\n  - frobnicate: true\n"), "x"])
    expect(invalid.code).toBe(3)
    expect(invalid.stdout).toBe("")
  })
})

describe("--dry-run", () => {
  test("prints the plan on stdout and runs nothing", async () => {
    const marker = path.join(cwd, "dry-run-marker")
    const file = write(
      "plan.yml",
      `
name: plan
inputs:
  who:
    type: string
    default: world
timeout: 30
steps:
  - id: first
    run: [touch, '${marker}', '{{ input }}', '{{ inputs.who }}']
    retry:
      max_attempts: 3
      delay_seconds: 2
      backoff: 1.5
    timeout: 5
  - id: second
    write: '{{ steps.first }}.txt'
  - switch:
      - when: '. == "a"'
        steps:
          - stop: true
  - parallel:
      left:
        - jq: '.'
  - for_each: '.'
    max_concurrency: 2
    steps:
      - workflow: ./other.yml
        with: '{}'
  - until: '. > 3'
    max_iterations: 5
    steps:
      - break: true
    on_error:
      - ask: 'Continue {{ input }}?'
        default: 'no'
output: '.'
`
    )
    const r = await lait(["run", file, "seed", "--dry-run"])
    expect(r.code).toBe(0)
    expect(r.stderr).toBe("==> plan\n")
    expect(r.stdout).toBe(
      [
        "dry run: showing the execution plan only; no model, MCP server, or command process will be invoked",
        "inputs: {\"who\":\"world\"}",
        "[1] first  (run)",
        `    run: touch ${marker} seed world`,
        "    retry: max_attempts=3, delay_seconds=2, backoff=1.5",
        "    timeout: 5s",
        "[2] second  (write)",
        "    write: {{ steps.first }}.txt  [unrendered: depends on a value not known before the run]",
        "[3] step-3  (switch)",
        "    case 1: when . == \"a\"",
        "        [1] step-3.case1.1  (stop)",
        "            -> ends the workflow with the current value",
        "    else: (none; no matching case is a runtime error)",
        "[4] step-4  (parallel)",
        "    branch 'left':",
        "        [1] step-4.left.1  (jq)",
        "            jq: .",
        "[5] step-5  (for_each)",
        "    items: .",
        "    max_concurrency: 2",
        `        [1] step-5.1  (workflow)`,
        `            workflow: ${path.join(cwd, "other.yml")} (not expanded; run 'lait run --dry-run' on it directly)`,
        "            with: {}",
        "[6] step-6  (until)",
        "    until . > 3, max_iterations: 5",
        "        [1] step-6.1  (break)",
        "            -> ends the innermost loop with the current value",
        "    on_error:",
        "        [1] step-6.on_error.1  (ask)",
        "            ask: Continue {{ input }}?  [unrendered: depends on a value not known before the run]",
        "            default: no  (used when stdin is not an interactive terminal)",
        "output: .",
        "timeout: 30s (whole workflow)",
        ""
      ].join("\n")
    )
    expect(fs.existsSync(marker)).toBe(false)
  })

  test("model steps show the model and endpoint they would use", async () => {
    const file = write(
      "plan-model.yml",
      `
default:
  model: small
  retry:
    max_attempts: 2
models:
  small:
    - provider: { base_url: 'http://models.example/v1/' }
      model_id: small-v3
agents:
  helper:
    system: 'You help.'
    model: other-model
    tools: [grep]
steps:
  - id: p
    prompt: 'Summarize {{ input }}'
    system: 'You are {{ inputs.who }}'
  - agent: helper
    timeout: 20
`
    )
    const r = await lait(["run", file, "the text", "--dry-run"])
    expect(outcome(r)).toEqual({
      code: 0,
      stderr: "",
      stdout: [
        "dry run: showing the execution plan only; no model, MCP server, or command process will be invoked",
        "[1] p  (prompt)",
        "    prompt: Summarize the text",
        "    system: You are {{ inputs.who }}  [unrendered: depends on a value not known before the run]",
        "    model: small-v3 @ http://models.example/v1",
        "    retry: max_attempts=2, delay_seconds=0, backoff=1",
        "[2] step-2  (agent)",
        "    agent: helper (inline)",
        "    model: other-model @ http://localhost:1234/v1",
        "    tools: grep",
        "    retry: max_attempts=2, delay_seconds=0, backoff=1",
        "    timeout: 20s",
        ""
      ].join("\n")
    })
    const missing = await lait(["run", write("plan-nomodel.yml", "steps:\n  - id: p\n    prompt: 'hi'\n"), "x", "--dry-run"])
    expect({ code: missing.code, stdout: missing.stdout, stderr: missing.stderr }).toEqual({
      code: 1,
      stdout: "",
      stderr: `lait: model is required for step 'p' (no lait.config.yml found from '${cwd}' upward); ` +
        "set 'model' on the step or the workflow's default.model\n"
    })
  })

  test("inputs are resolved and validated before the plan", async () => {
    const file = write("plan2.yml", "inputs:\n  n: integer\nsteps:\n  - jq: '.'\n")
    const r = await lait(["run", file, "--dry-run"])
    expect(r.code).not.toBe(0)
    expect(r.stdout).toBe("")
    expect(r.stderr).toStartWith("lait: missing required input 'n'")
  })
})

describe("runtime errors through the CLI", () => {
  const cases: ReadonlyArray<readonly [string, string, string, number]> = [
    ["switch without else", "steps:\n  - id: s\n    switch:\n      - when: 'false'\n        steps:\n          - jq: '1'\n", "step 's': no case matched and no 'else' is defined", 1],
    ["for_each over a non-array", "steps:\n  - id: f\n    for_each: '.'\n    steps:\n      - jq: '.'\n", "step 'f': 'for_each' must produce a JSON array, got a string", 1],
    ["while reaching max_iterations", "steps:\n  - id: w\n    while: 'true'\n    max_iterations: 2\n    steps:\n      - jq: '.'\n", "step 'w': reached max_iterations (2) without satisfying 'while'", 1],
    ["until reaching max_iterations", "steps:\n  - id: u\n    until: 'false'\n    max_iterations: 1\n    steps:\n      - jq: '.'\n", "step 'u': reached max_iterations (1) without satisfying 'until'", 1],
    ["with: not an object", "steps:\n  - id: c\n    workflow: ../echo.yml\n    with: '\"x\"'\n", "step 'c': 'with' must produce an object, got a string", 1],
    ["unregistered workflow name", "steps:\n  - id: c\n    workflow: missing-flow\n", "step 'c': workflow 'missing-flow' is not registered under 'workflows:' in lait.config.yml; use a path such as './missing-flow.yml' for a file", 1],
    ["non-zero exit", "steps:\n  - id: r\n    run: [sh, -c, 'echo oops >&2; exit 4']\n", "step 'r': command 'sh' exited with exit status: 4: oops", 1],
    ["program not found", "steps:\n  - id: r\n    run: [lait-missing-program]\n", "step 'r': failed to run command 'lait-missing-program': No such file or directory (os error 2)", 1],
    ["write into a missing directory", "steps:\n  - id: w\n    write: nowhere/x.txt\n", "step 'w': failed to write output to 'nowhere/x.txt': No such file or directory (os error 2)", 1],
    ["ask without terminal or default", "steps:\n  - id: a\n    ask: 'Name?'\n", "step 'a': stdin is not an interactive terminal and no 'default:' is set; an 'ask' step has no way to get an answer", 1],
    ["step timeout", "steps:\n  - id: t\n    run: [sleep, '5']\n    timeout: 1\n", "step 't' timed out after 1s (attempt 1/1)", 5],
    ["model step without a model", "steps:\n  - id: m\n    prompt: 'hi'\n", "model is required for step 'm' (no lait.config.yml found from '<cwd>' upward); set 'model' on the step or the workflow's default.model", 1]
  ]
  for (const [title, yaml, message, code] of cases) {
    test(title, async () => {
      write("echo.yml", "steps:\n  - jq: '.'\n")
      const file = write(`errors/${title.replace(/\W+/g, "-")}.yml`, yaml)
      const r = await lait(["run", file, "x"])
      expect({ code: r.code, stdout: r.stdout, last: r.stderr.trimEnd().split("\n").at(-1) }).toEqual({
        code,
        stdout: "",
        last: `lait: ${message.replace("<cwd>", cwd)}`
      })
    })
  }

  test("a cycle is found before the child is opened", async () => {
    const file = write("cycle.yml", "steps:\n  - id: again\n    workflow: ./cycle.yml\n")
    const r = await lait(["run", file, "x"])
    expect(r.code).toBe(1)
    expect(r.stderr.trimEnd().split("\n").at(-1)).toBe(
      `lait: step 'again': 'workflow: ${file}' would create a cycle ('${file}' is already running)`
    )
  })
})

describe("time and concurrency", () => {
  test("the file's timeout cancels the run (exit 5) and kills the running command", async () => {
    const pidFile = path.join(cwd, "timeout.pid")
    const file = write(
      "timeout.yml",
      `timeout: 1\nsteps:\n  - id: s\n    run: [sh, -c, 'echo $$ > "$0"; exec sleep 30', '${pidFile}']\n`
    )
    const r = await lait(["run", file, "x"])
    expect(outcome(r)).toEqual({
      code: 5,
      stdout: "",
      stderr: "[1] s\nlait: the workflow's 'timeout' (1s) was exceeded; cancelling the run\n" +
        "lait: step 's': command 'sh' was cancelled\n"
    })
    const pid = Number(fs.readFileSync(pidFile, "utf8").trim())
    expect(await waitFor(() => !alive(pid), 2000)).toBe(true)
  })

  test("for_each with max_concurrency: 4 runs 8 items four at a time", async () => {
    const log = path.join(cwd, "concurrency.log")
    const file = write(
      "concurrent.yml",
      `
steps:
  - for_each: '[range(8)]'
    max_concurrency: 4
    steps:
      - run: [sh, -c, 'echo "start $1 $(date +%s%N)" >> "$0"; sleep 0.6; echo "end $1 $(date +%s%N)" >> "$0"', '${log}', '{{ input }}']
  - jq: 'length'
`
    )
    const r = await lait(["run", file, "x"])
    expect(outcome(r).stdout).toBe("8\n")
    const events = fs.readFileSync(log, "utf8").trim().split("\n").map((line) => {
      const [kind, item, at] = line.split(" ")
      return { kind: kind!, item: Number(item), at: BigInt(at!) }
    })
    expect(events.filter((e) => e.kind === "start").map((e) => e.item).sort()).toEqual([0, 1, 2, 3, 4, 5, 6, 7])
    // Replay the start/end timestamps: the number of items running at once reaches 4 and never more.
    events.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : a.kind === "end" ? -1 : 1))
    let running = 0
    let peak = 0
    for (const event of events) {
      running += event.kind === "start" ? 1 : -1
      peak = Math.max(peak, running)
    }
    expect(peak).toBe(4)
    // Every item overlapped with at least one other: none ran alone. (Each sleeps 0.6 s: a loaded CI
    // machine has taken longer than 0.2 s to refill a slot, leaving the last item running alone.)
    const intervals = [...Array(8).keys()].map((item) => ({
      start: events.find((e) => e.item === item && e.kind === "start")!.at,
      end: events.find((e) => e.item === item && e.kind === "end")!.at
    }))
    for (const [i, own] of intervals.entries()) {
      expect(intervals.some((other, j) => j !== i && other.start < own.end && own.start < other.end)).toBe(true)
    }
  })

  test("Ctrl-C during a long run step: exit 130 and the child process is gone", async () => {
    const pidFile = path.join(cwd, "ctrl-c.pid")
    const file = write(
      "ctrl-c.yml",
      `steps:\n  - id: long\n    run: [sh, -c, 'echo $$ > "$0"; exec sleep 60', '${pidFile}']\n`
    )
    const child = Bun.spawn([...laitCommand(), "run", file, "x"], {
      cwd,
      env: env(),
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe"
    })
    const stderr = new Response(child.stderr).text()
    expect(await waitFor(() => fs.existsSync(pidFile) && fs.readFileSync(pidFile, "utf8").trim() !== "", 20_000)).toBe(
      true
    )
    const grandchild = Number(fs.readFileSync(pidFile, "utf8").trim())
    expect(alive(grandchild)).toBe(true)
    child.kill("SIGINT")
    expect(await child.exited).toBe(130)
    expect(await stderr).toContain("lait: received Ctrl-C, stopping (press Ctrl-C again to exit immediately)...")
    expect(await waitFor(() => !alive(grandchild), 2000)).toBe(true)
  }, 40_000)
})
