// A real headless browser for tests of pages lait writes: Debian's Chromium, driven by its command
// line (--dump-dom, --screenshot), installed on first use where the test runs as root with apt-get.
// Where no browser can be had, `findChromium` says why so the test can print it and skip.
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { inflateSync } from "node:zlib"
import { run, type RunResult } from "./util.ts"

const CANDIDATES = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"]

const installed = () => CANDIDATES.find((p) => fs.existsSync(p))

/** The browser's path, or why there is none (after trying `apt-get install chromium` as root). */
export const findChromium = async (): Promise<{ path: string } | { reason: string }> => {
  const found = installed()
  if (found !== undefined) return { path: found }
  if (process.platform !== "linux" || process.getuid?.() !== 0 || !fs.existsSync("/usr/bin/apt-get")) {
    return { reason: "no Chromium at /usr/bin/chromium and no way to install it here (needs root and apt-get)" }
  }
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" }
  const update = await run(["apt-get", "update"], { cwd: "/", env, timeoutMs: 300_000 })
  const install = update.code === 0
    ? await run(["apt-get", "install", "-y", "chromium"], { cwd: "/", env, timeoutMs: 600_000 })
    : update
  const after = installed()
  if (after !== undefined) return { path: after }
  return { reason: `apt-get could not install chromium: ${install.stderr.trim().split("\n").at(-1) ?? "no output"}` }
}

/** Flags that work in a container as root, with no network use of the browser's own. */
const flags = (profile: string) => [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  `--user-data-dir=${profile}`
]

const withProfile = async <T>(f: (profile: string) => Promise<T>): Promise<T> => {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), "lait-chromium-"))
  try {
    return await f(profile)
  } finally {
    fs.rmSync(profile, { recursive: true, force: true })
  }
}

/** The DOM after the page's scripts ran, serialised. */
export const dumpDom = (browser: string, file: string): Promise<RunResult> =>
  withProfile((profile) =>
    run([browser, ...flags(profile), "--dump-dom", `file://${file}`], { cwd: os.tmpdir(), timeoutMs: 120_000 })
  )

export const screenshot = (browser: string, file: string, png: string, size = "1280,1600"): Promise<RunResult> =>
  withProfile((profile) =>
    run([browser, ...flags(profile), `--screenshot=${png}`, `--window-size=${size}`, `file://${file}`], {
      cwd: os.tmpdir(),
      timeoutMs: 120_000
    })
  )

export interface PngStats {
  readonly width: number
  readonly height: number
  /** Variance of the grey level (0–255) over all pixels: 0 for a blank page. */
  readonly variance: number
  /** How many distinct grey levels occur. */
  readonly levels: number
}

/** Decodes an 8-bit RGB/RGBA PNG (what Chromium writes) far enough to measure its pixels. */
export const pngStats = (bytes: Uint8Array): PngStats => {
  const buffer = Buffer.from(bytes)
  if (buffer.readUInt32BE(0) !== 0x89504e47) throw new Error("not a PNG")
  let offset = 8
  let width = 0
  let height = 0
  let channels = 0
  const idat: Array<Buffer> = []
  while (offset < buffer.length) {
    const length = buffer.readUInt32BE(offset)
    const type = buffer.toString("latin1", offset + 4, offset + 8)
    const data = buffer.subarray(offset + 8, offset + 8 + length)
    if (type === "IHDR") {
      width = data.readUInt32BE(0)
      height = data.readUInt32BE(4)
      const depth = data[8]
      const colour = data[9]
      if (depth !== 8 || (colour !== 2 && colour !== 6)) throw new Error(`unsupported PNG: depth ${depth}, colour ${colour}`)
      channels = colour === 6 ? 4 : 3
    } else if (type === "IDAT") idat.push(data)
    offset += 12 + length
  }
  const raw = inflateSync(Buffer.concat(idat))
  const stride = width * channels
  let previous = new Uint8Array(stride)
  let sum = 0
  let sumSquares = 0
  const seen = new Set<number>()
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)]!
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1))
    const current = new Uint8Array(stride)
    for (let x = 0; x < stride; x++) {
      const a = x >= channels ? current[x - channels]! : 0
      const b = previous[x]!
      const c = x >= channels ? previous[x - channels]! : 0
      const predictor = filter === 0
        ? 0
        : filter === 1
        ? a
        : filter === 2
        ? b
        : filter === 3
        ? (a + b) >> 1
        : (() => {
          const p = a + b - c
          const pa = Math.abs(p - a)
          const pb = Math.abs(p - b)
          const pc = Math.abs(p - c)
          return pa <= pb && pa <= pc ? a : pb <= pc ? b : c
        })()
      current[x] = (line[x]! + predictor) & 0xff
    }
    for (let x = 0; x < width; x++) {
      const i = x * channels
      const grey = Math.round((current[i]! * 299 + current[i + 1]! * 587 + current[i + 2]! * 114) / 1000)
      sum += grey
      sumSquares += grey * grey
      seen.add(grey)
    }
    previous = current
  }
  const n = width * height
  const mean = sum / n
  return { width, height, variance: sumSquares / n - mean * mean, levels: seen.size }
}
