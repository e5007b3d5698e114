// The checks of `lait doctor` that need no network and no process: whether a default model is set
// (a WARN when not: a command given `--model` every time needs none), and whether the files the
// `agents:` and `skills:` entries name are there (a FAIL when not: the agent or skill would fail the
// run that uses it). The original lait makes the same checks (docs/models-doctor.md#lait-doctor).
import { Effect } from "effect"
import type { Env } from "../config/env.ts"
import type { ConfigFile } from "../config/schema.ts"
import { registryProblem } from "../lint/config.ts"
import { display } from "../lint/context.ts"
import type { FileLoader } from "../platform/FileLoader.ts"
import type { Check } from "./checks.ts"

/** A WARN when neither `default.model` nor LLM_MODEL names a model; nothing otherwise (the model checks cover it). */
export const defaultModelCheck = (config: ConfigFile, env: Env): ReadonlyArray<Check> => {
  const set = (value: string | undefined) => value !== undefined && value.trim() !== ""
  if (set(config.default?.model) || set(env["LLM_MODEL"])) return []
  return [{
    status: "warn",
    check: "model",
    name: "default.model",
    label: "default.model",
    message: "not set; every command needs --model (or LLM_MODEL)"
  }]
}

/** One check per `agents:` and `skills:` entry, by section and name: OK when its file is there. */
export const registryFileChecks = (config: ConfigFile): Effect.Effect<ReadonlyArray<Check>, never, FileLoader> =>
  Effect.forEach(
    (["agents", "skills"] as const).flatMap((section) =>
      Object.keys(config[section] ?? {}).sort().map((name) => ({ section, name, path: config[section]![name]! }))
    ),
    ({ section, name, path }) =>
      Effect.map(registryProblem(section, path), (problem): Check => ({
        status: problem === undefined ? "ok" : "fail",
        check: "file",
        name: `${section}.${name}`,
        label: `${section === "agents" ? "agent" : "skill"} '${name}'`,
        message: problem === undefined ? `${display(path)} (found)` : `resolves to '${display(path)}', ${problem}`
      }))
  )
