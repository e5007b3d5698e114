// Compact JSON exactly as serde_json writes it, so request keys (and therefore cassette file names)
// match the original Rust lait byte for byte. The differences from JSON.stringify that matter:
// floats keep a fractional part (`1.0`, not `1`) and exponents have no `+` (`1e21`).

/** A number that Rust holds as a float (f32/f64) even when its value is whole. */
export class RustFloat {
  constructor(readonly value: number) {}
}

/** Text that already is serde_json's rendering of a value: written as it is. */
export class RustJsonText {
  constructor(readonly text: string) {}
}

export const formatRustFloat = (x: number): string => {
  if (!Number.isFinite(x)) return "null"
  if (Number.isInteger(x) && Math.abs(x) < 1e16) return `${x}.0`
  return String(x).replace("e+", "e")
}

const escapeString = (s: string): string => JSON.stringify(s)

/**
 * Serialises `value` like serde_json::to_string: object keys in insertion order, no whitespace.
 * Plain JS numbers are written as JSON.stringify would (integers without `.0`); wrap floats that
 * Rust types as f32/f64 in `RustFloat`.
 */
export const rustJson = (value: unknown): string => {
  if (value === null || value === undefined) return "null"
  switch (typeof value) {
    case "string":
      return escapeString(value)
    case "number":
      return Number.isFinite(value) ? String(value).replace("e+", "e") : "null"
    case "boolean":
      return value ? "true" : "false"
    case "object": {
      if (value instanceof RustFloat) return formatRustFloat(value.value)
      if (value instanceof RustJsonText) return value.text
      // Concatenation and for-in rather than map/join and Object.entries: every replayed request's
      // key goes through here (bench/README.md, issue 41).
      if (Array.isArray(value)) {
        let out = "["
        for (let i = 0; i < value.length; i++) out += (i === 0 ? "" : ",") + rustJson(value[i])
        return out + "]"
      }
      let out = "{"
      for (const key in value) {
        const v = (value as Record<string, unknown>)[key]
        if (v === undefined || !Object.hasOwn(value, key)) continue
        out += (out.length === 1 ? "" : ",") + escapeString(key) + ":" + rustJson(v)
      }
      return out + "}"
    }
    default:
      return "null"
  }
}

/**
 * `rustJson` of JSON data (as parsed: plain objects, arrays, strings, numbers, booleans, null; no
 * RustFloat): JSON.stringify's text, which is the same but for exponents (`1e+21`, serde_json's
 * `1e21`), so only a text with `e+` anywhere is written again the slow way. Every request's key
 * serialises its messages (bench/README.md, issue 41).
 */
export const rustJsonOfData = (value: unknown): string => {
  const text = JSON.stringify(value) as string | undefined
  return text === undefined || text.includes("e+") ? rustJson(value) : text
}
