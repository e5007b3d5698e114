// MCP server processes and --approve-tools, as a user meets them: nothing an MCP server started may
// outlive the run (success, failure, Ctrl-C, a second Ctrl-C), only referenced servers start, and
// approval works on a real terminal (a pseudo-terminal from util-linux `script`) and refuses to run
// without one.
import { describe, expect, test } from "bun:test"
import * as fs from "node:fs"
import * as path from "node:path"
import type { OpenAiServer } from "../fixtures/openai-server.ts"
import {
  alive,
  cliEnv,
  lait,
  laitCommand,
  type LoggedBody,
  newMarker,
  toolWorkspace,
  processesWith,
  scriptedServer,
  waitFor,
  watchProcesses,
  wrappedEverything
} from "./tools-util.ts"

const workspace = toolWorkspace("e2e-tools-life")
const { model } = workspace
const project = (server: OpenAiServer, config: Record<string, unknown>, workflow: string) =>
  workspace.project(server, config, { "wf.yml": workflow })

const call = (id: string, name: string, args: unknown) => ({ id, name, arguments: JSON.stringify(args) })

const start = (dir: string, args: ReadonlyArray<string>) =>
  Bun.spawn([...laitCommand(), ...args], { cwd: dir, env: cliEnv(dir), stdin: "ignore", stdout: "pipe", stderr: "pipe" })

const FIRST = "lait: received Ctrl-C, stopping (press Ctrl-C again to exit immediately)..."
const SECOND = "lait: received a second Ctrl-C; exiting immediately"

describe("no MCP server process outlives the run", () => {
  test("after a successful run (the whole tree: sh and the server under it)", async () => {
    const marker = newMarker("ok")
    const server = model([
      { tool_calls: [call("c", "everything__echo", { message: "hi" })] },
      { content: "finished", delay_ms: 300 }
    ])
    const dir = project(server, { mcp_servers: { everything: wrappedEverything(marker) } }, "steps:\n  - prompt: 'go'\n    mcp: [everything]\n")
    const watch = watchProcesses(marker)
    const r = await lait(dir, ["run", "wf.yml", "x"])
    const seen = watch.stop()
    expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 0, stdout: "finished\n" })
    expect(seen.length).toBeGreaterThanOrEqual(2)
    // lait's last act is a SIGKILL to the server's process group, which the kernel delivers
    // asynchronously: on a busy machine the server can still be on its way out when lait has exited.
    // A server that outlived the run would still be running ten seconds later.
    expect(await waitFor(() => seen.filter(alive).length === 0, 10_000), "the server tree gone").toBe(true)
    expect(processesWith(marker)).toEqual([])
  }, 60_000)

  test("after a failed run", async () => {
    const marker = newMarker("fail")
    // The server is started for the first round, then the model server fails the second one.
    const server = model([
      { tool_calls: [call("c", "everything__nope", {})], delay_ms: 300 },
      { status: 400, body: { error: { message: "gone away" } } }
    ])
    const dir = project(server, { mcp_servers: { everything: wrappedEverything(marker) } }, "steps:\n  - prompt: 'go'\n    mcp: [everything]\n")
    const watch = watchProcesses(marker)
    const r = await lait(dir, ["run", "wf.yml", "x"])
    const seen = watch.stop()
    expect(r.code).toBe(4)
    expect(r.stderr).toEndWith(`lait: the model server at '${server.baseUrl}' answered HTTP 400: gone away\n`)
    expect(seen.length).toBeGreaterThanOrEqual(2)
    // As above: the group's SIGKILL may still be in flight when lait has exited.
    expect(await waitFor(() => seen.filter(alive).length === 0, 10_000), "the server tree gone").toBe(true)
  }, 60_000)

  test("only the servers a step references are started", async () => {
    const used = newMarker("used")
    const unused = newMarker("unused")
    const server = model([{ content: "no calls", delay_ms: 300 }])
    const dir = project(
      server,
      { mcp_servers: { used: wrappedEverything(used), unused: wrappedEverything(unused) } },
      "steps:\n  - prompt: 'go'\n    mcp: [used]\n"
    )
    const watchUsed = watchProcesses(used)
    const watchUnused = watchProcesses(unused)
    const r = await lait(dir, ["run", "wf.yml", "x"])
    expect(r.code).toBe(0)
    expect(watchUsed.stop().length).toBeGreaterThan(0)
    expect(watchUnused.stop()).toEqual([])
  }, 60_000)

  test("Ctrl-C during an MCP call: exit 130, the server tree is gone", async () => {
    const marker = newMarker("ctrlc")
    const server = model([{ tool_calls: [call("c", "everything__trigger-long-running-operation", { duration: 60, steps: 60 })] }])
    const dir = project(server, { mcp_servers: { everything: wrappedEverything(marker) } }, "steps:\n  - prompt: 'go'\n    mcp: [everything]\n")
    const watch = watchProcesses(marker)
    const child = start(dir, ["run", "wf.yml", "x"])
    const stderr = new Response(child.stderr).text()
    expect(await waitFor(() => server.requests.length === 1 && watch.seen.size >= 2, 20_000), "the model request and the server tree").toBe(true)
    await Bun.sleep(300) // the call is running now
    child.kill("SIGINT")
    expect(await child.exited).toBe(130)
    expect(await stderr).toContain(FIRST)
    const seen = watch.stop()
    expect(await waitFor(() => seen.filter(alive).length === 0, 10_000), "the server tree gone").toBe(true)
  }, 60_000)

  test("one Ctrl-C and a server that ignores SIGTERM: SIGKILL after the grace period, exit 130", async () => {
    const marker = newMarker("grace")
    const server = model([{ tool_calls: [call("c", "stubborn__ping", {})] }])
    const dir = project(server, {
      mcp_servers: {
        stubborn: {
          command: "sh",
          args: ["-c", `trap '' TERM; ${process.execPath} ${scriptedServer} ${marker}; true`],
          env: { MCP_FIXTURE_MODE: "slow-call", MCP_FIXTURE_STUBBORN: "1" }
        }
      }
    }, "steps:\n  - prompt: 'go'\n    mcp: [stubborn]\n")
    const watch = watchProcesses(marker)
    const child = start(dir, ["run", "wf.yml", "x"])
    expect(await waitFor(() => server.requests.length === 1 && watch.seen.size >= 2, 20_000), "the model request and the server tree").toBe(true)
    await Bun.sleep(300)
    const stderr = new Response(child.stderr).text()
    const interrupted = Date.now()
    child.kill("SIGINT")
    expect(await child.exited).toBe(130)
    // The server ignores SIGTERM, so only the SIGKILL at the end of the 2 s grace period ends it and
    // lets lait exit: a lower bound, which a slower machine only makes longer. That lait got there at
    // all (rather than waiting on the server for ever) is the exit above, within the test's timeout.
    expect(Date.now() - interrupted, "ms from Ctrl-C to exit (the grace period is 2000)").toBeGreaterThanOrEqual(1900)
    expect(await stderr).not.toContain(SECOND)
    const seen = watch.stop()
    expect(await waitFor(() => seen.filter(alive).length === 0, 10_000), "the server tree gone").toBe(true)
  }, 60_000)

  test("a second Ctrl-C while a server ignores SIGTERM: lait exits at once and still kills the tree", async () => {
    const marker = newMarker("stubborn")
    const server = model([{ tool_calls: [call("c", "stubborn__ping", {})] }])
    // The shell ignores SIGTERM, the server under it SIGTERM and the end of stdin: only SIGKILL stops them.
    const dir = project(server, {
      mcp_servers: {
        stubborn: {
          command: "sh",
          args: ["-c", `trap '' TERM; ${process.execPath} ${scriptedServer} ${marker}; true`],
          env: { MCP_FIXTURE_MODE: "slow-call", MCP_FIXTURE_STUBBORN: "1" }
        }
      }
    }, "steps:\n  - prompt: 'go'\n    mcp: [stubborn]\n")
    const watch = watchProcesses(marker)
    const child = start(dir, ["run", "wf.yml", "x"])
    const stderr = new Response(child.stderr).text()
    expect(await waitFor(() => server.requests.length === 1 && watch.seen.size >= 2, 20_000), "the model request and the server tree").toBe(true)
    await Bun.sleep(300)
    child.kill("SIGINT")
    await Bun.sleep(500) // shutdown is now waiting for the servers to give up
    child.kill("SIGINT")
    expect(await child.exited).toBe(130)
    // At once: lait prints the second notice and exits on the spot (src/cli/runProcess.ts), so it is
    // the last thing on stderr; waiting out the grace period instead would not print it.
    const text = await stderr
    expect(text).toContain(FIRST)
    expect(text).toEndWith(`${SECOND}\n`)
    const seen = watch.stop()
    expect(await waitFor(() => seen.filter(alive).length === 0, 10_000), "the server tree gone").toBe(true)
  }, 60_000)
})

const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`

describe("--approve-tools", () => {
  test("without a terminal it is an error and nothing runs", async () => {
    const marker = path.join(workspace.cwd(), "approval-ran")
    const server = model([{ tool_calls: [call("c", "tool__touch", {})] }])
    const dir = project(server, { tools: { touch: { command: ["touch", marker] } } }, "steps:\n  - prompt: 'go'\n    tools: [touch]\n")
    const r = await lait(dir, ["run", "wf.yml", "x", "--approve-tools"], { stdin: "y\n" })
    expect({ code: r.code, stderr: r.stderr }).toEqual({
      code: 1,
      stderr: "[1] step-1 (prompt)\nlait: '--approve-tools' requires an interactive stdin to confirm calling 'tool__touch', " +
        "but stdin is not a terminal\n"
    })
    expect(fs.existsSync(marker)).toBe(false)
  }, 60_000)

  test("on a terminal: y runs the call, n denies it, a stops asking for that tool; policy denials are not asked", async () => {
    const server = model([
      {
        tool_calls: [
          call("c1", "tool__echo", { text: "first" }),
          call("c2", "tool__echo", { text: "second" }),
          call("c3", "tool__rm", {}),
          call("c4", "tool__date", {})
        ]
      },
      { tool_calls: [call("c5", "tool__date", {}), call("c6", "tool__echo", { text: "third" })] },
      { content: "approved run done" }
    ])
    const dir = project(server, {
      tools: {
        echo: { command: ["echo", "{{input.text}}"] },
        rm: { command: ["true"] },
        date: { command: ["echo", "today"] }
      },
      tool_policy: { deny: ["tool__rm"] }
    }, "steps:\n  - prompt: 'go'\n    tools: [echo, rm, date]\n")
    const command = [...laitCommand(), "run", "wf.yml", "x", "--approve-tools"].map(shellQuote).join(" ")
    const child = Bun.spawn(["script", "-q", "-e", "-c", command, "/dev/null"], {
      cwd: dir,
      env: cliEnv(dir),
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe"
    })
    let output = ""
    const reading = (async () => {
      for await (const chunk of child.stdout) output += new TextDecoder().decode(chunk)
    })()
    const answer = async (text: string, prompts: number) => {
      expect(await waitFor(() => output.split("allow this call?").length - 1 === prompts, 20_000)).toBe(true)
      child.stdin.write(text)
      child.stdin.flush()
    }
    await answer("y\n", 1) // c1 echo first
    await answer("n\n", 2) // c2 echo second
    await answer("a\n", 3) // c4 date, always; c3 rm is denied by policy without a prompt
    await answer("y\n", 4) // c6 echo third (c5 date is not asked again)
    expect(await child.exited).toBe(0)
    child.stdin.end()
    await reading
    const text = output.replace(/\r\n/g, "\n")
    expect(text.split("allow this call?").length - 1).toBe(4)
    expect(text).toContain(
      `tool call: tool__echo\narguments: {"text":"first"}\ncommand: ["echo", "first"]\n` +
        "allow this call? [y(es)/n(o)/a(lways for this tool)] "
    )
    expect(text).toContain(`tool call: tool__date\narguments: {}\ncommand: ["echo", "today"]\n`)
    expect(text).not.toContain("tool call: tool__rm")
    expect(text).toContain("approved run done")
    const [, second, third] = server.requests.map((r) => r.body as LoggedBody)
    expect(second!.messages.filter((m) => m.role === "tool")).toEqual([
      { role: "tool", content: "first", tool_call_id: "c1" },
      { role: "tool", content: "denied interactively (--approve-tools)", tool_call_id: "c2" },
      { role: "tool", content: "denied by 'tool_policy' in lait.config.yml", tool_call_id: "c3" },
      { role: "tool", content: "today", tool_call_id: "c4" }
    ])
    expect(third!.messages.filter((m) => m.role === "tool").slice(-2)).toEqual([
      { role: "tool", content: "today", tool_call_id: "c5" },
      { role: "tool", content: "third", tool_call_id: "c6" }
    ])
  }, 60_000)
})
