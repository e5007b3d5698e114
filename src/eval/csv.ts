// A CSV reader for eval case files (RFC 4180): comma-separated fields, records ended by CRLF or LF,
// fields in double quotes may hold commas, line breaks and `""` for a quote. A quote anywhere else,
// text after a closing quote, or a quote left open is an error naming its line, since a guess would
// silently turn one case into another. A leading UTF-8 BOM (spreadsheet exports) is skipped.

export interface CsvRecord {
  readonly fields: ReadonlyArray<string>
  /** 1-based line on which the record starts. */
  readonly line: number
}

export class CsvError extends Error {
  constructor(message: string, readonly line: number) {
    super(message)
  }
}

/** Every record of `text`; entirely empty lines are skipped. Throws CsvError. */
export const parseCsv = (text: string): ReadonlyArray<CsvRecord> => {
  const records: Array<CsvRecord> = []
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0
  let line = 1
  const n = text.length
  while (i < n) {
    const start = line
    const fields: Array<string> = []
    let endOfRecord = false
    while (!endOfRecord) {
      let field = ""
      if (text[i] === "\"") {
        i++
        for (;;) {
          if (i >= n) throw new CsvError("a quoted field is not closed", start)
          const ch = text[i]!
          if (ch === "\"") {
            if (text[i + 1] === "\"") {
              field += "\""
              i += 2
              continue
            }
            i++
            break
          }
          if (ch === "\n") line++
          field += ch
          i++
        }
        const next = text[i]
        if (next !== undefined && next !== "," && next !== "\n" && !(next === "\r" && text[i + 1] === "\n")) {
          throw new CsvError("text after the closing quote of a field (a quote inside a field is written \"\")", line)
        }
      } else {
        while (i < n && text[i] !== "," && text[i] !== "\n" && !(text[i] === "\r" && text[i + 1] === "\n")) {
          if (text[i] === "\"") {
            throw new CsvError("a quote inside an unquoted field (quote the whole field and write it \"\")", line)
          }
          field += text[i]
          i++
        }
      }
      fields.push(field)
      if (i >= n) endOfRecord = true
      else if (text[i] === ",") i++
      else {
        i += text[i] === "\r" ? 2 : 1
        line++
        endOfRecord = true
      }
    }
    if (!(fields.length === 1 && fields[0] === "")) records.push({ fields, line: start })
  }
  return records
}
