// A broken cassette is a broken file: `lait run --replay` reports what is wrong with it (exit 1), and
// never blames a model server that was not asked (a model API error would mean exit 4).
import { afterAll, describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Effect, Exit, Layer, Redacted } from "effect"
import { exitCodeOf, renderChain } from "../../src/core/errors.ts"
import { FileLoader } from "../../src/platform/FileLoader.ts"
import { cassetteProblem } from "../../src/model/cassette/format.ts"
import { callKey } from "../../src/model/cassette/key.ts"
import { type ModelCall, ModelClient } from "../../src/model/ModelClient.ts"
import { RunUsage } from "../../src/model/RunUsage.ts"
import { RunTracer } from "../../src/trace/RunTracer.ts"

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "lait-replay-errors-"))
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

const call: ModelCall = {
  label: "step-1 (prompt)",
  endpoints: [{
    baseUrl: "http://127.0.0.1:9/v1",
    modelId: "fake",
    api: "chat_completions",
    apiKey: Effect.succeed(Redacted.make("unused"))
  }],
  request: { messages: [{ role: "user", content: "hi" }], tools: [], response_format: null }
}

/** Replays `call` from a directory holding one cassette with `text`; the error and its exit code. */
const replayFailure = async (name: string, text: string | undefined) => {
  const cassettes = path.join(dir, name)
  const file = path.join(cassettes, `${callKey(call)}.json`)
  if (text === undefined) fs.mkdirSync(file, { recursive: true })
  else {
    fs.mkdirSync(cassettes, { recursive: true })
    fs.writeFileSync(file, text)
  }
  const exit = await Effect.runPromiseExit(
    ModelClient.use((m) => m.complete(call)).pipe(
      Effect.provide(Layer.mergeAll(ModelClient.layerReplay(cassettes).pipe(Layer.provide(FileLoader.layer)), RunUsage.layer, RunTracer.layer))
    )
  )
  if (Exit.isSuccess(exit)) throw new Error("expected the replay to fail")
  const reason = exit.cause.reasons[0]
  const error = reason?._tag === "Fail" ? reason.error : undefined
  return { message: renderChain(error), code: exitCodeOf(error), file }
}

describe("replaying a broken cassette", () => {
  test("truncated JSON names the JSON problem", async () => {
    const r = await replayFailure("truncated", '{"request": {}, "response": {"choices": [')
    expect(r.message).toMatch(new RegExp(`^failed to parse cassette entry '${r.file}': not valid JSON \\(.+\\)$`))
    expect(r.code).toBe(1)
  })

  test("an empty file, an array and a missing 'response' each say so", async () => {
    expect((await replayFailure("empty", "")).message).toEndWith(": the file is empty")
    expect((await replayFailure("array", "[1]")).message).toEndWith(": expected a JSON object")
    expect((await replayFailure("no-response", '{"request": {}}')).message).toEndWith(": missing field 'response'")
  })

  test("a 'response' of the wrong shape is the file's fault: exit 1, no model server named", async () => {
    const r = await replayFailure("wrong-types", '{"request": {}, "response": {"choices": "hello"}}')
    expect(r.message).toBe(`failed to parse cassette entry '${r.file}': its 'response' is not a chat completion lait can read`)
    expect(r.code).toBe(1)
  })

  test("a directory named like the cassette: one 'failed to read', the path named once", async () => {
    const r = await replayFailure("dir", undefined)
    expect(r.message).toBe(`failed to read cassette '${r.file}': is a directory`)
  })

  test("cassetteProblem", () => {
    expect(cassetteProblem("  \n")).toBe("the file is empty")
    expect(cassetteProblem("null")).toBe("expected a JSON object")
    expect(cassetteProblem("{}")).toBe("missing field 'response'")
    expect(cassetteProblem("{")).toStartWith("not valid JSON (")
  })
})
