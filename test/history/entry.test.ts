// The history file's line format, `lait history`'s numbering, filters, `--since`, search and the
// printed forms, as the original lait has them.
import { describe, expect, test } from "bun:test"
import {
  entryJson,
  entryLine,
  type HistoryEntry,
  listEntries,
  listLine,
  numberNewestFirst,
  parseHistory,
  parseRfc3339,
  parseSince,
  searchEntries,
  showText,
  summarize,
  timestampOf
} from "../../src/history/entry.ts"

const entry = (over: Partial<HistoryEntry>): HistoryEntry => ({
  timestamp: "2026-09-04T10:20:30+00:00",
  kind: "chat",
  model: null,
  prompt: "p",
  response: "r",
  usage: null,
  ...over
})

const at = (iso: string) => Date.parse(iso)

describe("the line format", () => {
  test("one compact JSON line with the original's fields in its order; workflow only when set", () => {
    expect(entryLine(entry({ model: "m", usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 } }))).toBe(
      "{\"timestamp\":\"2026-09-04T10:20:30+00:00\",\"kind\":\"chat\",\"model\":\"m\",\"prompt\":\"p\",\"response\":\"r\"," +
        "\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":2,\"total_tokens\":3}}\n"
    )
    expect(entryLine(entry({ kind: "workflow", prompt: "a\nb", workflow: "/w.yml" }))).toBe(
      "{\"timestamp\":\"2026-09-04T10:20:30+00:00\",\"kind\":\"workflow\",\"model\":null,\"prompt\":\"a\\nb\"," +
        "\"response\":\"r\",\"usage\":null,\"workflow\":\"/w.yml\"}\n"
    )
  })

  test("a written line reads back as the same entry", () => {
    const written = entry({ model: "m", prompt: "日本語\n\"quoted\"", workflow: "/x.yml" })
    expect(parseHistory(entryLine(written))).toEqual({ entries: [written], corrupt: [] })
  })

  test("the timestamp is RFC 3339 in UTC with +00:00, as the original writes it", () => {
    expect(timestampOf(new Date(Date.UTC(2026, 8, 4, 10, 20, 30, 5)))).toBe("2026-09-04T10:20:30.005+00:00")
  })

  test("a line the original wrote (no workflow, usage absent, nanoseconds) is read", () => {
    const line = "{\"timestamp\":\"2026-09-04T10:20:30.123456789+00:00\",\"kind\":\"prompt\",\"model\":\"gpt\"," +
      "\"prompt\":\"hi\",\"response\":\"yo\",\"usage\":{\"prompt_tokens\":5,\"total_tokens\":7}}"
    expect(parseHistory(line).entries).toEqual([{
      timestamp: "2026-09-04T10:20:30.123456789+00:00",
      kind: "prompt",
      model: "gpt",
      prompt: "hi",
      response: "yo",
      usage: { prompt_tokens: 5, completion_tokens: 0, total_tokens: 7 }
    }])
  })
})

describe("lines that are not entries", () => {
  test("are reported with their line number and skipped; blank lines are neither; the rest keep their order", () => {
    const text = [
      entryLine(entry({ prompt: "first" })).trimEnd(),
      "{\"timestamp\":\"2026-09-04T10:2", // cut short
      "",
      "[1,2]",
      "{\"timestamp\":\"t\",\"kind\":\"chat\",\"prompt\":3,\"response\":\"r\"}",
      "{\"timestamp\":\"t\",\"kind\":\"chat\",\"prompt\":\"p\",\"response\":\"r\",\"usage\":{\"prompt_tokens\":-1}}",
      entryLine(entry({ prompt: "second" })).trimEnd(),
      ""
    ].join("\n")
    const { entries, corrupt } = parseHistory(text)
    expect(entries.map((e) => e.prompt)).toEqual(["first", "second"])
    expect(corrupt).toEqual([
      { line: 2, problem: "not valid JSON" },
      { line: 4, problem: "not a JSON object" },
      { line: 5, problem: "'prompt' is missing or not a string" },
      { line: 6, problem: "'usage' is not token counts" }
    ])
  })
})

describe("numbering and filters", () => {
  const entries = [
    entry({ prompt: "one", model: "gpt-local", timestamp: "2026-09-01T00:00:00+00:00" }),
    entry({ prompt: "two", kind: "workflow", timestamp: "2026-09-10T00:00:00+00:00" }),
    entry({ prompt: "three", model: "other", response: "Bonjour", timestamp: "2026-09-20T12:00:00+02:00" }),
    entry({ prompt: "four", timestamp: "not a time" })
  ]
  const numbered = numberNewestFirst(entries)

  test("1 is the newest", () => {
    expect(numbered.map((n) => [n.number, n.entry.prompt])).toEqual([[1, "four"], [2, "three"], [3, "two"], [4, "one"]])
  })

  test("filtered lists keep the numbers of the whole history; --limit counts what passes", () => {
    const prompts = (f: Parameters<typeof listEntries>[1], limit = 20) =>
      listEntries(numbered, f, limit).map((n) => [n.number, n.entry.prompt])
    expect(prompts({ kind: "chat" })).toEqual([[1, "four"], [2, "three"], [4, "one"]])
    expect(prompts({ kind: "chat" }, 2)).toEqual([[1, "four"], [2, "three"]])
    // Substring, case-sensitive; an entry without a model never matches.
    expect(prompts({ model: "local" })).toEqual([[4, "one"]])
    expect(prompts({ model: "LOCAL" })).toEqual([])
    // An unparsable timestamp is never recent enough.
    expect(prompts({ since: at("2026-09-10T00:00:00Z") })).toEqual([[2, "three"], [3, "two"]])
    expect(prompts({ since: at("2026-09-20T10:00:00.001Z") })).toEqual([])
    expect(prompts({ kind: "chat", since: at("2026-09-02T00:00:00Z") })).toEqual([[2, "three"]])
  })

  test("search: prompt or response, ignoring case, filters applied, numbers kept", () => {
    expect(searchEntries(numbered, "BONJOUR", {}).map((n) => n.number)).toEqual([2])
    expect(searchEntries(numbered, "o", { kind: "workflow" }).map((n) => n.number)).toEqual([3])
    expect(searchEntries(numbered, "Écol", {})).toEqual([])
    expect(searchEntries(numberNewestFirst([entry({ response: "Café École" })]), "école", {}).length).toBe(1)
  })
})

describe("--since", () => {
  const now = at("2026-09-25T12:00:00Z")
  test("a date is midnight UTC; an RFC 3339 time in any offset; N m/h/d/w back from now", () => {
    expect(parseSince("2026-09-01", now)).toBe(at("2026-09-01T00:00:00Z"))
    expect(parseSince("2026-09-24T10:00:00+09:00", now)).toBe(at("2026-09-24T01:00:00Z"))
    expect(parseSince("2026-09-24t10:00:00.5z", now)).toBe(at("2026-09-24T10:00:00.500Z"))
    expect(parseSince(" 12h ", now)).toBe(at("2026-09-25T00:00:00Z"))
    expect(parseSince("30m", now)).toBe(at("2026-09-25T11:30:00Z"))
    expect(parseSince("7d", now)).toBe(at("2026-09-18T12:00:00Z"))
    expect(parseSince("1w", now)).toBe(at("2026-09-18T12:00:00Z"))
    expect(parseSince("0d", now)).toBe(now)
  })

  test("anything else is refused", () => {
    for (const bad of ["7x", "yesterday", "", "h", "-1d", "1.5h", "2026-02-30", "2026-9-1", "2026-09-01T25:00:00Z"]) {
      expect([bad, parseSince(bad, now)]).toEqual([bad, undefined])
    }
  })

  test("entry timestamps: the original's nanoseconds and offsets", () => {
    expect(parseRfc3339("2026-09-04T10:20:30.123456789+00:00")).toBe(at("2026-09-04T10:20:30.123Z"))
    expect(parseRfc3339("2026-09-04T10:20:30-01:30")).toBe(at("2026-09-04T11:50:30Z"))
    expect(parseRfc3339("2026-09-04")).toBeUndefined()
  })
})

describe("what is printed", () => {
  test("a list line: number, timestamp, kind, model or -, the prompt on one line", () => {
    expect(listLine({ number: 3, entry: entry({ model: "m", prompt: "  Rust\n\tについて  説明して " }) })).toBe(
      "3\t2026-09-04T10:20:30+00:00\tchat\tm\tRust について 説明して"
    )
    expect(listLine({ number: 1, entry: entry({ kind: "workflow" }) })).toBe(
      "1\t2026-09-04T10:20:30+00:00\tworkflow\t-\tp"
    )
  })

  test("summaries are cut at 60 characters (not bytes) with ...", () => {
    expect(summarize("hello world")).toBe("hello world")
    expect(summarize("x".repeat(60))).toBe("x".repeat(60))
    expect(summarize("word ".repeat(30))).toBe(`${"word ".repeat(12)}...`)
    expect(summarize("あ".repeat(61))).toBe(`${"あ".repeat(60)}...`)
  })

  test("show: header lines (model, workflow and usage only when known), then prompt and response whole", () => {
    expect(showText(entry({ model: "m", usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 } })))
      .toBe("timestamp: 2026-09-04T10:20:30+00:00\nkind: chat\nmodel: m\nusage: prompt=1 completion=2 total=3\n\nprompt:\np\n\nresponse:\nr")
    expect(showText(entry({ kind: "workflow", workflow: "/w.yml", prompt: "a\nb" })))
      .toBe("timestamp: 2026-09-04T10:20:30+00:00\nkind: workflow\nworkflow: /w.yml\n\nprompt:\na\nb\n\nresponse:\nr")
  })

  test("--json: the number first, then the stored fields", () => {
    expect(Object.keys(entryJson({ number: 2, entry: entry({ workflow: "/w" }) }))).toEqual(
      ["number", "timestamp", "kind", "model", "prompt", "response", "usage", "workflow"]
    )
  })
})
