import { afterAll, describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Effect, Fiber, Layer } from "effect"
import { LaitError, ModelApiError } from "../../src/core/errors.ts"
import { FileLoader } from "../../src/platform/FileLoader.ts"
import type { Json } from "../../src/core/json.ts"
import { loadWorkflow } from "../../src/lang/load.ts"
import { type RecordedEvent, RunTracer, withSpan } from "../../src/trace/RunTracer.ts"
import { Engine } from "../../src/workflow/Engine.ts"
import { LlmSteps } from "../../src/workflow/LlmSteps.ts"
import { Progress } from "../../src/workflow/progress.ts"
import { RunContext } from "../../src/workflow/RunContext.ts"

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "lait-tracer-"))
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

const at = (ms: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, 0, ms))

const withTracer = <A, E>(f: (tracer: RunTracer["Service"]) => Effect.Effect<A, E, RunTracer>) =>
  Effect.runPromise(Effect.flatMap(RunTracer, f).pipe(Effect.provide(RunTracer.layer)) as Effect.Effect<A, E>)

/** `[operation label] → parent's [operation label]` for every recorded event, in seq order. */
const shape = (events: ReadonlyArray<RecordedEvent>) => {
  const byId = new Map(events.map((e) => [e.span_id, e]))
  return events.map((e) => {
    const parent = e.parent_span_id === null ? undefined : byId.get(e.parent_span_id)
    return `${e.operation} ${e.label} <- ${parent === undefined ? "(root)" : `${parent.operation} ${parent.label}`}`
  })
}

describe("record", () => {
  test("seq in recording order, RFC 3339 UTC times, duration truncated and never negative", async () => {
    const all = await withTracer((t) =>
      Effect.gen(function*() {
        yield* t.record({ operation: "chat", label: "a", start: at(0), end: at(42), attributes: { "gen_ai.request.model": "m" } })
        yield* t.record({ operation: "execute_tool", label: "tool 'x'", start: at(1000), end: at(900), attributes: {} })
        return yield* t.all
      })
    )
    expect(all.map((e) => [e.seq, e.operation, e.label, e.start, e.end, e.duration_ms])).toEqual([
      [0, "chat", "a", "2026-01-01T00:00:00Z", "2026-01-01T00:00:00.042Z", 42],
      [1, "execute_tool", "tool 'x'", "2026-01-01T00:00:01Z", "2026-01-01T00:00:00.900Z", 0]
    ])
    expect(all.every((e) => /^[0-9a-f]{16}$/.test(e.span_id) && e.parent_span_id === null)).toBe(true)
    expect(new Set(all.map((e) => e.span_id)).size).toBe(2)
  })

  test("events leaves the run and step spans out; all has everything", async () => {
    const [events, all] = await withTracer((t) =>
      Effect.gen(function*() {
        yield* t.span(
          { operation: "step", label: "s" },
          t.record({ operation: "chat", label: "s", start: at(0), end: at(1), attributes: {} })
        )
        return [yield* t.events, yield* t.all] as const
      })
    )
    expect(events.map((e) => e.operation)).toEqual(["chat"])
    expect(all.map((e) => e.operation)).toEqual(["chat", "step"])
  })
})

describe("spans", () => {
  test("what is recorded inside a span is its child; the span is recorded when it ends", async () => {
    const all = await withTracer((t) =>
      Effect.gen(function*() {
        yield* t.span(
          { operation: "invoke_workflow", label: "wf", attributes: { "lait.workflow.path": "/x.yml" } },
          Effect.gen(function*() {
            yield* t.span({ operation: "step", label: "one", attributes: { "lait.step.kind": "prompt" } }, Effect.gen(function*() {
              yield* t.record({ operation: "chat", label: "one", start: at(0), end: at(1), attributes: {} })
              yield* t.record({ operation: "execute_tool", label: "tool 'e'", start: at(1), end: at(2), attributes: {} })
            }))
            yield* t.span({ operation: "step", label: "two" }, Effect.void)
          })
        )
        return yield* t.all
      })
    )
    expect(shape(all)).toEqual([
      "chat one <- step one",
      "execute_tool tool 'e' <- step one",
      "step one <- invoke_workflow wf",
      "step two <- invoke_workflow wf",
      "invoke_workflow wf <- (root)"
    ])
    expect(all[2]!.attributes).toEqual({ "lait.step.kind": "prompt" })
    expect(all[4]!.attributes).toEqual({ "lait.workflow.path": "/x.yml" })
  })

  test("concurrent fibers each nest under their own span", async () => {
    const all = await withTracer((t) =>
      Effect.forEach(
        ["a", "b", "c"],
        (name, i) =>
          t.span(
            { operation: "step", label: name },
            Effect.sleep(`${(3 - i) * 5} millis`).pipe(
              Effect.andThen(t.record({ operation: "chat", label: name, start: at(0), end: at(1), attributes: {} }))
            )
          ),
        { concurrency: "unbounded" }
      ).pipe(Effect.andThen(t.all))
    )
    for (const e of all.filter((e) => e.operation === "chat")) {
      const parent = all.find((p) => p.span_id === e.parent_span_id)
      expect(parent?.label).toBe(e.label)
    }
  })

  test("a failed span carries error.type: the HTTP status, else the error class", async () => {
    const all = await withTracer((t) =>
      Effect.gen(function*() {
        yield* Effect.ignore(t.span({ operation: "step", label: "http" }, Effect.fail(new ModelApiError({ message: "x", status: 503 }))))
        yield* Effect.ignore(t.span({ operation: "step", label: "lait", attributes: { k: 1 } }, Effect.fail(new LaitError({ message: "x" }))))
        return yield* t.all
      })
    )
    expect(all.map((e) => e.attributes)).toEqual([
      { "error.type": "503", "error.message": "x" },
      { k: 1, "error.type": "LaitError", "error.message": "x" }
    ])
  })

  test("an interrupted span is recorded as cancelled", async () => {
    const all = await withTracer((t) =>
      Effect.gen(function*() {
        const fiber = yield* Effect.forkChild(t.span({ operation: "step", label: "slow" }, Effect.never))
        yield* Effect.sleep("5 millis")
        yield* Fiber.interrupt(fiber)
        return yield* t.all
      })
    )
    expect(all.map((e) => [e.label, e.attributes])).toEqual([["slow", { "error.type": "cancelled" }]])
  })

  test("a span of another run's tracer is never a parent", async () => {
    const other = await Effect.runPromise(Effect.map(RunTracer, (t) => t).pipe(Effect.provide(RunTracer.layer)))
    const mine = await withTracer((t) =>
      other.span({ operation: "step", label: "foreign" }, t.record({ operation: "chat", label: "c", start: at(0), end: at(1), attributes: {} }))
        .pipe(Effect.andThen(t.all))
    )
    expect(mine.map((e) => e.parent_span_id)).toEqual([null])
  })

  test("withSpan is a no-op without a RunTracer in context", async () => {
    expect(await Effect.runPromise(withSpan({ operation: "step", label: "s" }, Effect.succeed(7)))).toBe(7)
  })
})

describe("the engine's spans", () => {
  /** prompt steps answered without a model: each records a chat event as ModelClient would. */
  const fakeModelSteps = Layer.effect(
    LlmSteps,
    Effect.map(RunTracer, (tracer) =>
      LlmSteps.of({
        runPrompt: (step, input, ctx) =>
          Effect.gen(function*() {
            const start = new Date()
            if (ctx.label === "boom") {
              yield* tracer.record({ operation: "chat", label: ctx.label, start, end: new Date(), attributes: { "error.type": "500" } })
              return yield* new ModelApiError({ message: "scripted failure", status: 500 })
            }
            yield* tracer.record({ operation: "chat", label: ctx.label, start, end: new Date(), attributes: {} })
            return `${step.id ?? "?"}:${JSON.stringify(input)}` as Json
          }),
        runAgent: () => Effect.fail(new LaitError({ message: "no agents here" }))
      }))
  )

  const run = (file: string) =>
    Effect.runPromise(
      Effect.gen(function*() {
        const workflow = yield* loadWorkflow(file)
        yield* (yield* Engine).run(workflow, "go", {})
        return yield* (yield* RunTracer).all
      }).pipe(Effect.provide(fakeModelSteps.pipe(Layer.provideMerge(Layer.mergeAll(Engine.layer, RunTracer.layer, FileLoader.layer, Progress.layerSilent, RunContext.layer({ env: {} }))))))
    )

  test("run → steps → model calls, through for_each, parallel, on_error and a child workflow", async () => {
    fs.writeFileSync(path.join(dir, "child.yml"), "name: child\nsteps:\n  - id: inner\n    prompt: 'in {{ input }}'\n")
    const file = path.join(dir, "main.yml")
    fs.writeFileSync(
      file,
      `name: main
steps:
  - id: first
    prompt: 'hi {{ input }}'
  - id: each
    for_each: '[1, 2]'
    max_concurrency: 2
    steps:
      - id: item
        prompt: 'item {{ input }}'
  - id: both
    parallel:
      left:
        - id: l
          prompt: 'left'
      right:
        - id: r
          jq: '.'
  - id: boom
    prompt: 'fails'
    on_error:
      - id: recover
        jq: '.error'
  - id: nested
    workflow: ./child.yml
`
    )
    const all = await run(file)
    const lines = shape(all)
    const count = (line: string) => lines.filter((l) => l === line).length
    expect(count("chat first <- step first")).toBe(1)
    expect(count("step first <- invoke_workflow main")).toBe(1)
    expect(count("chat item <- step item")).toBe(2)
    expect(count("step item <- step each")).toBe(2)
    expect(count("step each <- invoke_workflow main")).toBe(1)
    expect(count("chat l <- step l")).toBe(1)
    expect(count("step l <- step both")).toBe(1)
    expect(count("step r <- step both")).toBe(1)
    expect(count("chat boom <- step boom")).toBe(1)
    expect(count("step boom <- invoke_workflow main")).toBe(1)
    expect(count("step recover <- invoke_workflow main")).toBe(1)
    expect(count("chat inner <- step inner")).toBe(1)
    expect(count("step inner <- invoke_workflow child")).toBe(1)
    expect(count("invoke_workflow child <- step nested")).toBe(1)
    expect(lines[lines.length - 1]).toBe("invoke_workflow main <- (root)")
    expect(lines).toHaveLength(19)
    const boom = all.find((e) => e.operation === "step" && e.label === "boom")!
    expect(boom.attributes).toEqual({
      "lait.step.kind": "prompt",
      "error.type": "500",
      "error.message": "scripted failure"
    })
    expect(all.find((e) => e.operation === "step" && e.label === "each")!.attributes).toEqual({ "lait.step.kind": "for_each" })
    expect(all.find((e) => e.operation === "invoke_workflow" && e.label === "child")!.attributes).toEqual({
      "lait.workflow.path": fs.realpathSync(path.join(dir, "child.yml"))
    })
  })

  test("a file without a name is named after its file; skipped steps have no span", async () => {
    const file = path.join(dir, "no-name.yml")
    fs.writeFileSync(file, "steps:\n  - id: skipped\n    when: 'false'\n    jq: '.'\n  - jq: '.'\n")
    expect(shape(await run(file))).toEqual(["step step-2 (jq) <- invoke_workflow no-name", "invoke_workflow no-name <- (root)"])
  })
})
