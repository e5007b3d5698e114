// The `lait chat` loop's rules, driven with a scripted line source and a backend that answers from
// the conversation it is given (test/e2e/repl.test.ts drives the real binary in a terminal).
import { describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { type ReplBackend, type ReplState, runRepl } from "../../src/cli/repl.ts"
import type { ChatMessage } from "../../src/model/types.ts"
import { StreamSink } from "../../src/model/streamSink.ts"
import type { InputEvent, LineEditor } from "../../src/platform/lineEditor.ts"

const line = (text: string): InputEvent => ({ _tag: "Line", text })
const ctrlC: InputEvent = { _tag: "Interrupt", typed: false }

const scripted = (
  events: ReadonlyArray<InputEvent>,
  interrupted: Effect.Effect<void> = Effect.never
): LineEditor & { readonly prompts: Array<string> } => {
  const queue = [...events]
  const prompts: Array<string> = []
  return {
    interactive: true,
    prompts,
    next: (prompt) =>
      Effect.sync(() => {
        prompts.push(prompt)
        return queue.shift() ?? { _tag: "Eof" }
      }),
    interrupted,
    discardTypeAhead: Effect.void
  }
}

const run = async (events: ReadonlyArray<InputEvent>, interrupted?: Effect.Effect<void>) => {
  const asked: Array<ReplState> = []
  const finished: Array<string> = []
  const saved: Array<{ name: string; messages: ReadonlyArray<ChatMessage> }> = []
  const backend: ReplBackend = {
    modelName: (s) => s.model ?? "default-model",
    turn: (state) =>
      Effect.gen(function*() {
        asked.push(state)
        const last = state.messages.at(-1)!
        const answer = `echo: ${String(last.content)}`
        const sink = yield* StreamSink
        yield* sink!({ _tag: "Content", text: answer })
        // "slow" never finishes on its own: only a Ctrl-C ends it.
        if (last.content === "slow") yield* Effect.never
        return { content: answer, finish: Effect.sync(() => void finished.push(answer)) }
      }),
    usage: Effect.sync(() => `usage: ${asked.length} requests`),
    save: (name, _system, messages) =>
      Effect.sync(() => {
        saved.push({ name, messages })
        return `.lait/sessions/${name}.jsonl`
      })
  }
  const editor = scripted(events, interrupted)
  const out: Array<string> = []
  const write = process.stdout.write.bind(process.stdout)
  process.stdout.write = ((chunk: string) => (out.push(String(chunk)), true)) as typeof process.stdout.write
  try {
    await Effect.runPromise(runRepl(editor, backend, { model: undefined, system: undefined, messages: [] }))
  } finally {
    process.stdout.write = write
  }
  return { asked, saved, finished, prompts: editor.prompts, stdout: out.join("") }
}

describe("lait chat loop", () => {
  test("each answer carries the conversation; /model, /system and /reset change what is sent", async () => {
    const { asked, stdout } = await run([
      line("hello"),
      line("again"),
      line("/model other"),
      line("/system Be brief."),
      line("third"),
      line("/reset"),
      line("fresh")
    ])
    // The last newline is the one Ctrl-D (the end of the script) prints after the prompt.
    expect(stdout).toBe("echo: hello\necho: again\necho: third\necho: fresh\n\n")
    expect(asked[1]!.messages).toEqual([
      { role: "user", content: "hello" },
      { role: "assistant", content: "echo: hello" },
      { role: "user", content: "again" }
    ])
    expect(asked[2]!.model).toBe("other")
    expect(asked[2]!.system).toBe("Be brief.")
    expect(asked[2]!.messages.length).toBe(5)
    expect(asked[3]!.messages).toEqual([{ role: "user", content: "fresh" }])
    expect(asked[3]!.model).toBe("other")
  })

  test("a trailing backslash continues the line; blank lines ask nothing", async () => {
    const { asked, prompts } = await run([line("first \\"), line("second"), line("   ")])
    expect(asked.map((s) => s.messages.at(-1)!.content)).toEqual(["first \nsecond"])
    expect(prompts.slice(0, 3)).toEqual(["> ", "... ", "> "])
  })

  test("/save hands over the conversation; /exit ends the loop before later lines", async () => {
    const { saved, asked } = await run([line("hi"), line("/save notes"), line("/exit"), line("never")])
    expect(saved).toEqual([{
      name: "notes",
      messages: [{ role: "user", content: "hi" }, { role: "assistant", content: "echo: hi" }]
    }])
    expect(asked.length).toBe(1)
  })

  test("Ctrl-C on an empty prompt twice in a row leaves; a line in between disarms it", async () => {
    const { asked } = await run([ctrlC, line("one"), ctrlC, ctrlC, line("never")])
    expect(asked.length).toBe(1)
    const cleared = await run([ctrlC, { _tag: "Interrupt", typed: true }, ctrlC, line("still here")])
    expect(cleared.asked.length).toBe(1)
  })

  test("Ctrl-C during an answer stops it: the text shown stays, the exchange is dropped, the loop goes on", async () => {
    const { asked, stdout, finished } = await run([line("slow"), line("next")], Effect.sleep("30 millis"))
    expect(stdout).toBe("echo: slow\necho: next\n\n")
    expect(asked[1]!.messages).toEqual([{ role: "user", content: "next" }])
    // Only the completed answer is finished (session, history, usage).
    expect(finished).toEqual(["echo: next"])
  })

  test("/retry asks the last question again in place of its answer; /undo drops the last exchange", async () => {
    const { asked, finished } = await run([
      line("/retry"),
      line("/undo"),
      line("one"),
      line("two"),
      line("/retry"),
      line("/undo"),
      line("/undo"),
      line("/undo"),
      line("three")
    ])
    expect(asked.map((s) => s.messages)).toEqual([
      [{ role: "user", content: "one" }],
      [{ role: "user", content: "one" }, { role: "assistant", content: "echo: one" }, { role: "user", content: "two" }],
      // The retried question replaces the exchange it had, not added after it.
      [{ role: "user", content: "one" }, { role: "assistant", content: "echo: one" }, { role: "user", content: "two" }],
      // Two exchanges undone: nothing is left before the next question.
      [{ role: "user", content: "three" }]
    ])
    expect(finished).toEqual(["echo: one", "echo: two", "echo: two", "echo: three"])
  })

  test("/retry after a cancelled answer asks it again; the cancelled exchange was never kept", async () => {
    const { asked } = await run([line("one"), line("slow"), line("/retry")], Effect.sleep("30 millis"))
    expect(asked.map((s) => s.messages.map((m) => m.content))).toEqual([
      ["one"],
      ["one", "echo: one", "slow"],
      ["one", "echo: one", "slow"]
    ])
  })

  test('lines between two """ lines are one message, commands and backslashes included; Ctrl-C drops it', async () => {
    const { asked, prompts } = await run([
      line('"""'),
      line("first line"),
      line("/not a command \\"),
      line(""),
      line('  """  '),
      line('"""'),
      line("dropped"),
      ctrlC,
      line("after")
    ])
    expect(asked.map((s) => s.messages.at(-1)!.content)).toEqual(["first line\n/not a command \\\n", "after"])
    expect(prompts.slice(0, 6)).toEqual(["> ", "... ", "... ", "... ", "... ", "> "])
  })

  test("/usage prints what the backend counts", async () => {
    const { stdout } = await run([line("one"), line("/usage")])
    // The note goes to stderr; stdout has the answer only.
    expect(stdout).toBe("echo: one\n\n")
  })

  test("/clear (like /reset) forgets the conversation; unknown and argument-less commands ask nothing", async () => {
    const { asked, finished } = await run([
      line("one"),
      line("/clear"),
      line("/nope"),
      line("/save"),
      line("two")
    ])
    expect(asked.map((s) => s.messages)).toEqual([
      [{ role: "user", content: "one" }],
      [{ role: "user", content: "two" }]
    ])
    expect(finished).toEqual(["echo: one", "echo: two"])
  })
})
