// The fixture server's seeded `choices` (used by the eval e2e tests): the answer to a request depends
// on the seed, the body and how many identical bodies came before, never on arrival order.
import { afterEach, expect, test } from "bun:test"
import { type OpenAiServer, seededUnit, startOpenAiServer } from "../fixtures/openai-server.ts"

const servers: Array<OpenAiServer> = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop()))
})

const ask = async (server: OpenAiServer, text: string): Promise<string> => {
  const response = await fetch(`${server.baseUrl}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: "m", messages: [{ role: "user", content: text }] })
  })
  const body = (await response.json()) as { choices: Array<{ message: { content: string } }> }
  return body.choices[0]!.message.content
}

const start = (seed: number) => {
  const s = startOpenAiServer({ script: [{ choices: ["a", "b", "c", "d"], repeat: true }], seed })
  servers.push(s)
  return s
}

test("seededUnit is uniform-looking and deterministic", () => {
  const xs = Array.from({ length: 4000 }, (_, i) => seededUnit(1, `key ${i}`))
  expect(xs.every((x) => x >= 0 && x < 1)).toBe(true)
  const buckets = [0, 0, 0, 0]
  for (const x of xs) buckets[Math.floor(x * 4)]!++
  for (const b of buckets) expect(Math.abs(b - 1000)).toBeLessThan(120)
  expect(seededUnit(1, "k")).toBe(seededUnit(1, "k"))
  expect(seededUnit(1, "k")).not.toBe(seededUnit(2, "k"))
})

test("the same seed gives the same answers per body, sequential or concurrent, interleaved with other bodies", async () => {
  const sequential = start(42)
  const expected: Array<string> = []
  for (let i = 0; i < 12; i++) expected.push(await ask(sequential, "x"))
  expect(new Set(expected).size).toBeGreaterThan(1)

  const concurrent = start(42)
  const answers = await Promise.all([
    ...Array.from({ length: 12 }, () => ask(concurrent, "x")),
    ...Array.from({ length: 5 }, () => ask(concurrent, "y"))
  ])
  // Concurrent arrivals may pair answers with requests differently, but the multiset is the same.
  expect(answers.slice(0, 12).sort()).toEqual([...expected].sort())
  expect(concurrent.draws.filter((d) => JSON.stringify(d.body).includes('"x"'))).toHaveLength(12)
})

test("another seed draws differently", async () => {
  const a = start(1)
  const b = start(2)
  const fromA: Array<string> = []
  const fromB: Array<string> = []
  for (let i = 0; i < 16; i++) {
    fromA.push(await ask(a, "x"))
    fromB.push(await ask(b, "x"))
  }
  expect(fromA).not.toEqual(fromB)
})
