// `lait doctor [--json] [--timeout SECONDS]`: checks the config files, api_key_cmds, every model
// alias's endpoints and the MCP servers, one OK/WARN/FAIL line each (src/doctor/); exit 1 on a FAIL.
// It loads the config itself: a config that does not load is a finding here, not the end.
import { Effect } from "effect"
import { Command } from "effect/cli"
import { switchFlag } from "./flags/make.ts"
import { ModelHttp } from "../model/ModelHttp.ts"
import { globalOptions } from "./global.ts"
import { checkTimeout, timeoutFlag } from "./models.ts"
import { printLine } from "./output.ts"

export const doctorCommand = Command.make(
  "doctor",
  {
    json: switchFlag("json", "Print a JSON array of checks ({status, check, name, label, message})"),
    timeout: timeoutFlag
  },
  Effect.fn("cli.doctor")(function*({ json, timeout }) {
    const options = yield* globalOptions
    const timeoutMillis = yield* checkTimeout(timeout)
    // Loaded on demand: the config schema, lint, the MCP SDK and the HTTP code stay out of start-up.
    const doctor = yield* Effect.promise(() => import("../doctor/doctor.ts"))
    const checks = yield* doctor.doctorChecks({ ...options, timeoutMillis })
    yield* printLine(json ? doctor.renderJson(checks) : doctor.renderText(checks))
    const failure = doctor.doctorFailure(checks)
    if (failure !== undefined) return yield* failure
  })
).pipe(
  Command.withDescription(
    "Check the config files, api_key_cmds, model endpoints and MCP servers: one OK/WARN/FAIL line each, exit 1 on FAIL"
  ),
  Command.provide(ModelHttp.layer)
)
