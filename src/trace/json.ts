// JSON for trace files, read and written the way the original lait (serde_json with preserve_order)
// does, because two of its rules are visible to users and JSON.parse loses them:
//   - a number keeps its kind: `5` is an integer and `5.0` a float (OTLP intValue vs doubleValue),
//     integers are exact up to u64 (seq, token counts), and floats print like Rust's ryu (`1e16`);
//   - object keys keep their order, integer-like keys included (JS objects move those first).
// Strings are escaped as JSON.stringify does, which is what serde_json writes for valid UTF-8.

const I64_MIN = -(2n ** 63n)
const I64_MAX = 2n ** 63n - 1n
const U64_MAX = 2n ** 64n - 1n

/** A JSON number as serde_json holds it: an i64/u64 integer, or an f64. */
export class TraceNumber {
  private constructor(
    /** serde_json's own text for the number (exact digits for integers, ryu for floats). */
    readonly text: string,
    /** The exact value when it is an integer serde_json holds as i64 or u64. */
    readonly integer: bigint | undefined
  ) {}

  static int(value: bigint): TraceNumber {
    if (value < I64_MIN || value > U64_MAX) return TraceNumber.float(Number(value))
    return new TraceNumber(value.toString(), value)
  }

  static float(value: number): TraceNumber {
    return new TraceNumber(formatFloat(value), undefined)
  }

  /** A JS number as a Rust caller would have recorded it: whole values are integers. */
  static of(value: number): TraceNumber {
    return Number.isSafeInteger(value) ? TraceNumber.int(BigInt(value)) : TraceNumber.float(value)
  }

  get value(): number {
    return Number(this.text)
  }

  /** serde_json's `as_i64`. */
  get asI64(): bigint | undefined {
    return this.integer !== undefined && this.integer >= I64_MIN && this.integer <= I64_MAX ? this.integer : undefined
  }

  /** serde_json's `as_u64`. */
  get asU64(): bigint | undefined {
    return this.integer !== undefined && this.integer >= 0n ? this.integer : undefined
  }
}

/** An object with its keys in file order (a repeated key keeps its first place and its last value). */
export class TraceObject {
  readonly entries: ReadonlyArray<readonly [string, TraceValue]>
  /** Keys that occurred more than once (serde rejects a repeated struct field). */
  readonly repeatedKeys: ReadonlyArray<string>

  constructor(entries: Iterable<readonly [string, TraceValue]>) {
    const merged = new Map<string, TraceValue>()
    const repeated = new Set<string>()
    for (const [key, value] of entries) {
      if (merged.has(key)) repeated.add(key)
      merged.set(key, value)
    }
    this.entries = [...merged]
    this.repeatedKeys = [...repeated]
  }

  get(key: string): TraceValue | undefined {
    return this.entries.find(([k]) => k === key)?.[1]
  }

  has(key: string): boolean {
    return this.entries.some(([k]) => k === key)
  }
}

export type TraceValue = null | boolean | string | TraceNumber | ReadonlyArray<TraceValue> | TraceObject

/**
 * A finite f64 as Rust's ryu prints it (serde_json's f64 output): the shortest round-trip digits,
 * `.0` on whole numbers, scientific notation from 1e16 up and below 1e-5, no `+` in exponents.
 */
export const formatFloat = (value: number): string => {
  if (!Number.isFinite(value)) return "null"
  if (value === 0) return Object.is(value, -0) ? "-0.0" : "0.0"
  const sign = value < 0 ? "-" : ""
  const [mantissa, exponent] = Math.abs(value).toExponential().split("e") as [string, string]
  const digits = mantissa.replace(".", "")
  const point = Number(exponent) + 1 // position of the decimal point relative to the digits
  if (point > 0 && point <= 16) {
    if (digits.length <= point) return `${sign}${digits}${"0".repeat(point - digits.length)}.0`
    return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`
  }
  if (point > -5 && point <= 0) return `${sign}0.${"0".repeat(-point)}${digits}`
  const scientific = digits.length === 1 ? digits : `${digits[0]}.${digits.slice(1)}`
  return `${sign}${scientific}e${point - 1}`
}

/** A value recorded in memory (tracer attributes) in trace-file form. */
export const fromJs = (value: unknown): TraceValue => {
  if (value === null || value === undefined) return null
  if (typeof value === "string" || typeof value === "boolean") return value
  if (typeof value === "number") return Number.isFinite(value) ? TraceNumber.of(value) : null
  if (typeof value === "bigint") return TraceNumber.int(value)
  if (Array.isArray(value)) return value.map(fromJs)
  if (value instanceof TraceNumber || value instanceof TraceObject) return value
  if (typeof value === "object") {
    return new TraceObject(
      Object.entries(value).filter(([, v]) => v !== undefined).map(([k, v]) => [k, fromJs(v)] as const)
    )
  }
  return null
}

/** Plain JS (numbers as JS numbers), for tests and callers that want ordinary JSON values. */
export const toJs = (value: TraceValue): unknown => {
  if (value instanceof TraceNumber) return value.value
  if (value instanceof TraceObject) return Object.fromEntries(value.entries.map(([k, v]) => [k, toJs(v)]))
  if (Array.isArray(value)) return value.map(toJs)
  return value
}

const quote = (text: string): string => JSON.stringify(text)

/** serde_json::to_string. */
export const compactJson = (value: TraceValue): string => {
  if (value === null) return "null"
  if (typeof value === "string") return quote(value)
  if (typeof value === "boolean") return value ? "true" : "false"
  if (value instanceof TraceNumber) return value.text
  if (value instanceof TraceObject) {
    return `{${value.entries.map(([k, v]) => `${quote(k)}:${compactJson(v)}`).join(",")}}`
  }
  return `[${(value as ReadonlyArray<TraceValue>).map(compactJson).join(",")}]`
}

/** serde_json::to_string_pretty: two-space indent, `"key": value`, `[]`/`{}` when empty. */
export const prettyJson = (value: TraceValue, indent = ""): string => {
  const inner = `${indent}  `
  if (value instanceof TraceObject) {
    if (value.entries.length === 0) return "{}"
    const lines = value.entries.map(([k, v]) => `${inner}${quote(k)}: ${prettyJson(v, inner)}`)
    return `{\n${lines.join(",\n")}\n${indent}}`
  }
  if (Array.isArray(value)) {
    if (value.length === 0) return "[]"
    return `[\n${value.map((v: TraceValue) => `${inner}${prettyJson(v, inner)}`).join(",\n")}\n${indent}]`
  }
  return compactJson(value)
}

// ---------------------------------------------------------------------------------------------------
// parsing

/** serde_json's nesting limit; deeper input is an error rather than a stack overflow. */
const MAX_DEPTH = 128

export class JsonSyntaxError extends Error {}

class Parser {
  private pos = 0

  constructor(private readonly text: string) {}

  private fail(reason: string): never {
    throw new JsonSyntaxError(`${reason} at column ${this.pos + 1}`)
  }

  private skipWhitespace(): void {
    while (this.pos < this.text.length) {
      const c = this.text.charCodeAt(this.pos)
      if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) return
      this.pos++
    }
  }

  parseDocument(): TraceValue {
    this.skipWhitespace()
    const value = this.parseValue(0)
    this.skipWhitespace()
    if (this.pos < this.text.length) this.fail("trailing characters")
    return value
  }

  private parseValue(depth: number): TraceValue {
    if (this.pos >= this.text.length) this.fail("EOF while parsing a value")
    const c = this.text[this.pos]!
    switch (c) {
      case "{":
        return this.parseObject(depth + 1)
      case "[":
        return this.parseArray(depth + 1)
      case "\"":
        return this.parseString()
      case "t":
        return this.literal("true", true)
      case "f":
        return this.literal("false", false)
      case "n":
        return this.literal("null", null)
      default:
        if (c === "-" || (c >= "0" && c <= "9")) return this.parseNumber()
        return this.fail("expected value")
    }
  }

  private literal<T extends TraceValue>(word: string, value: T): T {
    if (this.text.startsWith(word, this.pos)) {
      this.pos += word.length
      return value
    }
    return this.fail("expected value")
  }

  private parseObject(depth: number): TraceObject {
    const entries: Array<readonly [string, TraceValue]> = []
    this.parseItems(depth, "}", "an object", () => {
      if (this.text[this.pos] !== "\"") {
        this.fail(this.pos >= this.text.length ? "EOF while parsing an object" : "key must be a string")
      }
      const key = this.parseString()
      this.skipWhitespace()
      if (this.text[this.pos] !== ":") {
        this.fail(this.pos >= this.text.length ? "EOF while parsing an object" : "expected `:`")
      }
      this.pos++
      this.skipWhitespace()
      entries.push([key, this.parseValue(depth)])
    })
    return new TraceObject(entries)
  }

  private parseArray(depth: number): ReadonlyArray<TraceValue> {
    const items: Array<TraceValue> = []
    this.parseItems(depth, "]", "a list", () => items.push(this.parseValue(depth)))
    return items
  }

  /** From an object's or a list's opening bracket to its `close`: `item` reads each member. */
  private parseItems(depth: number, close: "}" | "]", what: string, item: () => void): void {
    if (depth > MAX_DEPTH) this.fail("recursion limit exceeded")
    this.pos++
    this.skipWhitespace()
    if (this.text[this.pos] === close) {
      this.pos++
      return
    }
    while (true) {
      this.skipWhitespace()
      item()
      this.skipWhitespace()
      const next = this.text[this.pos]
      if (next === close) {
        this.pos++
        return
      }
      if (next === ",") {
        this.pos++
        continue
      }
      this.fail(next === undefined ? `EOF while parsing ${what}` : `expected \`,\` or \`${close}\``)
    }
  }

  private hex4(): number {
    const digits = this.text.slice(this.pos, this.pos + 4)
    if (!/^[0-9A-Fa-f]{4}$/.test(digits)) this.fail("invalid escape")
    this.pos += 4
    return Number.parseInt(digits, 16)
  }

  private parseString(): string {
    this.pos++ // opening quote
    let out = ""
    let runStart = this.pos
    while (true) {
      if (this.pos >= this.text.length) this.fail("EOF while parsing a string")
      const code = this.text.charCodeAt(this.pos)
      if (code === 0x22) {
        out += this.text.slice(runStart, this.pos)
        this.pos++
        return out
      }
      if (code < 0x20) this.fail("control character (\\u0000-\\u001F) found while parsing a string")
      if (code !== 0x5c) {
        this.pos++
        continue
      }
      out += this.text.slice(runStart, this.pos)
      this.pos++
      const escape = this.text[this.pos]
      this.pos++
      switch (escape) {
        case "\"":
          out += "\""
          break
        case "\\":
          out += "\\"
          break
        case "/":
          out += "/"
          break
        case "b":
          out += "\b"
          break
        case "f":
          out += "\f"
          break
        case "n":
          out += "\n"
          break
        case "r":
          out += "\r"
          break
        case "t":
          out += "\t"
          break
        case "u": {
          const unit = this.hex4()
          if (unit >= 0xdc00 && unit <= 0xdfff) this.fail("lone leading surrogate in hex escape")
          if (unit >= 0xd800 && unit <= 0xdbff) {
            if (this.text.slice(this.pos, this.pos + 2) !== "\\u") this.fail("unexpected end of hex escape")
            this.pos += 2
            const low = this.hex4()
            if (low < 0xdc00 || low > 0xdfff) this.fail("lone leading surrogate in hex escape")
            out += String.fromCharCode(unit, low)
          } else {
            out += String.fromCharCode(unit)
          }
          break
        }
        default:
          this.pos--
          this.fail("invalid escape")
      }
      runStart = this.pos
    }
  }

  private parseNumber(): TraceNumber {
    const match = /^-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/.exec(this.text.slice(this.pos))
    if (match === null) this.fail("invalid number")
    const lexeme = match[0]
    const isFloat = match[1] !== undefined || match[2] !== undefined
    const next = this.text[this.pos + lexeme.length]
    // `1.`, `1e`, `01`: the regex stops early; serde_json rejects what follows.
    if (next !== undefined && /[0-9.eE+-]/.test(next)) {
      this.pos += lexeme.length
      this.fail("invalid number")
    }
    this.pos += lexeme.length
    if (!isFloat) {
      const integer = BigInt(lexeme)
      const negative = lexeme.startsWith("-")
      // serde_json turns `-0` and out-of-range integers into floats.
      if (negative ? integer !== 0n && integer >= I64_MIN : integer <= U64_MAX) return TraceNumber.int(integer)
    }
    const value = Number(lexeme)
    if (!Number.isFinite(value)) {
      this.pos -= lexeme.length
      this.fail("number out of range")
    }
    return TraceNumber.float(value)
  }
}

/** Parses one JSON document; throws JsonSyntaxError with a serde-like reason and column. */
export const parseJson = (text: string): TraceValue => new Parser(text).parseDocument()
