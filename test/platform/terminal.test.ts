// The platform layer's Terminal (src/platform/lazyTerminal.ts): building the layer, which every
// command does, must not build Node's stdin stream; the real terminal is made once, on first use,
// and its finalizers run when the layer's scope closes.
import { describe, expect, test } from "bun:test"
import { Effect, Layer, Terminal } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { lazyTerminalLayer } from "../../src/platform/lazyTerminal.ts"
import { stdinSpy } from "./stdinSpy.ts"

const repoRoot = path.resolve(import.meta.dir, "../..")

// A child process: whether building PlatformLayer, then using its Terminal, touched `process.stdin`.
const script = `
  import { Context, Effect, Layer, Terminal } from "effect"
  import { PlatformLayer } from ${JSON.stringify(path.join(repoRoot, "src/platform/layer.ts"))}
  ${stdinSpy}
  const seen = await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
    const context = yield* Layer.build(PlatformLayer)
    const afterBuild = stream
    const terminal = Context.get(context, Terminal.Terminal)
    yield* terminal.display("")
    // Writing needs no stdin; reading builds it (stdin is closed here, so the read ends at once).
    yield* Effect.exit(terminal.readLine)
    return { afterBuild, afterUse: stream }
  })))
  console.log(JSON.stringify(seen))
  process.exit(0)
`

describe("platform Terminal", () => {
  test("building PlatformLayer leaves process.stdin alone; the first use builds the terminal", async () => {
    const child = Bun.spawn([process.execPath, "-e", script], { cwd: repoRoot, stdin: "ignore", stdout: "pipe", stderr: "pipe" })
    const [out, err] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text()])
    expect(await child.exited, err).toBe(0)
    expect(JSON.parse(out)).toEqual({ afterBuild: false, afterUse: true })
  })

  test("the real terminal is made once, in the layer's scope", async () => {
    const events: Array<string> = []
    const make = Effect.gen(function*() {
      events.push("make")
      yield* Effect.addFinalizer(() => Effect.sync(() => events.push("release")))
      return Terminal.make({
        columns: Effect.succeed(80),
        rows: Effect.succeed(24),
        size: Effect.never,
        readInput: Effect.never,
        readLine: Effect.succeed("line"),
        display: (text) => Effect.sync(() => void events.push(`display ${text}`))
      })
    })
    const program = Effect.gen(function*() {
      const terminal = yield* Terminal.Terminal
      events.push("built")
      yield* terminal.display("a")
      const line = yield* terminal.readLine
      const columns = yield* terminal.columns
      yield* terminal.display("b")
      return { line, columns }
    })
    const result = await Effect.runPromise(program.pipe(Effect.provide(Layer.fresh(lazyTerminalLayer(make)))))
    expect(result).toEqual({ line: "line", columns: 80 })
    expect(events).toEqual(["built", "make", "display a", "display b", "release"])
  })

  test("`lait run wf.yml PROMPT` never builds process.stdin", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "lait-terminal-"))
    try {
      const preload = path.join(dir, "preload.ts")
      fs.writeFileSync(preload, `
        const own = Object.getOwnPropertyDescriptor(process, "stdin")
        Object.defineProperty(process, "stdin", {
          configurable: true,
          get() { process.stderr.write("stdin touched\\n"); return own.get ? own.get.call(process) : own.value }
        })
      `)
      fs.writeFileSync(path.join(dir, "wf.yml"), "steps:\n  - jq: 'tonumber + 1'\n")
      const child = Bun.spawn([process.execPath, "--preload", preload, path.join(repoRoot, "src/main.ts"), "run", "wf.yml", "41"], {
        cwd: dir, stdin: "ignore", stdout: "pipe", stderr: "pipe"
      })
      const [out, err] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text()])
      expect(await child.exited, err).toBe(0)
      expect(out).toBe("42\n")
      expect(err).not.toContain("stdin touched")
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })
})
