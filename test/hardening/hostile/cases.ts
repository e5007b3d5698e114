// The hostile-input corpus (issue 12): each case is one lait invocation on a bad input, with the exit
// code and the exact error the user must see. Inputs live in files/ (copied into a fresh workspace per
// case); big or special files (16 MiB, invalid UTF-8, FIFOs, sockets, symlinks) are made by `setup`.
// `${WS}` in an expected message stands for the workspace's real path (config errors name absolute
// paths). Run by ../hostile.test.ts against the compiled binary.
import * as fs from "node:fs"
import * as net from "node:net"
import * as path from "node:path"
import { deepCases } from "./deep.ts"
import { laitFileCases } from "./laitFiles.ts"
import { untrustedCases } from "./untrusted.ts"

/** The request key of files/shared/llm.yml run with the input "hi" (the name its cassette must have). */
export const LLM_KEY = "44e3e281b2bf16bf185d63953cee3f4d8f4d08a81af0a20692171f1e92d2157c"

export const READ_LIMIT = 16 * 1024 * 1024

/** One passing case of a `lait eval --format json` report, numbered `n`. */
const mergeCase = (n: number) => ({
  case: n,
  input: "x",
  passed: 1,
  total: 1,
  success_rate: 1,
  runs: [{ passed: true, failures: [] }],
  k: 1,
  not_started: 0
})
const LIMIT_TEXT = `file contents exceed the configured read limit of ${READ_LIMIT} bytes`
const CTRL_C = "\nlait: received Ctrl-C, stopping (press Ctrl-C again to exit immediately)...\n"

export interface Workspace {
  readonly dir: string
  /** Starts something that lives for the case (a FIFO writer, a socket server); stopped afterwards. */
  readonly keep: (stop: () => void) => void
}

export interface Running {
  readonly pid: number
  readonly ws: Workspace
  /** What lait has written to stderr so far. */
  readonly stderr: () => string
}

export interface HostileCase {
  readonly name: string
  readonly args: ReadonlyArray<string>
  /** Working directory, relative to the workspace (default: the workspace). */
  readonly cwd?: string
  readonly stdin?: string | Uint8Array
  /** Extra copies: workspace path ← path under files/ (e.g. a config file placed as lait.config.yml). */
  readonly place?: Readonly<Record<string, string>>
  /** Makes generated or special files, before the workspace is snapshotted. */
  readonly setup?: (ws: Workspace) => void | Promise<void>
  /** Runs while lait runs (a Ctrl-C, a FIFO writer). */
  readonly during?: (run: Running) => Promise<void>
  /** Checks on the workspace after lait ended (what a FIFO reader received). */
  readonly after?: (ws: Workspace) => void | Promise<void>
  readonly exit: number
  /**
   * The error: the one `lait: ` line (exact string, `${WS}` substituted, or a pattern over the line).
   * `null` for a case that must succeed.
   */
  readonly error: string | RegExp | null
  /** stderr may start with the engine's progress lines (`[1] step`), printed before a run fails. */
  readonly progress?: boolean
  /**
   * The documented report of `lait test` / `lait lint` failures: stdout, line for line (each exact, or
   * a pattern); stderr still holds only the one `lait: ` summary line.
   */
  readonly report?: ReadonlyArray<string | RegExp>
  /** Exact stderr (`${WS}` substituted), for the few outcomes that are not an error line (a Ctrl-C, warnings). */
  readonly stderrExact?: string
  readonly stdout?: string
  /** Workspace paths the command may create or change; everything else must stay as it was. */
  readonly writes?: ReadonlyArray<string>
  /** Run as an unprivileged user (uid 65534 through `setpriv`) when the tests run as root. */
  readonly unprivileged?: boolean
}

// ---------------------------------------------------------------------------------------------------
// Helpers for generated inputs

const write = (ws: Workspace, rel: string, data: string | Uint8Array) => {
  const full = path.join(ws.dir, rel)
  fs.mkdirSync(path.dirname(full), { recursive: true })
  fs.writeFileSync(full, data)
}

/** A file of exactly `size` bytes that is a valid workflow (`steps: [jq: .]` then a comment). */
const paddedWorkflow = (size: number): Uint8Array => {
  const head = "steps:\n  - jq: .\n#"
  const bytes = new Uint8Array(size)
  bytes.fill("x".charCodeAt(0))
  bytes.set(new TextEncoder().encode(head), 0)
  bytes[size - 1] = "\n".charCodeAt(0)
  return bytes
}

/** A sparse file of `size` bytes: costs no disk, and lait must refuse it before reading it. */
const sparse = (ws: Workspace, rel: string, size: number) => {
  const full = path.join(ws.dir, rel)
  fs.mkdirSync(path.dirname(full), { recursive: true })
  fs.writeFileSync(full, "")
  fs.truncateSync(full, size)
}

const mkfifo = (ws: Workspace, rel: string) => {
  const full = path.join(ws.dir, rel)
  fs.mkdirSync(path.dirname(full), { recursive: true })
  const r = Bun.spawnSync(["mkfifo", full])
  if (r.exitCode !== 0) throw new Error(`mkfifo ${full} failed: ${r.stderr.toString()}`)
}

/** A listening Unix socket at `rel`, closed after the case. */
const unixSocket = async (ws: Workspace, rel: string) => {
  const full = path.join(ws.dir, rel)
  const server = net.createServer((c) => c.end())
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject)
    server.listen(full, () => resolve())
  })
  ws.keep(() => server.close())
}

/** Writes `text` into a FIFO from another process (a blocking open would stall the test runner). */
const fifoWriter = (ws: Workspace, rel: string, text: string) => {
  const child = Bun.spawn(["sh", "-c", 'printf "%s" "$1" > "$2"', "sh", text, path.join(ws.dir, rel)], {
    stdin: "ignore",
    stdout: "ignore",
    stderr: "ignore"
  })
  ws.keep(() => child.kill("SIGKILL"))
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Resolves once lait's stderr contains `text` (a progress line: lait is past start-up). */
const printed = async (run: Running, text: string) => {
  const deadline = Date.now() + 15_000
  while (!run.stderr().includes(text) && Date.now() < deadline) await sleep(25)
}

/** Copies what a FIFO delivers into `into` from another process, so the test can check it after. */
/** The FIFO readers still running, by the file each writes: lait's exit does not wait for them. */
const readers = new Map<string, Promise<number>>()

const fifoReader = (ws: Workspace, rel: string, into: string) => {
  const child = Bun.spawn(["sh", "-c", 'cat "$1" > "$2"', "sh", path.join(ws.dir, rel), path.join(ws.dir, into)], {
    stdin: "ignore",
    stdout: "ignore",
    stderr: "ignore"
  })
  readers.set(path.join(ws.dir, into), child.exited)
  ws.keep(() => child.kill("SIGKILL"))
}

/**
 * What a FIFO reader wrote to `rel`, once it has written all of it: on a busy machine `cat` may still
 * be copying after lait has closed the FIFO and exited. The bound only catches a reader that never
 * saw the end of the FIFO.
 */
const readerOutput = async (ws: Workspace, rel: string): Promise<string> => {
  const full = path.join(ws.dir, rel)
  let timer: ReturnType<typeof setTimeout> | undefined
  const bound = new Promise<"timeout">((resolve) => (timer = setTimeout(() => resolve("timeout"), 30_000)))
  const done = await Promise.race([readers.get(full), bound]).finally(() => clearTimeout(timer))
  if (done === "timeout") throw new Error(`gave up after 30000 ms waiting for the FIFO reader writing '${rel}' to end`)
  readers.delete(full)
  return readBack(ws, rel)
}

const readBack = (ws: Workspace, rel: string) => fs.readFileSync(path.join(ws.dir, rel), "utf8")

const expectFifo = (ws: Workspace, rel: string) => {
  if (!fs.lstatSync(path.join(ws.dir, rel)).isFIFO()) throw new Error(`'${rel}' is no longer a FIFO`)
}

/**
 * Resolves once process `pid` holds `full` open (read from /proc), so a Ctrl-C lands while lait waits
 * on it rather than during start-up; without /proc, after a generous pause.
 */
const opened = async (pid: number, full: string) => {
  const fdDir = `/proc/${pid}/fd`
  const deadline = Date.now() + 10_000
  while (Date.now() < deadline) {
    if (!fs.existsSync("/proc/self/fd")) return sleep(3000)
    try {
      if (fs.readdirSync(fdDir).some((fd) => { try { return fs.readlinkSync(`${fdDir}/${fd}`) === full } catch { return false } })) return
    } catch {
      // the process has not started (or already ended); keep polling until the deadline
    }
    await sleep(25)
  }
}

const deeplyNested = (prefix: string, levels: number) => `${prefix}${"[".repeat(levels)}${"]".repeat(levels)}\n`

const wf = (file: string, detail: string, line?: number) =>
  `lait: failed to load workflow '${file}'${line === undefined ? "" : ` (line ${line})`}: ${detail}`

const config = (file: string, detail: string) => `lait: failed to parse YAML configuration file '${file}': ${detail}`

/** `lait run shared/llm.yml hi --replay DIR` missing its cassette: the hint names that run, recording. */
const noCassette = (dir: string, hint?: string) =>
  `lait: no recorded cassette for this request (model 'fake') at '${dir}/${LLM_KEY}.json'; ` +
  `run \`lait run shared/llm.yml --record-missing ${dir}\` first against the same input and vars, or check that ` +
  `they still match this recording${hint === undefined ? "" : `; ${hint}`}`

/**
 * `lait test`'s report for one file that could not run (its definition, or its cassette, is broken):
 * its ERROR line, the reason indented, the totals.
 */
const testReport = (file: string, reason: string | RegExp): ReadonlyArray<string | RegExp> => [
  `${file}: ERROR`,
  typeof reason === "string" ? `  ${reason}` : new RegExp(`^  ${reason.source.replace(/^\^/, "")}`),
  "0 passed, 0 failed, 1 error, 1 total"
]
const TEST_FAILED = "lait: 1 of 1 test file(s) could not run"

const ALIAS_BOMB = "Excessive alias count indicates a resource exhaustion attack"

// ---------------------------------------------------------------------------------------------------

export const cases: ReadonlyArray<HostileCase> = [
  // ---- malformed YAML (workflow files)
  {
    name: "workflow: tab indentation",
    args: ["run", "workflow/tab-indent.yml", "x"],
    exit: 3,
    error: wf("workflow/tab-indent.yml", "Tabs are not allowed as indentation at line 2, column 1")
  },
  {
    name: "workflow: unclosed double quote",
    args: ["run", "workflow/unclosed-quote.yml", "x"],
    exit: 3,
    error: wf("workflow/unclosed-quote.yml", 'Missing closing "quote at line 3, column 1')
  },
  {
    name: "workflow: unclosed flow sequence",
    args: ["run", "workflow/unclosed-flow.yml", "x"],
    exit: 3,
    error: wf("workflow/unclosed-flow.yml", "Flow sequence in block collection must be sufficiently indented and end with a ] at line 2, column 1")
  },
  {
    name: "workflow: duplicate top-level key",
    args: ["run", "workflow/duplicate-key.yml", "x"],
    exit: 3,
    error: wf("workflow/duplicate-key.yml", "duplicate entry with key \"steps\" at line 3, column 1")
  },
  {
    name: "workflow: empty file",
    args: ["run", "workflow/empty.yml", "x"],
    exit: 3,
    error: wf("workflow/empty.yml", "a workflow file must be a YAML mapping", 1)
  },
  {
    name: "workflow: only a comment",
    args: ["run", "workflow/comment-only.yml", "x"],
    exit: 3,
    error: wf("workflow/comment-only.yml", "a workflow file must be a YAML mapping", 1)
  },
  {
    name: "workflow: a stream of two YAML documents",
    args: ["run", "workflow/two-documents.yml", "x"],
    exit: 3,
    error: wf(
      "workflow/two-documents.yml",
      "deserializing from YAML containing more than one document is not supported at line 3, column 1"
    )
  },
  {
    name: "workflow: a JSON file holding an array",
    args: ["run", "workflow/not-a-mapping.json", "x"],
    exit: 3,
    error: wf("workflow/not-a-mapping.json", "a workflow file must be a YAML mapping", 1)
  },
  {
    name: "workflow: a JSON file with a string where the step list belongs",
    args: ["run", "workflow/steps-string.json", "x"],
    exit: 3,
    error: wf("workflow/steps-string.json", "steps: expected a list of steps, got a string", 1)
  },
  {
    name: "workflow: truncated JSON",
    args: ["run", "workflow/truncated.json", "x"],
    exit: 3,
    error: wf(
      "workflow/truncated.json",
      "Flow sequence in block collection must be sufficiently indented and end with a ] at line 2, column 1"
    )
  },
  {
    name: "workflow: alias to an anchor that does not exist",
    args: ["run", "workflow/unknown-alias.yml", "x"],
    exit: 3,
    error: wf("workflow/unknown-alias.yml", "unresolved alias '*nothing'", 2)
  },
  {
    name: "workflow: billion laughs (aliases of aliases) is refused without expanding it",
    args: ["run", "workflow/alias-bomb.yml", "x"],
    exit: 3,
    error: wf("workflow/alias-bomb.yml", `schemas.s: ${ALIAS_BOMB}`, 4)
  },
  {
    name: "workflow: 10 000 levels of [ nesting",
    args: ["run", "deep.yml", "x"],
    setup: (ws) => write(ws, "deep.yml", deeplyNested("steps:\n  - jq: .\ndescription: ", 10_000)),
    exit: 3,
    error: new RegExp(
      "^lait: failed to load workflow 'deep\\.yml': recursion limit exceeded: the YAML is nested too deeply at line 3, column \\d+$"
    )
  },
  {
    name: "workflow: invalid UTF-8",
    args: ["run", "bad-utf8.yml", "x"],
    setup: (ws) => write(ws, "bad-utf8.yml", new Uint8Array([...new TextEncoder().encode("steps:\n  - jq: \""), 0xff, 0xfe, 0x22, 0x0a])),
    exit: 1,
    error: "lait: failed to load workflow 'bad-utf8.yml': failed to read 'bad-utf8.yml': file contents were not valid UTF-8"
  },

  // ---- wrong types and unknown keys (workflow files)
  {
    name: "workflow: a number where a string belongs (name)",
    args: ["run", "workflow/name-number.yml", "x"],
    exit: 3,
    error: wf("workflow/name-number.yml", "invalid 'name': expected a string, got a number", 1)
  },
  {
    name: "workflow: null where the step list belongs",
    args: ["run", "workflow/steps-null.yml", "x"],
    exit: 3,
    error: wf("workflow/steps-null.yml", "steps: expected a list of steps, got null", 1)
  },
  {
    name: "workflow: a list where the inputs mapping belongs",
    args: ["run", "workflow/inputs-list.yml", "x"],
    exit: 3,
    error: wf("workflow/inputs-list.yml", "invalid 'inputs': expected a mapping of input names to JSON Schemas, got a list", 1)
  },
  {
    name: "workflow: a string where a number belongs (timeout)",
    args: ["run", "workflow/timeout-string.yml", "x"],
    exit: 3,
    error: wf("workflow/timeout-string.yml", "invalid 'timeout': expected a non-negative whole number, got a string", 1)
  },
  {
    name: "workflow: a number where a jq filter belongs",
    args: ["run", "workflow/jq-number.yml", "x"],
    exit: 3,
    error: wf("workflow/jq-number.yml", "steps[0]: invalid 'jq': expected a string, got a number", 2)
  },
  {
    name: "workflow: null where a step belongs",
    args: ["run", "workflow/step-null.yml", "x"],
    exit: 3,
    error: wf("workflow/step-null.yml", "steps[0]: a step must be a mapping", 2)
  },
  {
    name: "workflow: a string where a command list belongs (run)",
    args: ["run", "workflow/run-string.yml", "x"],
    exit: 3,
    error: wf("workflow/run-string.yml", "steps[0]: invalid 'run': expected a list of strings, got a string", 2)
  },
  {
    name: "workflow: a mapping where a nested step list belongs",
    args: ["run", "workflow/nested-steps-mapping.yml", "x"],
    exit: 3,
    error: wf("workflow/nested-steps-mapping.yml", "steps[0].steps: expected a list of steps, got a mapping", 3)
  },
  {
    name: "workflow: unknown step key",
    args: ["run", "workflow/unknown-key.yml", "x"],
    exit: 3,
    error: wf(
      "workflow/unknown-key.yml",
      "steps[0]: unknown field 'jq_flags'; 'jq' steps accept: jq, id, when, input, output, retry, timeout, on_error",
      3
    )
  },

  // ---- child workflows: cycles, depth, missing files
  {
    name: "workflow cycle: A uses B uses A",
    args: ["run", "workflow/cycle-a.yml", "x"],
    exit: 1,
    progress: true,
    error: "lait: step 'step-1 (workflow)': 'workflow: ${WS}/workflow/cycle-a.yml' would create a cycle " +
      "('${WS}/workflow/cycle-a.yml' is already running)"
  },
  {
    name: "workflow cycle: a workflow that runs itself",
    args: ["run", "workflow/self-cycle.yml", "x"],
    exit: 1,
    progress: true,
    error: "lait: step 'step-1 (workflow)': 'workflow: ${WS}/workflow/self-cycle.yml' would create a cycle " +
      "('${WS}/workflow/self-cycle.yml' is already running)"
  },
  {
    name: "workflow nesting: a chain of 40 child workflows stops at the depth limit",
    args: ["run", "chain/d0.yml", "x"],
    setup: (ws) => {
      for (let i = 0; i < 40; i++) write(ws, `chain/d${i}.yml`, `steps:\n  - workflow: ./d${i + 1}.yml\n`)
      write(ws, "chain/d40.yml", "steps:\n  - jq: .\n")
    },
    exit: 1,
    progress: true,
    error: "lait: step 'step-1 (workflow)': 'workflow:' nesting exceeded the maximum depth of 32"
  },
  {
    name: "workflow: a child workflow file that does not exist",
    args: ["run", "workflow/missing-child.yml", "x"],
    exit: 1,
    progress: true,
    error: "lait: step 'step-1 (workflow)': failed to resolve workflow file path '${WS}/workflow/no-such-child.yml': " +
      "No such file or directory (os error 2)"
  },

  // ---- jq
  {
    name: "jq: runtime error (indexing a string)",
    args: ["run", "jq/runtime-error.yml", "x"],
    exit: 1,
    progress: true,
    error: "lait: step 'step-1 (jq)': jq filter \".a.b\" failed: Cannot index string with string (\"a\")"
  },
  {
    name: "jq: error() raised by the filter",
    args: ["run", "jq/error-call.yml", "hello"],
    exit: 1,
    progress: true,
    error: "lait: step 'step-1 (jq)': jq filter \"error(\\\"refusing: \\\\(.)\\\")\" failed: refusing: hello"
  },
  {
    name: "jq: syntax error is caught at load time",
    args: ["run", "jq/syntax-error.yml", "x"],
    exit: 3,
    error: wf(
      "jq/syntax-error.yml",
      "steps[0]: 'jq': failed to parse jq filter \".a |\": syntax error, unexpected end of file at <top-level>, line 1, column 4",
      2
    )
  },
  {
    name: "jq: a 20 MB string output is refused at the 16 MiB output limit",
    args: ["run", "jq/huge-string.yml", "x"],
    exit: 1,
    progress: true,
    error: "lait: step 'step-1 (jq)': jq filter \"\\\"x\\\" * 20000000\": jq rendered output exceeds the configured limit of 16777216 bytes"
  },
  {
    // jq builds the whole rendered text in its own memory before lait sees a byte, so the 16 MiB
    // output limit cannot be reached first: the engine runs out of memory, and the message says so.
    name: "jq: a 3 000 000-item array output fails with an out-of-memory message, not a crash",
    args: ["run", "jq/huge-array.yml", "x"],
    exit: 1,
    progress: true,
    error: /^lait: step 'step-1 \(jq\)': jq filter ".*" failed: the jq engine aborted \(.*\); it ran out of memory or stack: values of tens of megabytes or nested a few hundred levels deep can exhaust it$/
  },

  {
    name: "jq: fromjson on 100 000 levels of nesting gives a short error",
    args: ["run", "jq/fromjson.yml"],
    stdin: `${"[".repeat(100_000)}${"]".repeat(100_000)}`,
    exit: 1,
    progress: true,
    error: `lait: step 'step-1 (jq)': jq filter "fromjson" failed: Exceeds depth limit for parsing at line 1, column 10001 (while parsing '${"[".repeat(40)}…')`
  },

  // ---- templates
  {
    name: "template: unknown variable under strict Handlebars",
    args: ["run", "template/unknown-variable.yml", "hi", "--replay", "empty-cassettes"],
    setup: (ws) => fs.mkdirSync(path.join(ws.dir, "empty-cassettes")),
    exit: 1,
    progress: true,
    error: "lait: failed to render template: \"Say {{ nope }}\": \"nope\" is not defined at line 1, column 8"
  },
  {
    name: "template: unknown step in the template",
    args: ["run", "template/unknown-step.yml", "hi", "--replay", "empty-cassettes"],
    setup: (ws) => fs.mkdirSync(path.join(ws.dir, "empty-cassettes")),
    exit: 1,
    progress: true,
    error: /^lait: failed to render template: "Say \{\{ steps\.missing \}\}": .*missing.*$/
  },
  {
    name: "template: unclosed {{ is caught at load time",
    args: ["run", "template/unclosed.yml", "hi"],
    exit: 3,
    error: /^lait: failed to load workflow 'template\/unclosed\.yml' \(line 9\): steps\[0\] \(id 'ask'\): 'prompt': failed to parse template: "Say \{\{ input ": Parse error on line 1: .*got 'EOF'$/
  },

  // ---- --input and stdin
  {
    name: "--input without '='",
    args: ["run", "inputs/typed.yml", "--input", "count"],
    exit: 2,
    error: "lait: invalid --input \"count\": expected KEY=VALUE"
  },
  {
    name: "--input with an empty key",
    args: ["run", "inputs/typed.yml", "--input", "=3"],
    exit: 2,
    error: "lait: invalid --input \"=3\": the key is empty"
  },
  {
    name: "--input for an input the workflow does not declare",
    args: ["run", "inputs/typed.yml", "--input", "count=3", "--input", "name=x", "--input", "colour=red"],
    exit: 1,
    error: "lait: unknown input 'colour'; the workflow declares: count, name"
  },
  {
    name: "--input for a workflow without inputs:",
    args: ["run", "inputs/plain.yml", "x", "--input", "a=1"],
    exit: 1,
    error: "lait: input 'a' was provided, but the workflow declares no 'inputs:'"
  },
  {
    name: "--input value of the wrong type for its schema",
    args: ["run", "inputs/typed.yml", "--input", "count=many", "--input", "name=x"],
    exit: 1,
    error: "lait: inputs.count must be of type integer (got string)"
  },
  {
    name: "--input: a required input is missing",
    args: ["run", "inputs/typed.yml", "--input", "name=x"],
    exit: 1,
    error: "lait: missing required input 'count' (how many)"
  },
  {
    name: "stdin: JSON of the wrong shape for input_schema",
    args: ["run", "inputs/object-input.yml"],
    stdin: "[1, 2]\n",
    exit: 1,
    error: "lait: input must be of type object (got array)"
  },
  {
    name: "stdin: not JSON where input_schema wants an object",
    args: ["run", "inputs/object-input.yml"],
    stdin: "hello\n",
    exit: 1,
    error: /^lait: the initial input must be JSON matching the workflow's 'input_schema': JSON Parse error: .+$/
  },
  {
    name: "stdin: invalid UTF-8",
    args: ["run", "inputs/object-input.yml"],
    stdin: new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]),
    exit: 1,
    error: "lait: failed to read from stdin: stream did not contain valid UTF-8"
  },
  {
    name: "stdin: 100 000 levels of JSON nesting",
    args: ["run", "inputs/object-input.yml"],
    stdin: `{"subject": ${"[".repeat(100_000)}${"]".repeat(100_000)}}`,
    exit: 1,
    error: "lait: input.subject must be of type string (got array)"
  },
  {
    name: "--input: 50 000 levels of JSON nesting",
    args: ["run", "inputs/typed.yml", "--input", `count=${"[".repeat(50_000)}${"]".repeat(50_000)}`, "--input", "name=x"],
    exit: 1,
    error: "lait: inputs.count must be of type integer (got array)"
  },
  {
    name: "stdin: an object missing a required property",
    args: ["run", "inputs/object-input.yml"],
    stdin: "{\"body\": \"no subject\"}",
    exit: 1,
    error: "lait: input is missing required field(s): subject"
  },

  // ---- sizes and special files
  {
    name: "16 MiB exactly is read",
    args: ["run", "big.yml", "x"],
    setup: (ws) => write(ws, "big.yml", paddedWorkflow(READ_LIMIT)),
    exit: 0,
    progress: true,
    error: null,
    stdout: "x\n"
  },
  {
    name: "16 MiB + 1 (written) is refused",
    args: ["run", "big.yml", "x"],
    setup: (ws) => write(ws, "big.yml", paddedWorkflow(READ_LIMIT + 1)),
    exit: 1,
    error: `lait: failed to load workflow 'big.yml': failed to read 'big.yml': ${LIMIT_TEXT}`
  },
  {
    name: "16 MiB + 1 (sparse) is refused",
    args: ["run", "sparse.yml", "x"],
    setup: (ws) => sparse(ws, "sparse.yml", READ_LIMIT + 1),
    exit: 1,
    error: `lait: failed to load workflow 'sparse.yml': failed to read 'sparse.yml': ${LIMIT_TEXT}`
  },
  {
    name: "FIFO with no writer: lait run waits, and Ctrl-C stops the wait",
    args: ["run", "pipe.yml", "x"],
    setup: (ws) => mkfifo(ws, "pipe.yml"),
    during: async ({ pid, ws }) => {
      await opened(pid, path.join(ws.dir, "pipe.yml"))
      await sleep(200)
      process.kill(pid, "SIGINT")
    },
    exit: 130,
    error: null,
    stderrExact: CTRL_C
  },
  {
    name: "FIFO whose writer sends invalid YAML",
    args: ["run", "pipe.yml", "x"],
    setup: (ws) => {
      mkfifo(ws, "pipe.yml")
      fifoWriter(ws, "pipe.yml", "steps: [unclosed\n")
    },
    exit: 3,
    error: wf("pipe.yml", "Flow sequence in block collection must be sufficiently indented and end with a ] at line 2, column 1")
  },
  {
    name: "FIFO with no writer: lait lint fails at once (documented report format)",
    args: ["lint", "pipe.yml"],
    setup: (ws) => mkfifo(ws, "pipe.yml"),
    exit: 3,
    report: ["pipe.yml:", "  error: failed to read 'pipe.yml': it is a FIFO with no writer"],
    error: "lait: 1 of 1 file(s) had errors"
  },
  {
    name: "FIFO with no writer: lait trace show fails at once",
    args: ["trace", "show", "pipe.jsonl"],
    setup: (ws) => mkfifo(ws, "pipe.jsonl"),
    exit: 1,
    error: "lait: failed to read trace file 'pipe.jsonl': it is a FIFO with no writer"
  },
  {
    name: "FIFO as a test target",
    args: ["test", "pipe.yml"],
    setup: (ws) => mkfifo(ws, "pipe.yml"),
    exit: 1,
    error: "lait: test target 'pipe.yml' is not a regular file or directory"
  },
  {
    name: "Unix socket as the workflow",
    args: ["run", "lait.sock", "x"],
    setup: (ws) => unixSocket(ws, "lait.sock"),
    exit: 1,
    error: "lait: failed to load workflow 'lait.sock': failed to read 'lait.sock': not a readable file (a socket or a device with nothing attached)"
  },
  {
    name: "Unix socket as --config",
    args: ["--config", "lait.sock", "run", "inputs/plain.yml", "x"],
    setup: (ws) => unixSocket(ws, "lait.sock"),
    exit: 1,
    error: "lait: failed to read YAML configuration file '${WS}/lait.sock': not a readable file (a socket or a device with nothing attached)"
  },
  {
    name: "symlink loop as the workflow",
    args: ["run", "loop-a.yml", "x"],
    setup: (ws) => {
      fs.symlinkSync("loop-b.yml", path.join(ws.dir, "loop-a.yml"))
      fs.symlinkSync("loop-a.yml", path.join(ws.dir, "loop-b.yml"))
    },
    exit: 1,
    error: "lait: failed to load workflow 'loop-a.yml': failed to read 'loop-a.yml': too many levels of symbolic links"
  },
  {
    name: "dangling symlink as the workflow",
    args: ["run", "dangling.yml", "x"],
    setup: (ws) => fs.symlinkSync("gone.yml", path.join(ws.dir, "dangling.yml")),
    exit: 1,
    error: "lait: failed to load workflow 'dangling.yml': failed to read 'dangling.yml': no such file or directory"
  },
  {
    name: "a directory where the workflow file belongs",
    args: ["run", "workflow", "x"],
    exit: 1,
    error: "lait: failed to load workflow 'workflow': failed to read 'workflow': is a directory"
  },
  {
    name: "a workflow without read permission",
    args: ["run", "locked.yml", "x"],
    setup: (ws) => {
      write(ws, "locked.yml", "steps:\n  - jq: .\n")
      fs.chmodSync(path.join(ws.dir, "locked.yml"), 0o000)
    },
    // Permission bits do not stop root: as root, the case runs as nobody.
    unprivileged: true,
    exit: 1,
    error: "lait: failed to load workflow 'locked.yml': failed to read 'locked.yml': permission denied"
  },
  {
    name: "a test directory holding only a FIFO, a socket and a symlink loop: skipped, nothing opened, no tests is an error",
    args: ["test", "specials"],
    setup: async (ws) => {
      mkfifo(ws, "specials/pipe.yml")
      await unixSocket(ws, "specials/socket.yml")
      fs.symlinkSync("loop-b.yml", path.join(ws.dir, "specials/loop-a.yml"))
      fs.symlinkSync("loop-a.yml", path.join(ws.dir, "specials/loop-b.yml"))
    },
    // Nothing there is a test file, and a suite of zero tests is an error, not a green run.
    exit: 1,
    error: "lait: no test files found in 'specials'",
    stdout: ""
  },
  {
    name: "a lint directory holding only a FIFO, a socket and a symlink loop: skipped, nothing opened",
    args: ["lint", "specials"],
    setup: async (ws) => {
      mkfifo(ws, "specials/pipe.yml")
      await unixSocket(ws, "specials/socket.yml")
      fs.symlinkSync("loop-b.yml", path.join(ws.dir, "specials/loop-a.yml"))
      fs.symlinkSync("loop-a.yml", path.join(ws.dir, "specials/loop-b.yml"))
    },
    exit: 0,
    error: null
  },
  {
    name: "a symlink as a test target",
    args: ["test", "link.yml"],
    setup: (ws) => fs.symlinkSync("tests/empty.yml", path.join(ws.dir, "link.yml")),
    exit: 1,
    error: "lait: test target 'link.yml' is a symbolic link; pass a regular file or directory"
  },

  // ---- cassettes (replayed by `lait run --replay` and `lait test`)
  {
    name: "cassette: truncated JSON",
    args: ["run", "shared/llm.yml", "hi", "--replay", "cassettes/truncated"],
    exit: 1,
    progress: true,
    error: new RegExp(
      `^lait: failed to parse cassette entry 'cassettes/truncated/${LLM_KEY}\\.json': not valid JSON \\(JSON Parse error: .+\\)$`
    )
  },
  {
    name: "cassette: no 'response'",
    args: ["run", "shared/llm.yml", "hi", "--replay", "cassettes/no-response"],
    exit: 1,
    progress: true,
    error: `lait: failed to parse cassette entry 'cassettes/no-response/${LLM_KEY}.json': missing field 'response'`
  },
  {
    name: "cassette: 'response' of the wrong types",
    args: ["run", "shared/llm.yml", "hi", "--replay", "cassettes/wrong-types"],
    exit: 1,
    progress: true,
    error: `lait: failed to parse cassette entry 'cassettes/wrong-types/${LLM_KEY}.json': ` +
      "its 'response' is not a chat completion lait can read"
  },
  {
    name: "cassette: 'response' is null",
    args: ["run", "shared/llm.yml", "hi", "--replay", "cassettes/null-response"],
    exit: 1,
    progress: true,
    error: `lait: failed to parse cassette entry 'cassettes/null-response/${LLM_KEY}.json': ` +
      "its 'response' is not a chat completion lait can read"
  },
  {
    name: "cassette: a JSON array instead of an object",
    args: ["run", "shared/llm.yml", "hi", "--replay", "cassettes/array"],
    exit: 1,
    progress: true,
    error: `lait: failed to parse cassette entry 'cassettes/array/${LLM_KEY}.json': expected a JSON object`
  },
  {
    name: "cassette: empty file",
    args: ["run", "shared/llm.yml", "hi", "--replay", "cassettes/empty"],
    exit: 1,
    progress: true,
    error: `lait: failed to parse cassette entry 'cassettes/empty/${LLM_KEY}.json': the file is empty`
  },
  {
    name: "cassette: a directory named like the cassette",
    args: ["run", "shared/llm.yml", "hi", "--replay", "cassettes/dir"],
    setup: (ws) => fs.mkdirSync(path.join(ws.dir, "cassettes/dir", `${LLM_KEY}.json`), { recursive: true }),
    exit: 1,
    progress: true,
    error: `lait: failed to read cassette 'cassettes/dir/${LLM_KEY}.json': is a directory`
  },
  {
    name: "cassette directory holding a FIFO named *.json (the replay-miss hint must not block on it)",
    args: ["run", "shared/llm.yml", "hi", "--replay", "cassettes/fifo"],
    setup: (ws) => mkfifo(ws, "cassettes/fifo/0000.json"),
    exit: 1,
    progress: true,
    error: noCassette("cassettes/fifo")
  },
  {
    name: "cassette: the recording is for another request (the miss names the difference)",
    args: ["run", "shared/llm.yml", "hi", "--replay", "cassettes/other-request"],
    exit: 1,
    progress: true,
    error: new RegExp(
      `^${escape(noCassette("cassettes/other-request"))}; the closest recording, 'cassettes/other-request/0{64}\\.json', differs at model_id \\(recorded "other", requested "fake"\\)$`
    )
  },
  {
    name: "--replay pointing at a file",
    args: ["run", "shared/llm.yml", "hi", "--replay", "shared/llm.yml"],
    exit: 1,
    progress: true,
    error: noCassette("shared/llm.yml", "'shared/llm.yml' is a file, not a cassette directory")
  },
  {
    name: "test: replay: points at a file instead of a directory (documented report format)",
    args: ["test", "tests/replay-is-a-file.yml"],
    exit: 1,
    report: testReport(
      "tests/replay-is-a-file.yml",
      `workflow 'tests/../shared/llm.yml': no recorded cassette for this request (model 'fake') at 'shared/llm.yml/${LLM_KEY}.json'; ` +
        "run `lait test tests/replay-is-a-file.yml --record-missing` first against the test files' workflows and " +
        "inputs, or check that they still match this recording; 'tests/../shared/llm.yml' is a file, not a cassette " +
        "directory"
    ),
    error: TEST_FAILED
  },
  {
    name: "test: replays a truncated cassette (documented report format)",
    args: ["test", "tests/truncated-cassette.yml"],
    exit: 1,
    report: testReport(
      "tests/truncated-cassette.yml",
      new RegExp(`^workflow 'tests/\\.\\./shared/llm\\.yml': failed to parse cassette entry 'cassettes/truncated/${LLM_KEY}\\.json': not valid JSON \\(.+\\)$`)
    ),
    error: TEST_FAILED
  },

  // ---- test definition files (failures are reported per file: the documented report format)
  {
    name: "test file: a list where the workflow path belongs",
    args: ["test", "tests/workflow-list.yml"],
    exit: 1,
    report: testReport("tests/workflow-list.yml", "failed to parse test definition 'tests/workflow-list.yml': workflow: expected string (line 1)"),
    error: TEST_FAILED
  },
  {
    name: "test file: a string where the assertion list belongs",
    args: ["test", "tests/assert-string.yml"],
    exit: 1,
    report: testReport(
      "tests/assert-string.yml",
      "failed to parse test definition 'tests/assert-string.yml': assert: expected array | null (line 3)"
    ),
    error: TEST_FAILED
  },
  {
    name: "test file: unknown key",
    args: ["test", "tests/unknown-key.yml"],
    exit: 1,
    report: testReport(
      "tests/unknown-key.yml",
      "failed to parse test definition 'tests/unknown-key.yml': unknown key 'expect'; test definitions accept: workflow, exec, input_mode, env, timeout, http, output_jq, input, inputs, replay, replay_tools, assert, workdir, fixtures (line 3)"
    ),
    error: TEST_FAILED
  },
  {
    name: "test file: empty",
    args: ["test", "tests/empty.yml"],
    exit: 1,
    report: testReport("tests/empty.yml", "failed to parse test definition 'tests/empty.yml': a test definition must be a YAML mapping, got null"),
    error: TEST_FAILED
  },
  {
    name: "test file: a list instead of a mapping",
    args: ["test", "tests/not-a-mapping.yml"],
    exit: 1,
    report: testReport(
      "tests/not-a-mapping.yml",
      "failed to parse test definition 'tests/not-a-mapping.yml': a test definition must be a YAML mapping, got a list (line 1)"
    ),
    error: TEST_FAILED
  },
  {
    name: "test file: an input value of the wrong type",
    args: ["test", "tests/inputs-wrong-type.yml"],
    exit: 1,
    report: testReport("tests/inputs-wrong-type.yml", "inputs.count must be of type integer (got string)"),
    error: TEST_FAILED
  },
  {
    name: "test file: unknown assertion type",
    args: ["test", "tests/assert-unknown-type.yml"],
    exit: 1,
    report: testReport(
      "tests/assert-unknown-type.yml",
      /^failed to parse test definition 'tests\/assert-unknown-type\.yml': assert\[0\]\.type: unknown assertion type 'looks_good'; expected one of: .+ \(line 4\)$/
    ),
    error: TEST_FAILED
  },
  {
    name: "test file: two YAML documents",
    args: ["test", "tests/two-documents.yml"],
    exit: 1,
    report: testReport(
      "tests/two-documents.yml",
      "failed to parse test definition 'tests/two-documents.yml': deserializing from YAML containing more than one document is not supported (line 3)"
    ),
    error: TEST_FAILED
  },

  // ---- eval definition files
  {
    name: "eval: a string where the case list belongs",
    args: ["eval", "eval/cases-string.yml"],
    exit: 3,
    error: "lait: failed to parse eval definition 'eval/cases-string.yml': cases: expected array, got a string (line 2)"
  },
  {
    // A case's `input` may be any YAML value (docs/evals.md); its `name` must be text.
    name: "eval: a list where the case name belongs",
    args: ["eval", "eval/name-list.yml"],
    exit: 3,
    error: "lait: failed to parse eval definition 'eval/name-list.yml': cases[0].name: expected string, got a list (line 3)"
  },
  {
    name: "eval: null where the target belongs",
    args: ["eval", "eval/target-null.yml"],
    exit: 3,
    error: "lait: failed to parse eval definition 'eval/target-null.yml': target: expected a mapping, either {workflow, inputs?} or {model, prompt}, got null (line 1)"
  },
  {
    name: "eval: unknown key",
    args: ["eval", "eval/unknown-key.yml"],
    exit: 3,
    error: "lait: failed to parse eval definition 'eval/unknown-key.yml': unknown key 'repeat'; eval definitions accept: target, targets, cases, default_assert (line 3)"
  },
  {
    name: "eval: a number where an assertion value belongs",
    args: ["eval", "eval/assert-value-number.yml"],
    exit: 3,
    error: "lait: failed to parse eval definition 'eval/assert-value-number.yml': cases[0].assert[0].value: expected string, got a number (line 4)"
  },
  {
    name: "eval: a list where the prompt template belongs",
    args: ["eval", "eval/prompt-list.yml"],
    exit: 3,
    error: "lait: failed to parse eval definition 'eval/prompt-list.yml': target.prompt: expected string, got a list (line 1)"
  },
  {
    name: "eval: empty file",
    args: ["eval", "eval/empty.yml"],
    exit: 3,
    error: "lait: failed to parse eval definition 'eval/empty.yml': an eval definition must be a YAML mapping, got null"
  },
  {
    name: "eval: a list instead of a mapping",
    args: ["eval", "eval/list.yml"],
    exit: 3,
    error: "lait: failed to parse eval definition 'eval/list.yml': an eval definition must be a YAML mapping, got a list (line 1)"
  },
  {
    name: "eval: tab indentation",
    args: ["eval", "eval/tab-indent.yml"],
    exit: 3,
    error: "lait: failed to parse eval definition 'eval/tab-indent.yml': Tabs are not allowed as indentation (line 2)"
  },
  {
    name: "eval: two YAML documents",
    args: ["eval", "eval/two-documents.yml"],
    exit: 3,
    error: "lait: failed to parse eval definition 'eval/two-documents.yml': " +
      "deserializing from YAML containing more than one document is not supported (line 3)"
  },
  {
    name: "eval: 10 000 levels of [ nesting",
    args: ["eval", "deep-eval.yml"],
    setup: (ws) => write(ws, "deep-eval.yml", deeplyNested("target: {workflow: inputs/plain.yml}\ncases: ", 10_000)),
    exit: 3,
    error: "lait: failed to parse eval definition 'deep-eval.yml': recursion limit exceeded: the YAML is nested too deeply (line 2)"
  },
  // ---- eval merge: absurd numbers in a report bound neither memory nor time (issue 36)
  {
    name: "eval merge: a case numbered 1e9",
    args: ["eval", "merge", "far.json"],
    setup: (ws) => write(ws, "far.json", JSON.stringify([mergeCase(1), mergeCase(1e9)])),
    exit: 3,
    error: "lait: invalid eval report 'far.json': case entry 2: case number 1000000000 is not between 1 and " +
      "10000000 (the most an eval holds)"
  },
  {
    name: "eval merge: a repeat count of 1e9 with one run",
    args: ["eval", "merge", "far.json"],
    setup: (ws) => write(ws, "far.json", JSON.stringify([{ ...mergeCase(1), k: 1e9 }])),
    exit: 3,
    error: "lait: invalid eval report 'far.json': case entry 1: 'k' (1000000000) is not the 1 run(s) plus 'not_started' (0)"
  },
  {
    name: "eval merge: a shard of 1e9 shards",
    args: ["eval", "merge", "far.json"],
    setup: (ws) =>
      write(ws, "far.json", JSON.stringify({
        cases: [mergeCase(1)],
        shard: { index: 1, count: 1e9, file: "e.yml", sha256: "0".repeat(64), cases: 1 }
      })),
    exit: 3,
    error: "lait: invalid eval report 'far.json': expected 'shard' as {index, count, file, sha256, cases} with " +
      "1 <= index <= count <= 10000 and cases <= 10000000"
  },
  {
    name: "eval merge: a shard's case beyond the eval's case count",
    args: ["eval", "merge", "far.json"],
    setup: (ws) =>
      write(ws, "far.json", JSON.stringify({
        cases: [mergeCase(7)],
        shard: { index: 1, count: 1, file: "e.yml", sha256: "0".repeat(64), cases: 3 }
      })),
    exit: 3,
    error: "lait: invalid eval report 'far.json': case entry 1: case number 7 is not between 1 and 3 (the eval's case count)"
  },
  {
    name: "eval merge: cases 1 and 9 999 999 — the gap is one range, not ten million numbers",
    args: ["eval", "merge", "gap.json", "-o", "merged.txt"],
    setup: (ws) => write(ws, "gap.json", JSON.stringify([mergeCase(1), mergeCase(4), mergeCase(9_999_999)])),
    exit: 0,
    error: null,
    stderrExact: "warning: no report holds case(s) 2-3, 5-9999998; is a shard missing?\n",
    writes: ["merged.txt"]
  },
  {
    name: "eval: a directory where the file belongs",
    args: ["eval", "eval"],
    exit: 1,
    error: "lait: failed to read eval definition 'eval': is a directory"
  },

  // ---- config files (lait.config.yml found in the working directory, or --config)
  ...([
    ["models-string", "models: expected object (line 1)"],
    ["model-entry-number", "models.m: expected array (line 2)"],
    ["default-null", "default: expected object (line 1)"],
    ["default-model-list", "default.model: expected string (line 2)"],
    ["unknown-key", "modles: unknown key (line 1)"],
    ["policy-string", "tool_policy.allow: expected array (line 2)"],
    ["cache-string", "default.cache: expected boolean (line 2)"],
    ["root-list", "a configuration file must be a YAML mapping, got a list (line 1)"],
    ["root-string", "a configuration file must be a YAML mapping, got a string (line 1)"],
    ["two-documents", "deserializing from YAML containing more than one document is not supported at line 2, column 1"],
    ["alias-bomb", ALIAS_BOMB]
  ] as const).map(([file, detail]): HostileCase => ({
    name: `config: ${file}.yml as lait.config.yml`,
    args: ["run", "inputs/plain.yml", "x"],
    place: { "lait.config.yml": `config/${file}.yml` },
    exit: 3,
    error: config("${WS}/lait.config.yml", detail)
  })),
  {
    name: "config: truncated JSON via --config",
    args: ["--config", "config/truncated.json", "run", "inputs/plain.yml", "x"],
    exit: 3,
    error: config("${WS}/config/truncated.json", "Flow map must end with a } at line 1, column 37")
  },
  {
    name: "config: mcp server with neither command nor url",
    args: ["run", "inputs/plain.yml", "x"],
    place: { "lait.config.yml": "config/mcp-neither.yml" },
    exit: 3,
    error: "lait: invalid configuration file '${WS}/lait.config.yml': mcp_servers.files has neither 'command' nor 'url'; " +
      "set exactly one (stdio vs. streamable HTTP) (line 2)"
  },
  {
    name: "config: both api_key and api_key_cmd",
    args: ["run", "inputs/plain.yml", "x"],
    place: { "lait.config.yml": "config/key-and-cmd.yml" },
    exit: 3,
    error: "lait: invalid configuration file '${WS}/lait.config.yml': top-level configuration sets both 'api_key' and 'api_key_cmd'; set exactly one (line 2)"
  },
  {
    name: "config: 10 000 levels of [ nesting",
    args: ["run", "inputs/plain.yml", "x"],
    setup: (ws) => write(ws, "lait.config.yml", deeplyNested("prompts:\n  p: ", 10_000)),
    exit: 3,
    error: new RegExp(
      "^lait: failed to parse YAML configuration file '\\$\\{WS\\}/lait\\.config\\.yml': recursion limit exceeded: the YAML is nested too deeply at line 2, column \\d+$"
    )
  },
  {
    name: "config: 16 MiB + 1 (sparse)",
    args: ["run", "inputs/plain.yml", "x"],
    setup: (ws) => sparse(ws, "lait.config.yml", READ_LIMIT + 1),
    exit: 1,
    error: `lait: failed to read YAML configuration file '\${WS}/lait.config.yml': ${LIMIT_TEXT}`
  },
  {
    name: "config: invalid UTF-8",
    args: ["run", "inputs/plain.yml", "x"],
    setup: (ws) => write(ws, "lait.config.yml", new Uint8Array([0x62, 0x61, 0x73, 0x65, 0x5f, 0x75, 0x72, 0x6c, 0x3a, 0x20, 0xc3, 0x28, 0x0a])),
    exit: 1,
    error: "lait: failed to read YAML configuration file '${WS}/lait.config.yml': file contents were not valid UTF-8"
  },
  {
    name: "config: --config names a directory",
    args: ["--config", "config", "run", "inputs/plain.yml", "x"],
    exit: 1,
    error: "lait: failed to read YAML configuration file '${WS}/config': is a directory"
  },
  {
    name: "config: --config names a missing file",
    args: ["--config", "config/nope.yml", "run", "inputs/plain.yml", "x"],
    exit: 1,
    error: "lait: failed to read YAML configuration file '${WS}/config/nope.yml': no such file or directory"
  },

  // ---- the working directory's .env and bunfig.toml are lait's business, not the Bun runtime's
  {
    name: ".env that is a symlink loop",
    args: ["run", "inputs/plain.yml", "x"],
    setup: (ws) => fs.symlinkSync(".env", path.join(ws.dir, ".env")),
    exit: 1,
    error: "lait: failed to read '${WS}/.env': too many levels of symbolic links"
  },
  {
    name: "--no-env: a .env in the working directory does not reach the run",
    args: ["--no-env", "run", "env/echo.yml", "x"],
    place: { ".env": "env/dotenv" },
    exit: 0,
    progress: true,
    error: null,
    stdout: "probe=\n"
  },
  {
    name: "without --no-env the same .env is read (by lait)",
    args: ["run", "env/echo.yml", "x"],
    place: { ".env": "env/dotenv" },
    exit: 0,
    progress: true,
    error: null,
    stdout: "probe=from-dotenv\n"
  },
  {
    name: ".env: LD_PRELOAD of the checkout's library and XDG_CONFIG_HOME of its own config are ignored, with warnings",
    args: ["run", "env/echo.yml", "x"],
    setup: (ws) => {
      write(ws, "evil.so", "not really a library")
      write(ws, "evil-config/lait/config.yml", `api_key_cmd: [touch, ${path.join(ws.dir, "pwned")}]\n`)
      write(ws, ".env", `LD_PRELOAD=${ws.dir}/evil.so\nXDG_CONFIG_HOME=${ws.dir}/evil-config\nLAIT_HOSTILE_PROBE=from-dotenv\n`)
    },
    exit: 0,
    error: null,
    stdout: "probe=from-dotenv\n",
    stderrExact: "warning: '${WS}/.env' sets LD_PRELOAD, which a .env may not set (it controls the dynamic loader); ignored\n" +
      "warning: '${WS}/.env' sets XDG_CONFIG_HOME, which a .env may not set (it controls where programs find their " +
      "configuration); ignored\n[1] step-1 (run)\n"
  },
  {
    name: "a bunfig.toml with a preload script in the working directory runs nothing",
    args: ["run", "inputs/plain.yml", "x"],
    place: { "bunfig.toml": "bunfig/bunfig.toml", "preload.js": "bunfig/preload.js" },
    exit: 0,
    progress: true,
    error: null,
    stdout: "x\n"
  },

  // ---- lait trace show
  {
    name: "trace show: truncated JSONL",
    args: ["trace", "show", "trace/truncated.jsonl"],
    exit: 1,
    error: /^lait: failed to parse trace event on line 1 of 'trace\/truncated\.jsonl': EOF while parsing .+ at column \d+$/
  },
  {
    name: "trace show: not JSON",
    args: ["trace", "show", "trace/not-json.jsonl"],
    exit: 1,
    error: "lait: failed to parse trace event on line 1 of 'trace/not-json.jsonl': expected value at column 1"
  },
  {
    name: "trace show: a JSON array instead of an event",
    args: ["trace", "show", "trace/array.jsonl"],
    exit: 1,
    error: "lait: failed to parse trace event on line 1 of 'trace/array.jsonl': invalid type: expected an event object"
  },
  {
    name: "trace show: an event missing a field",
    args: ["trace", "show", "trace/missing-seq.jsonl"],
    exit: 1,
    error: "lait: failed to parse trace event on line 1 of 'trace/missing-seq.jsonl': missing field 'seq'"
  },
  {
    name: "trace show: the second line is cut off",
    args: ["trace", "show", "trace/second-line-bad.jsonl"],
    exit: 1,
    error: /^lait: failed to parse trace event on line 2 of 'trace\/second-line-bad\.jsonl': EOF while parsing .+$/
  },
  {
    name: "trace show: invalid UTF-8",
    args: ["trace", "show", "bad.jsonl"],
    setup: (ws) => write(ws, "bad.jsonl", new Uint8Array([0x7b, 0x22, 0xff, 0x22, 0x7d, 0x0a])),
    exit: 1,
    error: "lait: failed to read trace file 'bad.jsonl': stream did not contain valid UTF-8"
  },
  {
    name: "trace show: 16 MiB + 1 (sparse)",
    args: ["trace", "show", "big.jsonl"],
    setup: (ws) => sparse(ws, "big.jsonl", READ_LIMIT + 1),
    exit: 1,
    error: `lait: failed to read trace file 'big.jsonl': ${LIMIT_TEXT}`
  },
  {
    name: "trace show: a Unix socket",
    args: ["trace", "show", "trace.sock"],
    setup: (ws) => unixSocket(ws, "trace.sock"),
    exit: 1,
    error: "lait: failed to read trace file 'trace.sock': not a readable file (a socket or a device with nothing attached)"
  },

  // ---- where results are written
  {
    name: "--output inside a missing directory",
    args: ["run", "inputs/plain.yml", "x", "--output", "no-such-dir/out.txt"],
    exit: 1,
    progress: true,
    error: "lait: failed to write the response to 'no-such-dir/out.txt': No such file or directory (os error 2)"
  },
  {
    name: "--output onto a directory",
    args: ["run", "inputs/plain.yml", "x", "--output", "workflow"],
    exit: 1,
    progress: true,
    error: "lait: failed to write the response to 'workflow': Is a directory (os error 21)"
  },
  {
    name: "--output onto a FIFO with no reader: lait waits, and Ctrl-C stops the wait",
    args: ["run", "inputs/plain.yml", "x", "--output", "out.fifo"],
    setup: (ws) => mkfifo(ws, "out.fifo"),
    during: async (run) => {
      await printed(run, "[1] step-1 (jq)")
      await sleep(300)
      process.kill(run.pid, "SIGINT")
    },
    after: (ws) => expectFifo(ws, "out.fifo"),
    exit: 130,
    error: null,
    stderrExact: `[1] step-1 (jq)\n${CTRL_C}`
  },
  {
    name: "--output onto a FIFO with a reader: the result goes through it, the FIFO stays a FIFO",
    args: ["run", "inputs/plain.yml", "hello", "--output", "out.fifo"],
    setup: (ws) => {
      mkfifo(ws, "out.fifo")
      fifoReader(ws, "out.fifo", "received.txt")
    },
    after: async (ws) => {
      expectFifo(ws, "out.fifo")
      const received = await readerOutput(ws, "received.txt")
      if (received !== "hello\n") throw new Error(`the reader got ${JSON.stringify(received)}`)
    },
    writes: ["received.txt"],
    exit: 0,
    progress: true,
    error: null
  },
  {
    name: "--trace-file onto a FIFO with a reader: the trace goes through it, the FIFO is not replaced",
    args: ["run", "inputs/plain.yml", "hello", "--trace-file", "trace.fifo", "--trace-spans"],
    setup: (ws) => {
      mkfifo(ws, "trace.fifo")
      fifoReader(ws, "trace.fifo", "received.jsonl")
    },
    after: async (ws) => {
      expectFifo(ws, "trace.fifo")
      // A jq-only run makes no model or tool call: its trace is the run and its step.
      const lines = (await readerOutput(ws, "received.jsonl")).trim().split("\n")
      if (lines.length !== 2 || !lines.every((l) => JSON.parse(l).seq !== undefined)) throw new Error(`the reader got ${lines.join("\n")}`)
    },
    writes: ["received.jsonl"],
    exit: 0,
    stdout: "hello\n",
    error: /^note: trace written to 'trace\.fifo' \(2 events\)$/,
    progress: true
  },
  {
    name: "--trace-file onto a directory",
    args: ["run", "inputs/plain.yml", "x", "--trace-file", "workflow"],
    exit: 1,
    progress: true,
    error: "lait: failed to write trace file 'workflow': is a directory"
  },

  // ---- lait serve --mcp --http: refused before anything listens (issue 36; docs/serve.md#who-may-connect)
  ...["0.0.0.0:0", "[::]:0"].map((address): HostileCase => ({
    name: `serve: --http ${address} without a token`,
    args: ["serve", "--mcp", "--no-config", "--http", address],
    exit: 2,
    error: `lait: --http ${address} is not a loopback address, and anyone who can reach it could run the served ` +
      "tools: set a token with --token TOKEN or LAIT_SERVE_TOKEN (see docs/serve.md)"
  })),
  {
    name: "serve: an empty --token",
    args: ["serve", "--mcp", "--no-config", "--http", "0.0.0.0:0", "--token", ""],
    exit: 2,
    error: "lait: the token of --token <TOKEN> must be one word of printable characters (no spaces)"
  },
  {
    name: "serve: a LAIT_SERVE_TOKEN with a space, never echoed",
    args: ["serve", "--mcp", "--no-config", "--http", "127.0.0.1:0"],
    setup: (ws) => write(ws, ".env", "LAIT_SERVE_TOKEN='two words'\n"),
    exit: 2,
    error: "lait: the token of LAIT_SERVE_TOKEN must be one word of printable characters (no spaces)"
  },
  {
    name: "serve: --allow-origin that is not an origin",
    args: ["serve", "--mcp", "--no-config", "--http", "127.0.0.1:0", "--allow-origin", "https://app.example/path"],
    exit: 2,
    error: "lait: invalid value 'https://app.example/path' for '--allow-origin <ORIGIN>': expected scheme://host[:port]"
  },
  {
    name: "serve: --max-sessions 0",
    args: ["serve", "--mcp", "--no-config", "--http", "127.0.0.1:0", "--max-sessions", "0"],
    exit: 2,
    error: "lait: invalid value '0' for '--max-sessions <N>': expected 1 to 100000"
  },
  {
    name: "serve: --body-timeout without --http",
    args: ["serve", "--mcp", "--no-config", "--body-timeout", "5"],
    exit: 2,
    error: "lait: the argument '--body-timeout <SECONDS>' requires '--http <ADDR>'"
  },

  // ---- untrusted values, symlinked cache, --repeat bound
  ...untrustedCases,

  // ---- JSON nested too deep; checkpoints that are not what their name says
  ...deepCases,

  // ---- lait's own files under .lait/: symlinks, FIFOs, size, escape sequences
  ...laitFileCases
]

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
}
