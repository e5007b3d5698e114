// The floor of the eval rows: a plain `fetch` loop, no lait, sending the same requests as
// `lait eval` (same bodies and headers, the same number at once) to the same fixture server.
// Run as its own process, like lait:
//   bun bench/eval/plainFetch.ts --url BASE_URL --cases N --repeat N --jobs N
// It prints the wall time of its request loop (ms) on stdout; the process's own start-up is what a
// harness timing it from outside adds.
import { flag } from "../util.ts"

const baseUrl = flag("--url")
if (baseUrl === undefined) throw new Error("--url BASE_URL is required")
const cases = Number(flag("--cases") ?? 40)
const repeat = Number(flag("--repeat") ?? 5)
const jobs = Number(flag("--jobs") ?? 8)

const bodies = Array.from({ length: cases }, (_, i) =>
  JSON.stringify({ model: "bench-model", messages: [{ role: "user", content: `question number ${i + 1}` }] }))
const url = `${baseUrl}/chat/completions`
let next = 0
const total = cases * repeat

const slot = async () => {
  for (;;) {
    const i = next++
    if (i >= total) return
    const res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer sk-dummy" },
      body: bodies[Math.floor(i / repeat)]!
    })
    const answer = (await res.json()) as { choices: Array<{ message: { content: string } }> }
    if (!answer.choices[0]!.message.content.includes(`question number ${Math.floor(i / repeat) + 1}`)) {
      throw new Error(`unexpected answer to request ${i}`)
    }
  }
}

const started = performance.now()
await Promise.all(Array.from({ length: jobs }, slot))
process.stdout.write(`${(performance.now() - started).toFixed(1)}\n`)
