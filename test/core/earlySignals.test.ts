// The shutdown-signal handlers that are in place while lait's modules load (src/core/earlySignals.ts).
import { expect, test } from "bun:test"
import * as fs from "node:fs"
import * as path from "node:path"

const root = path.resolve(import.meta.dir, "../..")
const moduleUrl = path.join(root, "src/core/earlySignals.ts")

const runScript = async (source: string) => {
  const child = Bun.spawn([process.execPath, "-e", source], { cwd: root, stdin: "ignore", stdout: "pipe", stderr: "pipe" })
  const [stdout, stderr] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text()])
  await child.exited
  return { code: child.exitCode, signal: child.signalCode, stdout, stderr }
}

test("SIGINT, SIGTERM and SIGHUP during loading are remembered in order instead of killing the process", async () => {
  const r = await runScript(`
    const { takeEarlySignals } = await import(${JSON.stringify(moduleUrl)})
    for (const signal of ["SIGTERM", "SIGINT", "SIGHUP", "SIGINT"]) {
      process.kill(process.pid, signal)
      await Bun.sleep(100)
    }
    console.log(takeEarlySignals().join(" "))
  `)
  expect(r).toEqual({ code: 0, signal: null, stdout: "SIGTERM SIGINT SIGHUP SIGINT\n", stderr: "" })
})

for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
  test(`after the hand-over the early ${signal} handler is gone (main.ts's own handler takes over)`, async () => {
    const r = await runScript(`
      const { takeEarlySignals } = await import(${JSON.stringify(moduleUrl)})
      takeEarlySignals()
      process.kill(process.pid, "${signal}")
      await Bun.sleep(500)
      console.log("survived")
    `)
    expect({ signal: r.signal, stdout: r.stdout }).toEqual({ signal, stdout: "" })
  })
}

test("main.ts imports it before anything else, so it runs before the heavy modules load", () => {
  const imports = fs.readFileSync(path.join(root, "src/main.ts"), "utf8").split("\n").filter((l) => l.startsWith("import "))
  expect(imports[0]).toMatch(/^import \{[^}]*\btakeEarlySignals\b[^}]*\} from "\.\/core\/earlySignals\.ts"$/)
})
