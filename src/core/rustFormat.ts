// The two Rust formatting rules that assertion messages depend on, so failure texts read exactly as
// the original lait prints them: `{:?}` of a string and `{:.N}` of a float.

// What Rust's `char::is_printable` rejects (general categories Cc Cf Cs Co Cn Zl Zp Zs, except
// the ASCII space), and what `escape_debug` escapes because it would combine with the quote or the
// previous escape (Grapheme_Extend).
const NOT_PRINTABLE = /^[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]$/u
const GRAPHEME_EXTEND = /^\p{Grapheme_Extend}$/u

const unicodeEscape = (ch: string): string => `\\u{${ch.codePointAt(0)!.toString(16)}}`

/**
 * Rust's `format!("{:?}", s)` of a `&str`: double quotes; `\0 \t \r \n \\ \"` escaped; single quotes
 * and printable non-ASCII text as they are; anything unprintable or combining as `\u{hex}`.
 */
export const rustDebugString = (s: string): string => {
  let out = "\""
  for (const ch of s) {
    switch (ch) {
      case "\0":
        out += "\\0"
        continue
      case "\t":
        out += "\\t"
        continue
      case "\r":
        out += "\\r"
        continue
      case "\n":
        out += "\\n"
        continue
      case "\\":
        out += "\\\\"
        continue
      case "\"":
        out += "\\\""
        continue
    }
    const code = ch.codePointAt(0)!
    if (code >= 0x20 && code < 0x7f) {
      out += ch
    } else if (GRAPHEME_EXTEND.test(ch) || NOT_PRINTABLE.test(ch)) {
      out += unicodeEscape(ch)
    } else {
      out += ch
    }
  }
  return `${out}"`
}

/**
 * Rust's `format!("{:.N}", x)` of an f64: the exact binary value rounded to N decimals, ties to
 * even (JavaScript's toFixed rounds ties up and switches to exponent notation from 1e21).
 */
export const rustFixed = (x: number, digits: number): string => {
  if (Number.isNaN(x)) return "NaN"
  if (!Number.isFinite(x)) return x > 0 ? "inf" : "-inf"
  const negative = x < 0 || Object.is(x, -0)
  let magnitude = Math.abs(x)
  // x = mantissa / 2^shift exactly; scaling a double by a power of two never rounds.
  let shift = 0
  while (!Number.isInteger(magnitude)) {
    magnitude *= 2
    shift++
  }
  const mantissa = BigInt(magnitude)
  const scaled = mantissa * 10n ** BigInt(digits)
  const denominator = 1n << BigInt(shift)
  let units = scaled / denominator
  const twiceRemainder = (scaled % denominator) * 2n
  if (twiceRemainder > denominator || (twiceRemainder === denominator && units % 2n === 1n)) units += 1n
  const text = units.toString().padStart(digits + 1, "0")
  const body = digits === 0 ? text : `${text.slice(0, -digits)}.${text.slice(-digits)}`
  return negative ? `-${body}` : body
}
