// `lait doctor [--json]` end to end: the config checks (which file, does it load, does `lait lint`
// find anything in it), then, when it loaded, the runtime checks (./checks.ts); one line per check on
// stdout, and a failure (exit 1) when any check is FAIL. WARN alone passes.
import { Effect } from "effect"
import { loadConfig, type LoadedConfig } from "../config/load.ts"
import { errorLine, renderChain } from "../core/errors.ts"
import { loadActiveConfig } from "../lint/config.ts"
import { display as shownPath } from "../lint/context.ts"
import { lintFile } from "../lint/run.ts"
import { type Check, runtimeChecks, type Status } from "./checks.ts"
import { DoctorError } from "./doctorErrors.ts"
import { defaultModelCheck, registryFileChecks } from "./local.ts"

export interface DoctorOptions {
  readonly configPath: string | undefined
  readonly noConfig: boolean
  readonly noEnv: boolean
  readonly timeoutMillis: number
}

const configCheck = (status: Status, name: string, message: string): Check => ({
  status,
  check: "config",
  name,
  label: "config",
  message
})

const withLine = (message: string, line: number | undefined) =>
  line === undefined || message.includes(`line ${line}`) ? message : `${message} (line ${line})`

/** One check per config file: its first lint error (or warning), or that it is clean. */
const lintChecks = (loaded: LoadedConfig, options: DoctorOptions) =>
  Effect.gen(function*() {
    const active = yield* loadActiveConfig(options)
    // A `workflows:` entry that names no file is reported against the active (last) file.
    const missing = active.section.registry.filter((e) => !e.exists)
      .map((e) => `workflows.${e.name} resolves to '${shownPath(e.path)}', which does not exist`)
    return yield* Effect.forEach(loaded.files, (file, i) =>
      Effect.map(lintFile(file, active), (report) => {
        const shown = shownPath(file)
        const errors = [
          ...report.issues.filter((x) => x.severity === "error").map((x) => withLine(x.message, x.line)),
          ...(i === loaded.files.length - 1 ? missing : [])
        ]
        const warnings = report.issues.filter((x) => x.severity === "warning").map((x) => withLine(x.message, x.line))
        const found = errors.length > 0 ? errors : warnings
        if (found.length === 0) return configCheck("ok", shown, `${shown} (parsed, lint clean)`)
        const more = found.length > 1 ? `; ${found.length - 1} more (see 'lait lint ${shown}')` : ""
        return configCheck(errors.length > 0 ? "fail" : "warn", shown, `${shown}: ${found[0]}${more}`)
      }))
  })

/** The config checks, and the configuration the others use (undefined when it did not load). */
const configChecks = (options: DoctorOptions) =>
  Effect.gen(function*() {
    if (options.noConfig) {
      return { checks: [configCheck("ok", "", "no file loaded (--no-config)")], loaded: yield* load(options) }
    }
    const loaded = yield* Effect.result(load(options))
    if (loaded._tag === "Failure") {
      const error = loaded.failure
      const file = typeof error === "object" && "reason" in error && "path" in error.reason ? error.reason.path : ""
      const message = withLine(renderChain(error), errorLine(error))
      return { checks: [configCheck("fail", String(file), message)], loaded: undefined }
    }
    if (loaded.success.files.length === 0) {
      const message = `no lait.config.yml found from '${loaded.success.cwd}' upward (built-in defaults are used)`
      return { checks: [configCheck("warn", "", message)], loaded: loaded.success }
    }
    const checks = yield* lintChecks(loaded.success, options)
    // A file that breaks a rule (both api_key and api_key_cmd) is not used by any command either.
    const usable = (loaded.success.invalid ?? []).length === 0 ? loaded.success : undefined
    return { checks, loaded: usable }
  })

const load = (options: DoctorOptions) =>
  loadConfig({
    cwd: process.cwd(),
    configPath: options.configPath,
    noConfig: options.noConfig,
    noEnv: options.noEnv,
    waitForWriter: false,
    keepInvalid: true
  })

/** Every check, in order: config, default.model, api_key_cmd, models, MCP servers, agent and skill files. */
export const doctorChecks = (options: DoctorOptions) =>
  Effect.gen(function*() {
    const { checks, loaded } = yield* configChecks(options)
    if (loaded === undefined) {
      const message = "skipped: the configuration did not load"
      return [...checks, { status: "warn", check: "config", name: "", label: "other checks", message } satisfies Check]
    }
    const ctx = {
      config: loaded.config,
      env: loaded.env,
      cwd: loaded.cwd,
      overrides: {},
      timeoutMillis: options.timeoutMillis,
      globalKeyCmds: loaded.globalKeyCmds
    }
    return [
      ...checks,
      ...defaultModelCheck(loaded.config, loaded.env),
      ...(yield* runtimeChecks(ctx)),
      ...(yield* registryFileChecks(loaded.config))
    ]
  })

const STATUS_TEXT: Record<Status, string> = { ok: "OK  ", warn: "WARN", fail: "FAIL" }

/** `OK   config: lait.config.yml (parsed, lint clean)`, one per check. */
export const renderText = (checks: ReadonlyArray<Check>): string =>
  checks.map((c) => `${STATUS_TEXT[c.status]} ${c.label}: ${c.message}`).join("\n")

/** A JSON array, one object per check, keys always present and in this order. */
export const renderJson = (checks: ReadonlyArray<Check>): string =>
  JSON.stringify(
    checks.map((c) => ({ status: c.status, check: c.check, name: c.name, label: c.label, message: c.message }))
  )

/** The failure doctor exits with, or undefined when no check is FAIL. */
export const doctorFailure = (checks: ReadonlyArray<Check>): DoctorError | undefined => {
  const failed = checks.filter((c) => c.status === "fail").length
  return failed === 0 ? undefined : new DoctorError({ reason: { _tag: "ChecksFailed", failed, total: checks.length } })
}
