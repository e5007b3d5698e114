// jq's `@format` filters, where JavaScript produces exactly jq's text.
import { Buffer } from "node:buffer"
import type { Json } from "../../core/json.ts"
import { bail, toJson, toText } from "./values.ts"

const HTML: Readonly<Record<string, string>> = { "<": "&lt;", ">": "&gt;", "&": "&amp;", "'": "&apos;", "\"": "&quot;" }

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
  }
  return bail(`@${name}`)
}
