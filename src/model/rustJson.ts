// Compact JSON exactly as serde_json writes it, so request keys (and therefore cassette file names)
// match the original Rust lait byte for byte. The differences from JSON.stringify that matter:
// floats keep a fractional part (`1.0`, not `1`) and exponents have no `+` (`1e21`).

/** A number that Rust holds as a float (f32/f64) even when its value is whole. */
export class RustFloat {
  constructor(readonly value: number) {}
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
  if (value instanceof RustFloat) return formatRustFloat(value.value)
  switch (typeof value) {
    case "string":
      return escapeString(value)
    case "number":
      return Number.isFinite(value) ? String(value).replace("e+", "e") : "null"
    case "boolean":
      return value ? "true" : "false"
    case "object": {
      if (Array.isArray(value)) return `[${value.map(rustJson).join(",")}]`
      const parts: Array<string> = []
      for (const [k, v] of Object.entries(value)) {
        if (v === undefined) continue
        parts.push(`${escapeString(k)}:${rustJson(v)}`)
      }
      return `{${parts.join(",")}}`
    }
    default:
      return "null"
  }
}
