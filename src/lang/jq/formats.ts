// jq's `@format` filters, where JavaScript produces exactly jq's text.
import { Buffer } from "node:buffer"
import type { Json } from "../../core/json.ts"
import { bail, fail, numberText, toJson, toText } from "./values.ts"

const HTML: Readonly<Record<string, string>> = { "<": "&lt;", ">": "&gt;", "&": "&amp;", "'": "&apos;", "\"": "&quot;" }

/** The cells of a @csv/@tsv row or the words of @sh: scalars only, numbers as jq prints them. */
const cells = (input: Json, what: string, quote: (s: string) => string): Array<string> => {
  const items = Array.isArray(input) ? input : what === "sh" ? [input] : fail(`cannot be ${what}-formatted`)
  return items.map((item) => {
    if (typeof item === "string") return quote(item)
    if (typeof item === "number") return numberText(item)
    if (typeof item === "boolean") return String(item)
    if (item === null) return what === "sh" ? "null" : ""
    return fail(`is not valid in a ${what} row`)
  })
}

const TSV: Readonly<Record<string, string>> = { "\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r" }

export const format = (name: string, input: Json): Json => {
  switch (name) {
    case "text":
      return toText(input)
    case "json":
      return toJson(input)
    case "html":
      return toText(input).replace(/[<>&'"]/g, (c) => HTML[c]!)
    case "uri":
      // jq keeps only A-Z a-z 0-9 - _ . ~ unescaped; encodeURIComponent also keeps ! ' ( ) *
      return encodeURIComponent(toText(input)).replace(
        /[!'()*]/g,
        (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`
      )
    case "base64":
      return Buffer.from(toText(input), "utf8").toString("base64")
    case "csv":
      return cells(input, "csv", (s) => `"${s.replaceAll("\"", "\"\"")}"`).join(",")
    case "tsv":
      return cells(input, "tsv", (s) => s.replace(/[\\\t\n\r]/g, (c) => TSV[c]!)).join("\t")
    case "sh":
      return cells(input, "sh", (s) => `'${s.replaceAll("'", "'\\''")}'`).join(" ")
  }
  return bail(`@${name}`)
}
