// The Ctrl-C handler that is in place while lait's modules load (src/core/earlySigint.ts).
import { expect, test } from "bun:test"
import * as fs from "node:fs"
import * as path from "node:path"

const root = path.resolve(import.meta.dir, "../..")
const moduleUrl = path.join(root, "src/core/earlySigint.ts")

const runScript = async (source: string) => {
  const child = Bun.spawn([process.execPath, "-e", source], { cwd: root, stdin: "ignore", stdout: "pipe", stderr: "pipe" })
  const [stdout, stderr] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text()])
  await child.exited
  return { code: child.exitCode, signal: child.signalCode, stdout, stderr }
}

test("Ctrl-Cs during loading are counted instead of killing the process, and handed over once", async () => {
  const r = await runScript(`
    const { takeEarlySigints } = await import(${JSON.stringify(moduleUrl)})
    process.kill(process.pid, "SIGINT")
    await Bun.sleep(100)
    process.kill(process.pid, "SIGINT")
    await Bun.sleep(100)
    console.log(takeEarlySigints())
  `)
  expect(r).toEqual({ code: 0, signal: null, stdout: "2\n", stderr: "" })
})

test("after the hand-over the early handler is gone (main.ts's own handler takes over)", async () => {
  const r = await runScript(`
    const { takeEarlySigints } = await import(${JSON.stringify(moduleUrl)})
    takeEarlySigints()
    process.kill(process.pid, "SIGINT")
    await Bun.sleep(500)
    console.log("survived")
  `)
  expect({ signal: r.signal, stdout: r.stdout }).toEqual({ signal: "SIGINT", stdout: "" })
})

test("main.ts imports it before anything else, so it runs before the heavy modules load", () => {
  const imports = fs.readFileSync(path.join(root, "src/main.ts"), "utf8").split("\n").filter((l) => l.startsWith("import "))
  expect(imports[0]).toBe(`import { takeEarlySigints } from "./core/earlySigint.ts"`)
})
