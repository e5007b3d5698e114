// qemu user-mode emulation for running the linux-arm64 release binary on another machine: Debian's
// qemu-user and the arm64 C library it needs (the binary links glibc), installed on first use where
// the test runs as root with apt-get. Where neither is possible, the reason is returned for the skip.
import * as fs from "node:fs"
import { run } from "../e2e/util.ts"

const SYSROOT = "/usr/aarch64-linux-gnu"
const EMULATORS = ["/usr/bin/qemu-aarch64", "/usr/bin/qemu-aarch64-static"]
const PACKAGES = ["qemu-user", "libc6-arm64-cross"]

export type Qemu = { path: string; sysroot: string; reason?: undefined } | { path?: undefined; sysroot?: undefined; reason: string }

const found = (): Qemu | undefined => {
  const emulator = EMULATORS.find((p) => fs.existsSync(p))
  return emulator !== undefined && fs.existsSync(`${SYSROOT}/lib/ld-linux-aarch64.so.1`)
    ? { path: emulator, sysroot: SYSROOT }
    : undefined
}

/** qemu-aarch64 and an arm64 sysroot, or why there are none. */
export const qemuAarch64 = async (): Promise<Qemu> => {
  if (process.platform === "linux" && process.arch === "arm64") {
    return { reason: "this machine is arm64: the binary runs natively, no emulation to test" }
  }
  const have = found()
  if (have !== undefined) return have
  if (process.platform !== "linux" || process.getuid?.() !== 0 || !fs.existsSync("/usr/bin/apt-get")) {
    return { reason: `no qemu-aarch64 with ${SYSROOT} and no way to install ${PACKAGES.join(" ")} (needs root and apt-get)` }
  }
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" }
  let install = await run(["apt-get", "install", "-y", ...PACKAGES], { cwd: "/", env, timeoutMs: 600_000 })
  if (install.code !== 0) {
    // The package lists may be missing or stale on a fresh machine.
    await run(["apt-get", "update"], { cwd: "/", env, timeoutMs: 300_000 })
    install = await run(["apt-get", "install", "-y", ...PACKAGES], { cwd: "/", env, timeoutMs: 600_000 })
  }
  return found() ??
    { reason: `apt-get could not install ${PACKAGES.join(" ")}: ${install.stderr.trim().split("\n").at(-1) ?? "no output"}` }
}
