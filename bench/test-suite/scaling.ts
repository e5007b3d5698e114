// How `lait test` scales with the number of files: the marginal cost of one more file, from runs of a
// small and a large suite interleaved (so load from other jobs hits both alike), and peak RSS of the
// large suite and of a very large one (memory must not grow with the suite: results are reported as
// they come, not kept to the end). The files are index.ts's replayed fixture tests.
//
//   bun bench/test-suite/scaling.ts [--small N] [--large N] [--huge N] [--rounds N] [--binary PATH]
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { median, repoRoot, spawnMeasured } from "../util.ts"
import { kinds } from "./index.ts"

export interface TestScalingOptions {
  readonly binary: string
  /** Suite sizes: the marginal cost is (large - small) / (large - small files); RSS at large and huge. */
  readonly small: number
  readonly large: number
  readonly huge: number
  /** Interleaved rounds of small and large (after a warm-up). */
  readonly rounds: number
}

export interface TestScalingFigures {
  readonly small: number
  readonly large: number
  readonly huge: number
  readonly rounds: number
  /** Median wall times, ms. */
  readonly smallMs: number
  readonly largeMs: number
  readonly hugeMs: number
  /** (largeMs - smallMs) / (large - small). */
  readonly marginalMs: number
  /** Peak RSS, bytes. */
  readonly smallMaxRss: number
  readonly largeMaxRss: number
  readonly hugeMaxRss: number
}

export const runTestScalingBench = async (options: TestScalingOptions): Promise<TestScalingFigures> => {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "lait-bench-test-scaling-"))
  try {
    fs.cpSync(path.join(repoRoot, "test/fixtures/testing"), work, { recursive: true })
    const suite = (files: number): string => {
      const dir = path.join(work, `suite-${files}`)
      fs.mkdirSync(dir)
      for (let i = 0; i < files; i++) {
        fs.writeFileSync(path.join(dir, `case-${String(i).padStart(5, "0")}.yml`), kinds[i % kinds.length]!.testFile)
      }
      return path.basename(dir)
    }
    const env = {
      ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(OPENAI_|LAIT_)/.test(k))),
      NO_COLOR: "1",
      HOME: work,
      XDG_CONFIG_HOME: path.join(work, ".config")
    } as Record<string, string>
    const run = async (dir: string, files: number) => {
      const r = await spawnMeasured([options.binary, "--no-env", "test", dir], { cwd: work, env })
      const summary = r.stdout.trimEnd().split("\n").at(-1)
      if (r.code !== 0 || summary !== `${files} passed, 0 failed, ${files} total`) {
        throw new Error(`lait test of ${files} files did not pass (exit ${r.code}): ${summary}`)
      }
      return r
    }
    const [smallDir, largeDir, hugeDir] = [suite(options.small), suite(options.large), suite(options.huge)]
    await run(smallDir, options.small)
    const small: Array<number> = []
    const large: Array<number> = []
    let smallMaxRss = 0
    let largeMaxRss = 0
    for (let i = 0; i < options.rounds; i++) {
      const s = await run(smallDir, options.small)
      const l = await run(largeDir, options.large)
      small.push(s.ms)
      large.push(l.ms)
      smallMaxRss = Math.max(smallMaxRss, s.maxRss)
      largeMaxRss = Math.max(largeMaxRss, l.maxRss)
    }
    const huge = await run(hugeDir, options.huge)
    const smallMs = median(small)
    const largeMs = median(large)
    return {
      ...options,
      smallMs,
      largeMs,
      hugeMs: huge.ms,
      marginalMs: (largeMs - smallMs) / (options.large - options.small),
      smallMaxRss,
      largeMaxRss,
      hugeMaxRss: huge.maxRss
    }
  } finally {
    fs.rmSync(work, { recursive: true, force: true })
  }
}

if (import.meta.main) {
  const { flag, defaultBinary, requireBinary } = await import("../util.ts")
  const f = await runTestScalingBench({
    binary: requireBinary(flag("--binary") ?? defaultBinary),
    small: Number(flag("--small") ?? 50),
    large: Number(flag("--large") ?? 500),
    huge: Number(flag("--huge") ?? 3000),
    rounds: Number(flag("--rounds") ?? 3)
  })
  const mib = (x: number) => `${(x / 2 ** 20).toFixed(1)} MiB`
  process.stdout.write(
    `lait test, median of ${f.rounds} interleaved rounds\n` +
      `  ${f.small} files: ${f.smallMs.toFixed(0)} ms, ${mib(f.smallMaxRss)}\n` +
      `  ${f.large} files: ${f.largeMs.toFixed(0)} ms, ${mib(f.largeMaxRss)}\n` +
      `  ${f.huge} files: ${f.hugeMs.toFixed(0)} ms (one run), ${mib(f.hugeMaxRss)}\n` +
      `  marginal cost: ${f.marginalMs.toFixed(2)} ms/file\n`
  )
}
