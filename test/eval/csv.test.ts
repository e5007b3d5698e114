import { describe, expect, test } from "bun:test"
import { CsvError, parseCsv } from "../../src/eval/csv.ts"

const rows = (text: string) => parseCsv(text).map((r) => [r.line, ...r.fields])

const error = (text: string) => {
  try {
    parseCsv(text)
  } catch (e) {
    if (e instanceof CsvError) return [e.line, e.message]
    throw e
  }
  throw new Error("expected a CsvError")
}

describe("parseCsv (RFC 4180)", () => {
  test("plain fields, LF or CRLF, a last line without a newline, empty fields", () => {
    expect(rows("a,b\n1,2\r\n3,\n,4")).toEqual([[1, "a", "b"], [2, "1", "2"], [3, "3", ""], [4, "", "4"]])
  })

  test("quoted fields hold commas, doubled quotes and line breaks; the next record's line counts them", () => {
    expect(rows('x,y\n"a, b","say ""hi"""\n"two\r\nlines","3\n4\n5"\nlast,""\n')).toEqual([
      [1, "x", "y"],
      [2, "a, b", 'say "hi"'],
      [3, "two\r\nlines", "3\n4\n5"],
      [7, "last", ""]
    ])
  })

  test("a BOM is skipped; empty lines are no records", () => {
    expect(rows("\uFEFFinput\n\nhello\n\n")).toEqual([[1, "input"], [3, "hello"]])
  })

  test("malformed quoting is an error on its line", () => {
    expect(error('a\nb"c\n')).toEqual([2, "a quote inside an unquoted field (quote the whole field and write it \"\")"])
    expect(error('a\n"b"c\n')).toEqual([2, "text after the closing quote of a field (a quote inside a field is written \"\")"])
    expect(error('a\n\n"open\nstill\n')).toEqual([3, "a quoted field is not closed"])
  })
})
