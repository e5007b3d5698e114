// `lait proxy` as a process of the compiled binary for the proxy's tests: started in a directory,
// its URL read from the line it prints on stderr, stopped with a signal.
import { ensureBinary, waitUntil } from "./util.ts"

export interface RunningProxy {
  readonly url: string
  readonly stderr: () => string
  /** Sends SIGTERM and resolves with the exit code. */
  readonly stop: () => Promise<number | null>
}

export const startProxy = async (
  args: ReadonlyArray<string>,
  cwd: string,
  env: Readonly<Record<string, string | undefined>>
): Promise<RunningProxy> => {
  const child = Bun.spawn([await ensureBinary(), "proxy", ...args], {
    cwd,
    env: Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined)),
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe"
  })
  let stderr = ""
  void (async () => {
    const decoder = new TextDecoder()
    for await (const chunk of child.stderr) stderr += decoder.decode(chunk, { stream: true })
  })()
  let exited = false
  void child.exited.then(() => void (exited = true))
  await waitUntil("lait proxy to listen", () => exited || /listening on http/.test(stderr))
  const url = /lait proxy: listening on (http:\/\/\S+)/.exec(stderr)?.[1]
  if (url === undefined) throw new Error(`lait proxy did not start: ${stderr}`)
  return {
    url,
    stderr: () => stderr,
    stop: async () => {
      child.kill("SIGTERM")
      await child.exited
      return child.exitCode
    }
  }
}
