// Timestamps of trace events as nanoseconds since the Unix epoch (bigint), read from RFC 3339 and
// written the way chrono serialises a DateTime<Utc>: UTC, `Z`, and a fraction of 0, 3, 6 or 9 digits
// (the shortest that is exact). JS Dates stop at milliseconds; upstream files carry nanoseconds.

const NANOS_PER_SECOND = 1_000_000_000n
const NANOS_PER_DAY = 86_400n * NANOS_PER_SECOND

/** Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil). */
const daysFromCivil = (year: number, month: number, day: number): number => {
  const y = month <= 2 ? year - 1 : year
  const era = Math.floor(y / 400)
  const yoe = y - era * 400
  const doy = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy
  return era * 146097 + doe - 719468
}

const civilFromDays = (days: number): { year: number; month: number; day: number } => {
  const z = days + 719468
  const era = Math.floor(z / 146097)
  const doe = z - era * 146097
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365)
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100))
  const mp = Math.floor((5 * doy + 2) / 153)
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1
  const month = mp < 10 ? mp + 3 : mp - 9
  return { year: yoe + era * 400 + (month <= 2 ? 1 : 0), month, day }
}

const daysInMonth = (year: number, month: number): number => {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28
  return [4, 6, 9, 11].includes(month) ? 30 : 31
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:([Zz])|([+-])(\d{2}):?(\d{2}))$/

/** Nanoseconds since the epoch, or undefined when `text` is not an RFC 3339 date-time. */
export const parseTimestamp = (text: string): bigint | undefined => {
  const m = RFC3339.exec(text)
  if (m === null) return undefined
  const [year, month, day, hour, minute, second] = [m[1], m[2], m[3], m[4], m[5], m[6]].map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number
  ]
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined
  if (hour > 23 || minute > 59 || second > 59) return undefined
  let offsetMinutes = 0
  if (m[8] === undefined) {
    const oh = Number(m[10])
    const om = Number(m[11])
    if (oh > 23 || om > 59) return undefined
    offsetMinutes = (m[9] === "-" ? -1 : 1) * (oh * 60 + om)
  }
  // Digits past nanoseconds are dropped, as chrono does.
  const fraction = BigInt((m[7] ?? "").slice(0, 9).padEnd(9, "0"))
  const seconds = BigInt(daysFromCivil(year, month, day)) * 86_400n +
    BigInt(hour * 3600 + minute * 60 + second - offsetMinutes * 60)
  return seconds * NANOS_PER_SECOND + fraction
}

const floorDiv = (a: bigint, b: bigint): bigint => (a % b === 0n || a >= 0n ? a / b : a / b - 1n)

const pad = (n: number | bigint, width: number): string => String(n).padStart(width, "0")

const split = (nanos: bigint) => {
  const days = floorDiv(nanos, NANOS_PER_DAY)
  const inDay = nanos - days * NANOS_PER_DAY
  const secondsOfDay = Number(inDay / NANOS_PER_SECOND)
  return {
    ...civilFromDays(Number(days)),
    hour: Math.floor(secondsOfDay / 3600),
    minute: Math.floor((secondsOfDay % 3600) / 60),
    second: secondsOfDay % 60,
    fraction: inDay % NANOS_PER_SECOND
  }
}

const formatYear = (year: number): string =>
  year >= 0 && year <= 9999 ? pad(year, 4) : `${year < 0 ? "-" : "+"}${pad(Math.abs(year), 4)}`

/** chrono's serde form: `2024-05-01T12:00:00Z`, `...:00.120Z`, `...:00.000001Z`, `...:00.000000001Z`. */
export const formatTimestamp = (nanos: bigint): string => {
  const t = split(nanos)
  let fraction = ""
  if (t.fraction !== 0n) {
    if (t.fraction % 1_000_000n === 0n) fraction = `.${pad(t.fraction / 1_000_000n, 3)}`
    else if (t.fraction % 1_000n === 0n) fraction = `.${pad(t.fraction / 1_000n, 6)}`
    else fraction = `.${pad(t.fraction, 9)}`
  }
  return `${formatYear(t.year)}-${pad(t.month, 2)}-${pad(t.day, 2)}T${pad(t.hour, 2)}:${pad(t.minute, 2)}:${
    pad(t.second, 2)
  }${fraction}Z`
}

// The last millisecond of year 9999: up to there a Date's ISO form is formatTimestamp's, fraction aside.
const MAX_ISO_MILLIS = 253_402_300_799_999n

/**
 * formatTimestamp of a whole number of milliseconds: what a span's times are (src/trace/RunTracer.ts).
 * From 1970 to 9999 it is the Date's ISO form without a `.000`, which costs a fraction of the bigint
 * arithmetic (an eval records two per run).
 */
export const formatMillis = (millis: bigint): string => {
  if (millis < 0n || millis > MAX_ISO_MILLIS) return formatTimestamp(millis * 1_000_000n)
  const iso = new Date(Number(millis)).toISOString()
  return iso.endsWith(".000Z") ? `${iso.slice(0, -5)}Z` : iso
}

/** `%H:%M:%S%.3f` in UTC (milliseconds truncated, as chrono does). */
export const formatClock = (nanos: bigint): string => {
  const t = split(nanos)
  return `${pad(t.hour, 2)}:${pad(t.minute, 2)}:${pad(t.second, 2)}.${pad(t.fraction / 1_000_000n, 3)}`
}

export const nanosOfDate = (date: Date): bigint => BigInt(date.getTime()) * 1_000_000n

const I64_MIN = -(2n ** 63n)
const I64_MAX = 2n ** 63n - 1n

/** OTLP's `*TimeUnixNano`: decimal nanoseconds, `0` where chrono's `timestamp_nanos_opt` has none. */
export const unixNanosText = (nanos: bigint): string => (nanos < I64_MIN || nanos > I64_MAX ? "0" : nanos.toString())
