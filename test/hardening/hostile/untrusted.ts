// Hostile-corpus cases for untrusted values (a model's answer, a server's `usage`) and for what lait
// deletes or schedules on the user's say-so: shell quoting with `shq`, `write:` paths that a value
// would move to another directory, `lait lint`'s warnings about both, a symlinked cache, a test
// file aiming `cassettes prune --delete` at another project, usage counts that are not counts, and
// the --repeat bound. Part of `cases` (./cases.ts).
import * as fs from "node:fs"
import * as path from "node:path"
import type { HostileCase, Workspace } from "./cases.ts"

const put = (ws: Workspace, rel: string, text: string) => {
  const full = path.join(ws.dir, rel)
  fs.mkdirSync(path.dirname(full), { recursive: true })
  fs.writeFileSync(full, text)
}

const mustRead = (ws: Workspace, rel: string, expected: string) => {
  const text = fs.readFileSync(path.join(ws.dir, rel), "utf8")
  if (text !== expected) throw new Error(`'${rel}' holds ${JSON.stringify(text)}, expected ${JSON.stringify(expected)}`)
}

const SHELL_WARNING = (context: string, template: string, shell: string, quoted: string) =>
  `  warning: ${context} puts the template '${template}' inside a '${shell} -c' script, where a value holding a quote, ` +
  `';' or '$(…)' runs as shell code; quote it as '${quoted}' (or pass it after the script and use "$1")`

const WRITE_REFUSED = (path: string, value: string, what: string) =>
  `lait: step 'save': refusing to write ${JSON.stringify(path)}: the templated value ${JSON.stringify(value)} contains ` +
  `${what}; a value in a 'write' path may only fill in a file name`

const PRUNE_REFUSED = (file: string, replay: string, resolved: boolean) =>
  `lait: refusing to prune: '${file}' replays from '${replay}'${resolved ? ", which is '${WS}/victim/cassettes'" : ""}, ` +
  "outside the project '${WS}/untrusted'; pass --allow-outside to prune there too; nothing was deleted"

export const untrustedCases: ReadonlyArray<HostileCase> = [
  // ---- shell quoting: the value reaches `sh -c` as one literal word; `pwned` is never created
  {
    name: "shq: a value with quotes, ';' and $(…) is printed literally by sh -c, and runs nothing",
    args: ["run", "shq.yml", "x"],
    cwd: "untrusted",
    exit: 0,
    progress: true,
    error: null,
    stdout: "'; touch pwned; ' $(id) $(touch pwned) `touch pwned` \\ end\n"
  },

  // ---- write: paths whose value would leave the directory the author wrote
  {
    name: "write: a templated value holding '/' is refused, nothing written",
    args: ["run", "write-slash.yml", "x"],
    cwd: "untrusted",
    exit: 1,
    progress: true,
    error: WRITE_REFUSED("out-../escaped.txt", "../escaped", "'/'")
  },
  {
    name: "write: a templated value '..' is refused, nothing written",
    args: ["run", "write-dotdot.yml", "x"],
    cwd: "untrusted",
    exit: 1,
    progress: true,
    error: WRITE_REFUSED("../escaped.txt", "..", "'..'")
  },

  // ---- lait lint: templates in `sh -c` scripts (not in shq, not after the script) and in write paths
  {
    name: "lint: templates in sh -c scripts and in a write path are warned about; shq, \"$1\" and loop.index are not",
    args: ["lint", "lint.yml"],
    cwd: "untrusted",
    exit: 0,
    error: null,
    report: [
      "lint.yml:",
      SHELL_WARNING("step 'unquoted'", "{{ steps.a }}", "sh", "{{ shq steps.a }}"),
      SHELL_WARNING("step 'json-in-script'", "{{json steps.a}}", "/bin/sh", "{{ shq (json steps.a) }}"),
      "  warning: step 'save' fills its 'write' path from the template '{{ steps.a }}': a value holding '/' or '..' " +
      "is refused when the step runs, so keep templates to the file name and write the directories out"
    ]
  },
  {
    name: "lint: a shell tool with a template in its sh -c script is warned about",
    args: ["lint", "lait.config.yml"],
    cwd: "untrusted",
    exit: 0,
    error: null,
    report: ["lait.config.yml:", SHELL_WARNING("tool 'greet'", "{{ input.name }}", "sh", "{{ shq input.name }}")]
  },

  // ---- lait cache clear never deletes through a symlink; the link's target survives
  {
    name: "cache clear: .lait is a symlink: refused, its target's cache survives",
    args: ["cache", "clear"],
    setup: (ws) => {
      put(ws, "precious/cache/keep.json", "{}\n")
      fs.symlinkSync("precious", path.join(ws.dir, ".lait"))
    },
    after: (ws) => mustRead(ws, "precious/cache/keep.json", "{}\n"),
    exit: 1,
    error: "lait: refusing to clear the cache: '${WS}/.lait' is a symbolic link, and nothing is deleted through one"
  },
  {
    name: "cache clear: .lait/cache is a symlink: refused, its target survives",
    args: ["cache", "clear"],
    setup: (ws) => {
      put(ws, "precious/keep.json", "{}\n")
      fs.mkdirSync(path.join(ws.dir, ".lait"))
      fs.symlinkSync("../precious", path.join(ws.dir, ".lait", "cache"))
    },
    after: (ws) => mustRead(ws, "precious/keep.json", "{}\n"),
    exit: 1,
    error: "lait: refusing to clear the cache: '${WS}/.lait/cache' is a symbolic link, and nothing is deleted through one"
  },

  // ---- cassettes prune --delete never follows a test's replay: out of the project (here: untrusted/,
  // which holds a lait.config.yml); victim/cassettes survives, the snapshot would show a removal
  {
    name: "cassettes prune --delete: a test's replay: ../victim/cassettes is refused, nothing deleted",
    args: ["cassettes", "prune", "--delete", "prune-outside.yml"],
    cwd: "untrusted",
    exit: 2,
    error: PRUNE_REFUSED("prune-outside.yml", "../victim/cassettes", true)
  },
  {
    name: "cassettes prune --delete: an absolute replay: out of the project is refused, nothing deleted",
    args: ["cassettes", "prune", "--delete", "prune-absolute.yml"],
    cwd: "untrusted",
    setup: (ws) =>
      put(ws, "untrusted/prune-absolute.yml", `workflow: ../inputs/plain.yml
replay: ${ws.dir}/victim/cassettes
`),
    exit: 2,
    error: PRUNE_REFUSED("prune-absolute.yml", "${WS}/victim/cassettes", false)
  },
  {
    name: "cassettes prune --delete: a replay: symlink leading out of the project is refused, nothing deleted",
    args: ["cassettes", "prune", "--delete", "prune-via-link.yml"],
    cwd: "untrusted",
    setup: (ws) => fs.symlinkSync("../victim/cassettes", path.join(ws.dir, "untrusted", "linked-cassettes")),
    exit: 2,
    error: PRUNE_REFUSED("prune-via-link.yml", "linked-cassettes", true)
  },

  // ---- usage counts that are not non-negative integers count as absent; the answer stays usable
  {
    name: "usage: negative, fractional and string counts are absent (no usage at all)",
    args: ["run", "shared/llm.yml", "hi", "--replay", "cassettes/usage-invalid", "--json"],
    exit: 0,
    progress: true,
    error: null,
    stdout: '{"content":"hello","reasoning":null,"usage":null,"finish_reason":"stop"}\n'
  },
  {
    name: "usage: non-finite and unsafe-integer counts are absent; the valid one is kept",
    args: ["run", "shared/llm.yml", "hi", "--replay", "cassettes/usage-partly", "--json"],
    exit: 0,
    progress: true,
    error: null,
    stdout: '{"content":"hello","reasoning":null,"usage":{"prompt_tokens":7,"completion_tokens":0,"total_tokens":7},"finish_reason":"stop"}\n'
  },

  // ---- eval --repeat has a documented bound
  {
    name: "eval: --repeat above 10000 is a usage error naming the bound",
    args: ["eval", "eval/cases-string.yml", "--repeat", "10001"],
    exit: 2,
    error: "lait: invalid value '10001' for '--repeat <N>': expected an integer from 0 to 10000"
  }
]
