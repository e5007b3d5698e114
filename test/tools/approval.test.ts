import { describe, expect, test } from "bun:test"
import { Effect, Fiber } from "effect"
import { LaitError } from "../../src/core/errors.ts"
import { approve, type ApprovalRequest, ApprovalTerminal, INTERACTIVE_DENIAL } from "../../src/tools/approval.ts"
import { ApproveTools } from "../../src/tools/ApproveTools.ts"
import { failureOf } from "./helpers.ts"

/** A terminal that answers from a list and logs what was written and when a read started. */
const scripted = (answers: Array<string>, options: { interactive?: boolean; readDelayMs?: number } = {}) => {
  const log: Array<string> = []
  const terminal: ApprovalTerminal = {
    interactive: () => options.interactive ?? true,
    write: (text) => Effect.sync(() => void log.push(text)),
    readLine: Effect.gen(function*() {
      log.push("<read>")
      if (options.readDelayMs !== undefined) yield* Effect.sleep(options.readDelayMs)
      const answer = answers.shift()
      if (answer === undefined) return yield* new LaitError({ message: "no more answers" })
      return answer
    })
  }
  return { terminal, log }
}

const request = (name: string, always = new Set<string>(), command?: string): ApprovalRequest => ({
  name,
  arguments: `{"q":1}`,
  command: Effect.succeed(command),
  always
})

const withTerminal = <A, E>(terminal: ApprovalTerminal, effect: Effect.Effect<A, E>, on = true) =>
  effect.pipe(Effect.provideService(ApprovalTerminal, terminal), Effect.provideService(ApproveTools, on))

describe("--approve-tools", () => {
  test("off: every call is allowed without asking", async () => {
    const { terminal, log } = scripted([])
    expect(await Effect.runPromise(withTerminal(terminal, approve(request("tool__x")), false))).toEqual({ allowed: true })
    expect(log).toEqual([])
  })

  test("the prompt on stderr, then y allows, n denies, and a shell tool shows its command", async () => {
    const { terminal, log } = scripted(["y\n", "N\n"])
    expect(await Effect.runPromise(withTerminal(terminal, approve(request("tool__echo", new Set(), `["echo", "hi"]`)))))
      .toEqual({ allowed: true })
    expect(await Effect.runPromise(withTerminal(terminal, approve(request("srv__t")))))
      .toEqual({ allowed: false, reason: INTERACTIVE_DENIAL })
    expect(INTERACTIVE_DENIAL).toBe("denied interactively (--approve-tools)")
    expect(log).toEqual([
      `tool call: tool__echo\narguments: {"q":1}\ncommand: ["echo", "hi"]\nallow this call? [y(es)/n(o)/a(lways for this tool)] `,
      "<read>",
      `tool call: srv__t\narguments: {"q":1}\nallow this call? [y(es)/n(o)/a(lways for this tool)] `,
      "<read>"
    ])
  })

  test("a allows this tool for the rest of the run without asking again", async () => {
    const { terminal, log } = scripted(["A\r\n"])
    const always = new Set<string>()
    expect(await Effect.runPromise(withTerminal(terminal, approve(request("tool__x", always))))).toEqual({ allowed: true })
    expect(await Effect.runPromise(withTerminal(terminal, approve(request("tool__x", always))))).toEqual({ allowed: true })
    expect(always).toEqual(new Set(["tool__x"]))
    expect(log.filter((l) => l === "<read>")).toHaveLength(1)
  })

  test("any other answer is an error", async () => {
    const { terminal } = scripted(["yes\n"])
    expect((await failureOf(withTerminal(terminal, approve(request("tool__x"))))).message).toBe(
      `unrecognized answer "yes" to 'allow this call?' for tool 'tool__x'; expected 'y', 'n', or 'a'`
    )
    const eof = scripted([""])
    expect((await failureOf(withTerminal(eof.terminal, approve(request("tool__x"))))).message).toBe(
      `unrecognized answer "" to 'allow this call?' for tool 'tool__x'; expected 'y', 'n', or 'a'`
    )
  })

  test("without a terminal it is an error, and nothing is asked", async () => {
    const { terminal, log } = scripted([], { interactive: false })
    expect((await failureOf(withTerminal(terminal, approve(request("tool__x"))))).message).toBe(
      "'--approve-tools' requires an interactive stdin to confirm calling 'tool__x', but stdin is not a terminal"
    )
    expect(log).toEqual([])
  })

  test("prompts are serialised process-wide, and an 'a' given meanwhile is honoured", async () => {
    const { terminal, log } = scripted(["a\n", "y\n"], { readDelayMs: 100 })
    const always = new Set<string>()
    const outcome = await Effect.runPromise(
      withTerminal(
        terminal,
        Effect.gen(function*() {
          const first = yield* Effect.forkChild(approve(request("tool__x", always)))
          yield* Effect.sleep(10)
          const second = yield* Effect.forkChild(approve(request("tool__x", always)))
          const third = yield* Effect.forkChild(approve(request("tool__y", always)))
          return [yield* Fiber.join(first), yield* Fiber.join(second), yield* Fiber.join(third)]
        })
      )
    )
    expect(outcome).toEqual([{ allowed: true }, { allowed: true }, { allowed: true }])
    // tool__x asked once (the second waited and then found the 'a'); tool__y asked after it, never interleaved.
    expect(log.map((l) => (l === "<read>" ? l : l.split("\n")[0]))).toEqual([
      "tool call: tool__x",
      "<read>",
      "tool call: tool__y",
      "<read>"
    ])
  })
})
