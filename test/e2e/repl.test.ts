// `lait chat` as a user meets it: the compiled binary in a real terminal (tmux), talking to the
// fixture server, keys sent one by one; and with piped stdin. Skipped only when tmux is missing.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as path from "node:path"
import { type OpenAiServer, startOpenAiServer } from "../fixtures/openai-server.ts"
import { binaryPath, ensureBinary, makeTempDir, runCli } from "./util.ts"

const hasTmux = Bun.spawnSync(["sh", "-c", "command -v tmux"]).exitCode === 0
if (!hasTmux) console.warn("skipping the terminal tests of lait chat: tmux is not installed")

// A tmux server of our own (its own socket), killed after each test: nothing of the user's is touched.
// Each terminal gets a new socket: a server still shutting down from the test before made
// new-session on the same socket fail with "server exited unexpectedly".
let sockets = 0
let socket = `lait-repl-${process.pid}-${sockets}`
const tmux = (...args: Array<string>) => {
  const r = Bun.spawnSync(["tmux", "-L", socket, ...args], { stdout: "pipe", stderr: "pipe" })
  lastTmuxError = r.exitCode === 0 ? "" : `tmux ${args[0]} exited ${r.exitCode}: ${r.stderr.toString().trim()}`
  return r.stdout.toString()
}
/** What the last tmux command said when it failed, for a wait's failure message. */
let lastTmuxError = ""

let dir = ""
let server: OpenAiServer
beforeAll(() => {
  dir = makeTempDir("repl")
})
afterAll(() => {
  if (hasTmux) tmux("kill-server")
  fs.rmSync(dir, { recursive: true, force: true })
})
afterEach(async () => {
  if (hasTmux) tmux("kill-server")
  await server?.stop()
})

interface Terminal {
  readonly send: (...keys: Array<string>) => void
  readonly type: (line: string) => void
  readonly screen: () => string
  readonly waitFor: (text: string | RegExp, ms?: number) => Promise<string>
  readonly exitCode: (ms?: number) => Promise<number | undefined>
}

/** Starts `lait chat ARGS` in a 120x40 terminal, in `cwd`. */
const terminal = async (cwd: string, args: ReadonlyArray<string>): Promise<Terminal> => {
  await ensureBinary() // builds dist/lait when it is missing or stale
  const exitFile = path.join(cwd, "exit-status")
  fs.rmSync(exitFile, { force: true })
  const quoted = [binaryPath, ...args].map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(" ")
  // The history goes to the test's own directory (cwd/data/lait/history.jsonl), never the user's.
  const command = `cd '${cwd}' && unset LLM_MODEL; NO_COLOR=1 XDG_CONFIG_HOME='${cwd}/xdg' XDG_DATA_HOME='${cwd}/data' ` +
    `${quoted}; echo $? > '${exitFile}'; sleep 600`
  socket = `lait-repl-${process.pid}-${++sockets}`
  tmux("new-session", "-d", "-s", "t", "-x", "120", "-y", "40", command)
  if (lastTmuxError !== "") throw new Error(`could not start the terminal: ${lastTmuxError}`)
  const screen = () => tmux("capture-pane", "-p", "-t", "t")
  // Generous bounds: a wait ends as soon as the text shows; only a failure waits them out. 15 s ran
  // out on a loaded machine where the whole file passes in 6 s alone.
  const waitFor = async (text: string | RegExp, ms = 60_000) => {
    const deadline = Date.now() + ms
    for (;;) {
      const shown = screen()
      if (typeof text === "string" ? shown.includes(text) : text.test(shown)) return shown
      if (Date.now() > deadline) {
        throw new Error(`gave up after ${ms} ms waiting for ${String(text)}; ${lastTmuxError}; the screen:\n${shown}`)
      }
      await Bun.sleep(25)
    }
  }
  // capture-pane drops trailing spaces: the prompt `> ` reads `>`.
  await waitFor(/^>/m)
  return {
    send: (...keys) => void tmux("send-keys", "-t", "t", ...keys),
    type: (line) => {
      tmux("send-keys", "-t", "t", "-l", line)
      tmux("send-keys", "-t", "t", "Enter")
    },
    screen,
    waitFor,
    exitCode: async (ms = 60_000) => {
      const deadline = Date.now() + ms
      while (Date.now() < deadline) {
        if (fs.existsSync(exitFile)) {
          const text = fs.readFileSync(exitFile, "utf8").trim()
          if (text !== "") return Number(text)
        }
        await Bun.sleep(25)
      }
      return undefined
    }
  }
}

const messagesOf = (i: number) => (server.requests[i]!.body as { messages: unknown }).messages
const chatArgs = () => ["chat", "--no-config", "--model", "fixture-model", "--base-url", server.baseUrl]

/** The history lines lait wrote under `data` (an XDG_DATA_HOME). */
const historyOf = (data: string): Array<Record<string, unknown>> => {
  const file = path.join(data, "lait", "history.jsonl")
  return fs.existsSync(file)
    ? fs.readFileSync(file, "utf8").split("\n").filter((l) => l !== "").map((l) => JSON.parse(l))
    : []
}
const sessionLines = (cwd: string, name: string) =>
  fs.readFileSync(path.join(cwd, ".lait", "sessions", `${name}.jsonl`), "utf8").split("\n").filter((l) => l !== "")
    .map((l) => JSON.parse(l))
/** runCli's environment with the history under `data`. */
const envWith = (data: string) => ({ ...process.env, NO_COLOR: "1", LLM_MODEL: undefined, XDG_DATA_HOME: data })

describe.skipIf(!hasTmux)("lait chat in a terminal", () => {
  test("a conversation: each answer carries the earlier ones; /model, /system, /reset, history, /save; Ctrl-D exits 0", async () => {
    server = startOpenAiServer()
    const cwd = makeTempDir("repl-talk")
    const t = await terminal(cwd, chatArgs())
    t.type("hello")
    await t.waitFor("echo: hello")
    t.type("again")
    await t.waitFor("echo: again")
    // No --show-usage, --record or trace: the usage is not asked for (docs/repl.md#streaming).
    expect(server.requests[1]!.body).toMatchObject({ stream: true })
    expect((server.requests[1]!.body as Record<string, unknown>)["stream_options"]).toBeUndefined()
    expect(messagesOf(1)).toEqual([
      { role: "user", content: "hello" },
      { role: "assistant", content: "echo: hello" },
      { role: "user", content: "again" }
    ])
    t.type("/model other-model")
    await t.waitFor("(model set to 'other-model')")
    t.type("/model")
    await t.waitFor("model: other-model")
    t.type("/system Be brief.")
    await t.waitFor("(system prompt updated)")
    t.type("/reset")
    await t.waitFor("(conversation cleared — a --session log, if any, is unaffected)")
    t.type("fresh start")
    await t.waitFor("echo: fresh start")
    expect((server.requests[2]!.body as { model: string }).model).toBe("other-model")
    expect(messagesOf(2)).toEqual([{ role: "system", content: "Be brief." }, { role: "user", content: "fresh start" }])
    // Up recalls the last line entered; Enter sends it again.
    t.send("Up")
    // The recalled line stands on the prompt, the last line of the screen.
    await t.waitFor(/\n> fresh start\s*$/)
    t.send("Enter")
    await t.waitFor(/echo: fresh start[\s\S]*echo: fresh start/)
    expect((messagesOf(3) as Array<{ content: string }>).at(-1)!.content).toBe("fresh start")
    t.type("/save talk")
    await t.waitFor("saved to .lait/sessions/talk.jsonl")
    // The system prompt set with /system is saved first (docs/repl.md#saving-a-conversation).
    expect(fs.readFileSync(path.join(cwd, ".lait/sessions/talk.jsonl"), "utf8")).toBe(
      [
        { role: "system", content: "Be brief." },
        { role: "user", content: "fresh start" },
        { role: "assistant", content: "echo: fresh start" },
        { role: "user", content: "fresh start" },
        { role: "assistant", content: "echo: fresh start" }
      ].map((m) => `${JSON.stringify(m)}\n`).join("")
    )
    // Private, as every file under .lait/ (docs/chat.md#sessions).
    expect(fs.statSync(path.join(cwd, ".lait/sessions/talk.jsonl")).mode & 0o777).toBe(0o600)
    t.send("C-d")
    expect(await t.exitCode()).toBe(0)
  }, 60_000)

  test("/save through a symlinked .lait is refused and writes nothing there; the conversation goes on", async () => {
    server = startOpenAiServer()
    const cwd = makeTempDir("repl-save-link")
    fs.mkdirSync(path.join(cwd, "elsewhere"))
    fs.symlinkSync("elsewhere", path.join(cwd, ".lait"))
    const t = await terminal(cwd, chatArgs())
    t.type("hello")
    await t.waitFor("echo: hello")
    t.type("/save talk")
    await t.waitFor(
      "lait: failed to write session file '.lait/sessions/talk.jsonl': refusing to follow symbolic link '.lait'"
    )
    expect(fs.readdirSync(path.join(cwd, "elsewhere"))).toEqual([])
    t.type("again")
    await t.waitFor("echo: again")
    t.send("C-d")
    expect(await t.exitCode(), "lait chat's exit status (undefined: still running)").toBe(0)
  }, 240_000)

  test("a session saved with /save brings its system prompt back, in the REPL and one-shot; --system wins", async () => {
    server = startOpenAiServer()
    const cwd = makeTempDir("repl-save-system")
    const first = await terminal(cwd, chatArgs())
    first.type("/system Answer in French.")
    await first.waitFor("(system prompt updated)")
    first.type("bonjour")
    await first.waitFor("echo: bonjour")
    first.type("/save fr")
    await first.waitFor("saved to .lait/sessions/fr.jsonl")
    first.type("/exit")
    expect(await first.exitCode(), "lait chat's exit status (undefined: still running)").toBe(0)
    tmux("kill-server")

    const again = await terminal(cwd, [...chatArgs(), "--session", "fr"])
    again.type("encore")
    await again.waitFor("echo: encore")
    again.type("/exit")
    expect(await again.exitCode(), "lait chat's exit status (undefined: still running)").toBe(0)
    const earlier = [{ role: "user", content: "bonjour" }, { role: "assistant", content: "echo: bonjour" }]
    expect(messagesOf(1)).toEqual([
      { role: "system", content: "Answer in French." },
      ...earlier,
      { role: "user", content: "encore" }
    ])
    const oneShot = (...flags: Array<string>) =>
      runCli(
        ["--no-config", "--model", "fixture-model", "--base-url", server.baseUrl, "--session", "fr", ...flags, "x y"],
        { cwd, binary: true, env: envWith(path.join(cwd, "data")) }
      )
    expect(await oneShot()).toMatchObject({ code: 0, stdout: "echo: x y\n" })
    expect((messagesOf(2) as Array<unknown>)[0]).toEqual({ role: "system", content: "Answer in French." })
    expect(await oneShot("--system", "Be terse.")).toMatchObject({ code: 0, stdout: "echo: x y\n" })
    expect((messagesOf(3) as Array<unknown>)[0]).toEqual({ role: "system", content: "Be terse." })
    // --session appends turns after the saved system line; the turn count leaves it out.
    expect(sessionLines(cwd, "fr")[0]).toEqual({ role: "system", content: "Answer in French." })
    const listed = await runCli(["sessions", "list"], { cwd, binary: true })
    expect(listed).toMatchObject({ code: 0, stdout: "fr  (4 turns)\n" })
  }, 240_000)

  test("Ctrl-C during a slow streamed answer stops it and returns to the prompt; Ctrl-C twice on an empty line exits", async () => {
    const words = Array.from({ length: 40 }, (_, i) => `w${i}`).join(" ")
    server = startOpenAiServer({ script: [{ match: "slow", content: words, chunk_delay_ms: 150 }] })
    const cwd = makeTempDir("repl-cancel")
    const t = await terminal(cwd, chatArgs())
    t.type("slow")
    await t.waitFor("w2 ")
    t.send("C-c")
    await t.waitFor("(cancelled)")
    const shown = t.screen()
    await Bun.sleep(800)
    // Nothing more of the cancelled answer arrives.
    expect(t.screen().replace(/\s+$/, "")).toBe(shown.replace(/\s+$/, ""))
    expect(shown).not.toContain("w20")
    t.type("next")
    await t.waitFor("echo: next")
    // The cancelled exchange is not part of the conversation.
    expect(messagesOf(1)).toEqual([{ role: "user", content: "next" }])
    t.send("C-c")
    await t.waitFor("press Ctrl-C again to exit")
    t.send("C-c")
    expect(await t.exitCode(), "lait chat's exit status (undefined: still running)").toBe(0)
  }, 240_000)

  test("Ctrl-C pressed twice, with a line typed ahead: (cancelled) once, and the type-ahead is discarded", async () => {
    const words = Array.from({ length: 40 }, (_, i) => `w${i}`).join(" ")
    server = startOpenAiServer({ script: [{ match: "slow", content: words, chunk_delay_ms: 150 }] })
    const t = await terminal(makeTempDir("repl-cancel-twice"), chatArgs())
    t.type("slow")
    await t.waitFor("w2 ")
    // Typed while the answer is written: it waits for the next prompt...
    t.type("typed ahead")
    await Bun.sleep(300)
    // ...until the answer is cancelled: the second Ctrl-C used to cancel it at once, unseen.
    t.send("C-c", "C-c")
    await t.waitFor("(cancelled)")
    await Bun.sleep(1000)
    expect(t.screen().split("(cancelled)")).toHaveLength(2)
    t.type("next")
    await t.waitFor("echo: next")
    expect(t.screen().split("(cancelled)")).toHaveLength(2)
    expect(server.requests).toHaveLength(2)
    expect(messagesOf(1)).toEqual([{ role: "user", content: "next" }])
    t.type("/exit")
    expect(await t.exitCode(), "lait chat's exit status (undefined: still running)").toBe(0)
  }, 240_000)
})

describe.skipIf(!hasTmux)("lait chat in a terminal: history, sessions, usage, no model", () => {
  test("each answer is a history entry with its own usage; --show-usage prints the running total after each", async () => {
    server = startOpenAiServer({
      script: [
        { match: "first", content: "one", usage: { prompt_tokens: 3, completion_tokens: 2 } },
        { match: "second", content: "two", usage: { prompt_tokens: 7, completion_tokens: 4 } }
      ]
    })
    const cwd = makeTempDir("repl-history")
    const t = await terminal(cwd, [...chatArgs(), "--show-usage"])
    expect(t.screen()).toContain("lait chat — /exit to quit, /clear to reset history")
    t.type("first")
    await t.waitFor("usage: prompt=3 completion=2 total=5")
    t.type("second")
    await t.waitFor("usage: prompt=10 completion=6 total=16 (2 requests)")
    t.type("/exit")
    expect(await t.exitCode(), "lait chat's exit status (undefined: still running)").toBe(0)
    const lines = historyOf(path.join(cwd, "data"))
    expect(lines.map(({ timestamp: _, ...rest }) => rest)).toEqual([
      {
        kind: "chat",
        model: "fixture-model",
        prompt: "first",
        response: "one",
        usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 }
      },
      {
        kind: "chat",
        model: "fixture-model",
        prompt: "second",
        response: "two",
        usage: { prompt_tokens: 7, completion_tokens: 4, total_tokens: 11 }
      }
    ])
  }, 240_000)

  test('/retry, /undo, /usage with the cost, """ blocks; /help lists them', async () => {
    server = startOpenAiServer({
      script: [
        { match: "first", content: "one", usage: { prompt_tokens: 1000, completion_tokens: 500 } },
        { match: "second", content: "two", usage: { prompt_tokens: 2000, completion_tokens: 1000 }, repeat: true },
        { match: "line b", content: "block answered", usage: { prompt_tokens: 10, completion_tokens: 10 } }
      ]
    })
    const cwd = makeTempDir("repl-edit")
    // An alias with pricing: its streams report usage, so /usage has tokens and a cost to show.
    fs.writeFileSync(
      path.join(cwd, "lait.config.yml"),
      `models:\n  priced:\n    - provider: {base_url: '${server.baseUrl}'}\n      model_id: fixture-model\n` +
        "      pricing: {input_per_1m: 2.0, output_per_1m: 4.0}\n"
    )
    const t = await terminal(cwd, ["chat", "--model", "priced"])
    t.type("/help")
    await t.waitFor("/usage          the conversation's token usage and cost so far")
    expect(t.screen()).toContain("/retry          ask the last question again")
    expect(t.screen()).toContain("/undo           drop the last question and its answer")
    t.type("/usage")
    await t.waitFor("usage: (the server reported no usage)")
    t.type("first")
    await t.waitFor("one")
    t.type("second")
    await t.waitFor(/\ntwo\n/)
    t.type("/retry")
    await t.waitFor("(asking the last question again)")
    await t.waitFor(/asking the last question again\)\ntwo\n/)
    // The retried question goes out in place of its first answer, not after it.
    expect(messagesOf(2)).toEqual(messagesOf(1))
    t.type("/undo")
    await t.waitFor("(last question and answer removed — a --session log, if any, is unaffected)")
    t.type('"""')
    await t.waitFor(/\n\.\.\.\s*$/)
    t.type("line a")
    t.type("/line b")
    t.type('"""')
    await t.waitFor("block answered")
    expect(messagesOf(3)).toEqual([
      { role: "user", content: "first" },
      { role: "assistant", content: "one" },
      { role: "user", content: "line a\n/line b" }
    ])
    // Four requests: 1000+2000+2000+10 prompt, 500+1000+1000+10 completion tokens at $2/$4 per million.
    t.type("/usage")
    await t.waitFor("usage: prompt=5010 completion=2510 total=7520 (4 requests) ($0.0201)")
    t.type("/exit")
    expect(await t.exitCode(), "lait chat's exit status (undefined: still running)").toBe(0)
    expect(server.requests).toHaveLength(4)
  }, 240_000)

  test("--session continues a one-shot chat's session and appends each turn; /clear leaves the file alone", async () => {
    server = startOpenAiServer()
    const cwd = makeTempDir("repl-session")
    const data = path.join(cwd, "data")
    const oneShot = await runCli(
      ["--no-config", "--model", "fixture-model", "--base-url", server.baseUrl, "--session", "talk", "from the shell"],
      { cwd, binary: true, env: envWith(data) }
    )
    expect(oneShot).toMatchObject({ code: 0, stdout: "echo: from the shell\n" })
    const t = await terminal(cwd, [...chatArgs(), "--session", "talk"])
    t.type("and now")
    await t.waitFor("echo: and now")
    expect(messagesOf(1)).toEqual([
      { role: "user", content: "from the shell" },
      { role: "assistant", content: "echo: from the shell" },
      { role: "user", content: "and now" }
    ])
    t.type("/clear")
    await t.waitFor("(conversation cleared — a --session log, if any, is unaffected)")
    t.type("fresh")
    await t.waitFor("echo: fresh")
    expect(messagesOf(2)).toEqual([{ role: "user", content: "fresh" }])
    t.send("C-d")
    expect(await t.exitCode(), "lait chat's exit status (undefined: still running)").toBe(0)
    expect(sessionLines(cwd, "talk")).toEqual([
      { role: "user", content: "from the shell" },
      { role: "assistant", content: "echo: from the shell" },
      { role: "user", content: "and now" },
      { role: "assistant", content: "echo: and now" },
      { role: "user", content: "fresh" },
      { role: "assistant", content: "echo: fresh" }
    ])
  }, 240_000)

  test("with no model anywhere it still starts; a question says so, /model NAME sets one", async () => {
    server = startOpenAiServer()
    const cwd = makeTempDir("repl-nomodel")
    const t = await terminal(cwd, ["chat", "--no-config", "--base-url", server.baseUrl])
    t.type("/model")
    await t.waitFor("usage: /model <name>")
    t.type("hello")
    await t.waitFor("lait: model is required; provide --model, set LLM_MODEL, or specify default.model")
    expect(server.requests.length).toBe(0)
    t.type("/model fixture-model")
    await t.waitFor("(model set to 'fixture-model')")
    t.type("hello")
    await t.waitFor("echo: hello")
    // The failed question was dropped: only this one is sent.
    expect(messagesOf(0)).toEqual([{ role: "user", content: "hello" }])
    expect((server.requests[0]!.body as { model: string }).model).toBe("fixture-model")
    t.type("/exit")
    expect(await t.exitCode(), "lait chat's exit status (undefined: still running)").toBe(0)
    expect(historyOf(path.join(cwd, "data")).map((l) => [l["model"], l["prompt"]])).toEqual([["fixture-model", "hello"]])
  }, 240_000)
})

describe.skipIf(!hasTmux)("lait with no prompt in a terminal", () => {
  test("is the same conversation as lait chat", async () => {
    server = startOpenAiServer()
    const t = await terminal(makeTempDir("repl-root"), chatArgs().slice(1))
    t.type("hi")
    await t.waitFor("echo: hi")
    t.type("/exit")
    expect(await t.exitCode(), "lait chat's exit status (undefined: still running)").toBe(0)
  }, 240_000)
})

describe("lait chat with piped stdin", () => {
  test("reads the lines one by one and answers each with the conversation so far, no prompt", async () => {
    server = startOpenAiServer()
    const r = await runCli(chatArgs(), { cwd: dir, binary: true, stdin: "hello\n\nworld\n" })
    expect(r.stderr).toBe("")
    expect(r.stdout).toBe("echo: hello\necho: world\n")
    expect(r.code).toBe(0)
    expect(messagesOf(1)).toEqual([
      { role: "user", content: "hello" },
      { role: "assistant", content: "echo: hello" },
      { role: "user", content: "world" }
    ])
  })
})

describe("lait chat with piped stdin: failures, history, usage, reasoning", () => {
  test("a failed answer prints lait: ... and the conversation goes on; exit status 0; only answers are history", async () => {
    server = startOpenAiServer({ script: [{ match: "broken", status: 400 }] })
    const cwd = makeTempDir("repl-fail")
    const data = path.join(cwd, "data")
    const r = await runCli(chatArgs(), { cwd, binary: true, env: envWith(data), stdin: "/nope\nbroken\nfine\n" })
    expect(r.stdout).toBe("echo: fine\n")
    expect(r.stderr).toMatch(/^unknown command: \/nope\nlait: .*400.*\n$/)
    expect(r.code).toBe(0)
    expect(messagesOf(1)).toEqual([{ role: "user", content: "fine" }])
    expect(historyOf(data).map((l) => [l["kind"], l["prompt"], l["response"]])).toEqual([["chat", "fine", "echo: fine"]])
  })

  test("--no-history and default.history: false record nothing; --show-usage and --show-reasoning go to stderr", async () => {
    server = startOpenAiServer({
      script: [{ content: "the answer", reasoning: "thinking hard", usage: { prompt_tokens: 4, completion_tokens: 1 } }]
    })
    const cwd = makeTempDir("repl-flags")
    const data = path.join(cwd, "data")
    const r = await runCli([...chatArgs(), "--no-history", "--show-usage", "--show-reasoning"], {
      cwd,
      binary: true,
      env: envWith(data),
      stdin: "question\n"
    })
    expect(r).toMatchObject({ code: 0, stdout: "the answer\n" })
    expect(r.stderr).toBe("Reasoning:\nthinking hard\n\nusage: prompt=4 completion=1 total=5\n")
    fs.writeFileSync(path.join(cwd, "lait.config.yml"), "default:\n  history: false\n")
    const configured = await runCli(
      ["chat", "--model", "fixture-model", "--base-url", server.baseUrl],
      { cwd, binary: true, env: envWith(data), stdin: "again\n" }
    )
    expect(configured).toMatchObject({ code: 0, stdout: "echo: again\n", stderr: "" })
    expect(historyOf(data)).toEqual([])
    const recorded = await runCli(chatArgs(), { cwd, binary: true, env: envWith(data), stdin: "kept\n" })
    expect(recorded.code).toBe(0)
    expect(historyOf(data).map((l) => l["prompt"])).toEqual(["kept"])
  })
})

describe("lait chat with --record and --replay", () => {
  test("a recorded conversation replays with no server when the same lines are entered", async () => {
    server = startOpenAiServer()
    const cwd = makeTempDir("repl-rec")
    const lines = "first question\nsecond question\n"
    const recorded = await runCli([...chatArgs(), "--record", "cassettes"], { cwd, binary: true, stdin: lines })
    expect(recorded).toMatchObject({ code: 0, stdout: "echo: first question\necho: second question\n" })
    await server.stop()
    const replayed = await runCli([...chatArgs(), "--replay", "cassettes"], { cwd, binary: true, stdin: lines })
    expect(replayed).toMatchObject({ code: 0, stdout: recorded.stdout, stderr: "" })
  })
})
