// Model failures are one ModelError with a structured reason: the text is what lait always printed,
// the exit code comes from core/errors.ts's table (4 when a server was asked, 1 for a cassette), and
// callers match the reason instead of the message.
import { afterAll, afterEach, describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Effect, Layer, Redacted } from "effect"
import { ModelHttp } from "../../src/model/ModelHttp.ts"
import { errorClassOf, exitCodeOf, renderChain, withContext } from "../../src/core/errors.ts"
import { FileLoader } from "../../src/platform/FileLoader.ts"
import { callKey } from "../../src/model/cassette/key.ts"
import { type Endpoint, type ModelCall, ModelClient } from "../../src/model/ModelClient.ts"
import {
  BadResponse,
  CassetteInvalid,
  CassetteMissing,
  HttpStatus,
  ModelError,
  type ModelErrorReason,
  ResponseTooLarge,
  Timeout,
  Unreachable
} from "../../src/model/ModelError.ts"
import { RunUsage } from "../../src/model/RunUsage.ts"
import { RunTracer } from "../../src/trace/RunTracer.ts"
import { type OpenAiServer, startOpenAiServer } from "../fixtures/openai-server.ts"

const url = "http://127.0.0.1:9/v1"

const cases: ReadonlyArray<readonly [ModelErrorReason, string, number, boolean]> = [
  [new Unreachable({ baseUrl: url, detail: "connection refused" }), `failed to reach '${url}': connection refused`, 4, true],
  [new Timeout({ baseUrl: url, timeoutMillis: 300_000 }), `failed to reach '${url}': timed out after 300 s`, 4, true],
  [new HttpStatus({ baseUrl: url, status: 503 }), `the model server at '${url}' answered HTTP 503`, 4, true],
  [new HttpStatus({ baseUrl: url, status: 429, detail: "slow down" }), `the model server at '${url}' answered HTTP 429: slow down`, 4, true],
  [new HttpStatus({ baseUrl: url, status: 400, detail: "bad" }), `the model server at '${url}' answered HTTP 400: bad`, 4, false],
  [
    new HttpStatus({ baseUrl: url, status: 502, bodyLimit: 1024 }),
    `the model server at '${url}' answered HTTP 502 (response from '${url}' exceeds 1 KiB)`,
    4,
    true
  ],
  [new BadResponse({ baseUrl: url, problem: "invalid-json" }), `the model server at '${url}' returned invalid JSON`, 4, false],
  [new BadResponse({ baseUrl: url, problem: "reported", detail: "quota" }), `the model server at '${url}' reported: quota`, 4, false],
  [new BadResponse({ baseUrl: url, problem: "unreadable" }), `the model server at '${url}' returned a response lait cannot read`, 4, false],
  [new BadResponse({ baseUrl: url, problem: "no-choices" }), `the model server at '${url}' returned no choices`, 4, false],
  [new ResponseTooLarge({ baseUrl: url, limit: 16 * 1024 * 1024 }), `response from '${url}' exceeds 16 MiB`, 4, false],
  [
    new CassetteMissing({ path: "c/k.json", dir: "c", modelId: "m" }),
    "no recorded cassette for this request (model 'm') at 'c/k.json'; run `lait run --record c` first against the " +
      "same workflow/input/vars, or check that they still match this recording",
    1,
    false
  ],
  [
    new CassetteInvalid({ path: "c/k.json", stage: "parse", problem: "the file is empty" }),
    "failed to parse cassette entry 'c/k.json': the file is empty",
    1,
    false
  ],
  [
    new CassetteInvalid({ path: "c/k.json", stage: "read", problem: "is a directory" }),
    "failed to read cassette 'c/k.json': is a directory",
    1,
    false
  ]
]

describe("ModelError", () => {
  test.each(cases)("%o: its text, exit code and whether it may go away", (reason, text, code, transient) => {
    const error = new ModelError({ reason })
    expect(renderChain(error)).toBe(text)
    expect<number>(exitCodeOf(error)).toBe(code)
    expect(error.transient).toBe(transient)
    expect(error.status).toBe(reason._tag === "HttpStatus" ? reason.status : undefined)
  })

  test("wrapped in context it keeps its exit code and reports its general class", () => {
    const live = new ModelError({ reason: new Unreachable({ baseUrl: url, detail: "connection reset" }) })
    const wrapped = withContext("step 'ask'")(live)
    expect([wrapped._tag, exitCodeOf(wrapped), renderChain(wrapped)]).toEqual([
      "ModelApiError",
      4,
      `step 'ask': failed to reach '${url}': connection reset`
    ])
    const missing = new ModelError({ reason: new CassetteMissing({ path: "p", dir: "d", modelId: "m" }) })
    expect([withContext("step 'ask'")(missing)._tag, exitCodeOf(withContext("x")(missing))]).toEqual(["LaitError", 1])
    // The trace's error.type keeps the names it had before model errors had their own class.
    expect([errorClassOf(live), errorClassOf(missing)]).toEqual(["ModelApiError", "LaitError"])
  })
})

const SECRET = "sk-test-SECRET-0123456789"
let server: OpenAiServer | undefined
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "lait-model-error-"))
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))
afterEach(async () => {
  await server?.stop()
  server = undefined
})

const endpoint = (baseUrl: string): Endpoint => ({
  baseUrl,
  modelId: "fixture-model",
  api: "chat_completions",
  apiKey: Effect.succeed(Redacted.make(SECRET))
})
const call = (baseUrl: string): ModelCall => ({
  label: "step-1 (prompt)",
  endpoints: [endpoint(baseUrl)],
  request: { messages: [{ role: "user", content: "hi" }], tools: [], response_format: null }
})

/** The reason `layer` fails `call` with. */
const reasonOf = (layer: Layer.Layer<ModelClient>, c: ModelCall) =>
  Effect.runPromise(
    ModelClient.use((m) => m.complete(c)).pipe(
      Effect.flip,
      Effect.map((e) => (e instanceof ModelError ? e.reason : e)),
      Effect.provide(Layer.mergeAll(layer, RunUsage.layer, RunTracer.layer))
    )
  )

describe("the layers fail with a reason", () => {
  const live = ModelClient.layerLive({ attempts: 1 }).pipe(Layer.provide(ModelHttp.layer))

  test("live: a refused status carries the status and the server's words, not the key", async () => {
    server = startOpenAiServer({ script: [{ status: 401, body: { error: { message: `bad key ${SECRET}` } } }] })
    const reason = await reasonOf(live, call(server.baseUrl))
    expect(reason).toBeInstanceOf(HttpStatus)
    expect<object>({ ...(reason as HttpStatus) }).toEqual({
      _tag: "HttpStatus",
      baseUrl: server.baseUrl,
      status: 401,
      detail: "bad key <redacted>"
    })
  })

  test("live: callers recover by reason, not by matching the text", async () => {
    server = startOpenAiServer({ script: [{ status: 200, body: { choices: [] } }] })
    const recovered = await Effect.runPromise(
      ModelClient.use((m) => m.complete(call(server!.baseUrl))).pipe(
        Effect.as("answered"),
        Effect.catchReason("ModelError", "BadResponse", (r) => Effect.succeed(r.problem)),
        Effect.provide(Layer.mergeAll(live, RunUsage.layer, RunTracer.layer))
      )
    )
    expect(recovered).toBe("no-choices")
  })

  test("replay: a missing and a broken cassette are told apart", async () => {
    const cassettes = path.join(dir, "cassettes")
    const replay = ModelClient.layerReplay(cassettes).pipe(Layer.provide(FileLoader.layer))
    const c = call(url)
    const missing = await reasonOf(replay, c)
    expect(missing).toBeInstanceOf(CassetteMissing)
    expect((missing as CassetteMissing).path).toBe(path.join(cassettes, `${callKey(c)}.json`))
    fs.mkdirSync(cassettes, { recursive: true })
    fs.writeFileSync(path.join(cassettes, `${callKey(c)}.json`), "")
    expect<object>({ ...(await reasonOf(replay, c)) }).toEqual({
      _tag: "CassetteInvalid",
      path: path.join(cassettes, `${callKey(c)}.json`),
      stage: "parse",
      problem: "the file is empty"
    })
  })
})
