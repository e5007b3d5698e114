// A small support-ticket triage app written against the official `openai` npm client, as an app
// that knows nothing of lait would be: the ticket on stdin, a JSON verdict on stdout. The model may
// look the customer up first (a tool the app runs itself). `lait test` and `lait eval` run it as an
// exec target and answer its model calls from examples/apps/triage/cassettes (docs/apps.md).
import OpenAI from "openai"
import { readFileSync } from "node:fs"

const client = new OpenAI() // OPENAI_BASE_URL and OPENAI_API_KEY come from the environment
const model = process.env.TRIAGE_MODEL ?? "qwen2.5-7b-instruct"
const customers = { "ada@example.com": { plan: "enterprise", open_tickets: 0 } }

const tools = [{
  type: "function",
  function: {
    name: "lookup_customer",
    description: "The customer's plan and open tickets, by e-mail address",
    parameters: { type: "object", properties: { email: { type: "string" } }, required: ["email"] }
  }
}]
const messages = [
  {
    role: "system",
    content: "Triage the support ticket. Look the customer up when the ticket gives an e-mail address. " +
      'Answer with JSON only: {"category": "billing"|"outage"|"other", "priority": "low"|"normal"|"high"}.'
  },
  { role: "user", content: readFileSync(0, "utf8").trim() }
]

for (let round = 0; round < 4; round++) {
  const answer = await client.chat.completions.create({ model, messages, tools, temperature: 0 })
  const message = answer.choices[0].message
  if (!message.tool_calls?.length) {
    console.log(JSON.stringify(JSON.parse(message.content)))
    process.exit(0)
  }
  messages.push(message)
  for (const call of message.tool_calls) {
    const { email } = JSON.parse(call.function.arguments)
    messages.push({ role: "tool", tool_call_id: call.id, content: JSON.stringify(customers[email] ?? null) })
  }
}
console.error("triage: the model kept asking for tools")
process.exit(1)
