// Hostile-corpus cases for the files lait keeps under `.lait/` (sessions, checkpoints, the cache) and
// for what their contents may do to a terminal: a checkout whose `.lait` (or a directory or file in it)
// is a symlink, a FIFO in place of a file (or as `.env`), a session too large to read back, and
// control characters in a checkpoint. Part of `cases` (./cases.ts). docs/chat.md#sessions,
// docs/checkpoints.md.
import * as fs from "node:fs"
import * as path from "node:path"
import type { HostileCase, Workspace } from "./cases.ts"

const LIMIT = 16 * 1024 * 1024

const put = (ws: Workspace, rel: string, data: string) => {
  const full = path.join(ws.dir, rel)
  fs.mkdirSync(path.dirname(full), { recursive: true })
  fs.writeFileSync(full, data)
}

const link = (ws: Workspace, target: string, rel: string) => {
  fs.mkdirSync(path.dirname(path.join(ws.dir, rel)), { recursive: true })
  fs.symlinkSync(target, path.join(ws.dir, rel))
}

const fifo = (ws: Workspace, rel: string) => {
  const full = path.join(ws.dir, rel)
  fs.mkdirSync(path.dirname(full), { recursive: true })
  const r = Bun.spawnSync(["mkfifo", full])
  if (r.exitCode !== 0) throw new Error(`mkfifo ${full} failed: ${r.stderr.toString()}`)
}

const mustRead = (ws: Workspace, rel: string, expected: string) => {
  const text = fs.readFileSync(path.join(ws.dir, rel), "utf8")
  if (text !== expected) throw new Error(`'${rel}' holds ${JSON.stringify(text)}, expected ${JSON.stringify(expected)}`)
}

const mustNotExist = (ws: Workspace, rel: string) => {
  if (fs.existsSync(path.join(ws.dir, rel))) throw new Error(`'${rel}' was created`)
}

const TURN = '{"role":"user","content":"q"}\n{"role":"assistant","content":"a"}\n'

const checkpoint = (fields: Record<string, unknown>) =>
  JSON.stringify({
    format: 2,
    run_id: "r1",
    workflow_path: "inputs/plain.yml",
    initial_input: "x",
    inputs: {},
    top_level_labels: ["step-1"],
    completed_index: 0,
    counter: 0,
    current_value: "x",
    steps_outputs: {},
    status: "failed",
    ...fields
  })

const SYMLINK = (p: string) => `refusing to follow symbolic link '${p}'`

export const laitFileCases: ReadonlyArray<HostileCase> = [
  // ---- symlinks under .lait are refused; nothing is read, written or deleted through them
  {
    name: ".lait/sessions is a symlink: sessions delete is refused, the target survives",
    args: ["sessions", "delete", "s"],
    setup: (ws) => {
      put(ws, "precious/s.jsonl", TURN)
      link(ws, "../precious", ".lait/sessions")
    },
    after: (ws) => mustRead(ws, "precious/s.jsonl", TURN),
    exit: 1,
    error: `lait: failed to delete session file '.lait/sessions/s.jsonl': ${SYMLINK(".lait/sessions")}`
  },
  {
    name: "a dangling symlink as the session file: --session is refused, its target is never created",
    args: ["--model", "m", "--base-url", "http://127.0.0.1:9/v1", "--session", "s", "hi"],
    setup: (ws) => link(ws, "../../victim.txt", ".lait/sessions/s.jsonl"),
    after: (ws) => mustNotExist(ws, "victim.txt"),
    exit: 1,
    error: `lait: failed to read session file '.lait/sessions/s.jsonl': ${SYMLINK(".lait/sessions/s.jsonl")}`
  },
  {
    name: ".lait is a symlink: run --checkpoint is refused before the first step",
    args: ["run", "inputs/plain.yml", "x", "--checkpoint"],
    setup: (ws) => {
      fs.mkdirSync(path.join(ws.dir, "elsewhere"))
      link(ws, "elsewhere", ".lait")
    },
    exit: 1,
    error: `lait: ${SYMLINK(".lait")}`
  },
  {
    name: ".lait/cache is a symlink: a --cache run is refused, nothing cached through it",
    args: ["run", "shared/llm.yml", "hi", "--cache"],
    setup: (ws) => {
      fs.mkdirSync(path.join(ws.dir, "elsewhere"))
      link(ws, "../elsewhere", ".lait/cache")
    },
    exit: 1,
    progress: true,
    error: new RegExp(
      "^lait: failed to read '\\$\\{WS\\}/\\.lait/cache/[0-9a-f]{64}\\.json': " +
        "refusing to follow symbolic link '\\$\\{WS\\}/\\.lait/cache'$"
    )
  },

  // ---- a FIFO where lait expects its own file (or .env) fails at once, never waits
  {
    name: "FIFO as .env: config show fails at once",
    args: ["config", "show"],
    setup: (ws) => fifo(ws, ".env"),
    exit: 1,
    error: "lait: failed to read '${WS}/.env': it is a FIFO with no writer"
  },
  {
    name: "FIFO as a run file: runs show fails at once",
    args: ["runs", "show", "r1"],
    setup: (ws) => fifo(ws, ".lait/runs/r1.json"),
    exit: 1,
    error: "lait: failed to read '.lait/runs/r1.json': it is a FIFO with no writer"
  },
  {
    name: "FIFO as a session file: sessions show fails at once",
    args: ["sessions", "show", "s"],
    setup: (ws) => fifo(ws, ".lait/sessions/s.jsonl"),
    exit: 1,
    error: "lait: failed to read session file '.lait/sessions/s.jsonl': it is a FIFO with no writer"
  },

  // ---- a session too large to read back does not hide the others
  {
    name: "a session over the read limit: sessions list warns and lists the others",
    args: ["sessions", "list"],
    setup: (ws) => {
      put(ws, ".lait/sessions/small.jsonl", TURN)
      const pad = LIMIT + 1 - '{"role":"user","content":""}\n'.length
      put(ws, ".lait/sessions/huge.jsonl", `{"role":"user","content":"${"a".repeat(pad)}"}\n`)
    },
    exit: 0,
    stdout: "small  (1 turns)\n",
    error: "warning: failed to read session file '.lait/sessions/huge.jsonl': " +
      `file contents exceed the configured read limit of ${LIMIT} bytes (skipped)`
  },

  // ---- terminal escape sequences in a checkpoint are printed escaped
  {
    name: "runs list: a checkpoint's workflow holding C1 is printed escaped",
    args: ["runs", "list"],
    setup: (ws) => put(ws, ".lait/runs/r1.json", checkpoint({ workflow_path: "w\u009b2J.yml" })),
    exit: 0,
    stdout: "r1  (failed, step 0/1, w\\u009b2J.yml)\n",
    error: null
  },
  {
    // A run id that is not its file's name is skipped (it could not be resumed); the warning quotes it escaped.
    name: "runs list: a checkpoint's run id holding ESC is quoted escaped in the warning that skips it",
    args: ["runs", "list"],
    setup: (ws) => put(ws, ".lait/runs/r1.json", checkpoint({ run_id: "r1\u001b]0;owned\u0007" })),
    exit: 0,
    stdout: "no checkpointed runs saved yet; start one with `lait run <FILE> <PROMPT> --checkpoint`\n",
    stderrExact: "warning: checkpoint file '.lait/runs/r1.json' holds run \"r1\\u001b]0;owned\\u0007\", not 'r1'; " +
      "it cannot be resumed (skipped)\n",
    error: null
  },
  {
    name: "resume: the mismatch error quotes a recorded workflow holding ESC escaped",
    args: ["run", "inputs/plain.yml", "--resume", "r1"],
    setup: (ws) => put(ws, ".lait/runs/r1.json", checkpoint({ workflow_path: "\u001b[2J\u001b[Hother.yml" })),
    exit: 1,
    error: "lait: run 'r1' was checkpointed against workflow '\\u001b[2J\\u001b[Hother.yml', not 'inputs/plain.yml'; " +
      "pass the same FILE to resume it"
  }
]
