// How a chat's settings are resolved: flag > LLM_* variable > config default: > the alias's default_*,
// the model name's own precedence, and what a settings value out of range says.
import { describe, expect, test } from "bun:test"
import { Effect, Exit } from "effect"
import { resolveChatSettings } from "../../src/chat/settings.ts"
import { chatRequest } from "../../src/chat/turn.ts"
import { LaitConfig } from "../../src/config/LaitConfig.ts"
import type { ConfigFile } from "../../src/config/schema.ts"
import { primaryError, renderChain } from "../../src/core/errors.ts"
import { FileLoader } from "../../src/platform/FileLoader.ts"

const config: ConfigFile = {
  default: { model: "dflt", temperature: 0.3, system: "From config." },
  models: {
    alias: [{ provider: { base_url: "http://a/v1" }, model_id: "a-id", default_temperature: 0.9, default_top_p: 0.5 }]
  }
}

const resolve = (options: Parameters<typeof resolveChatSettings>[0], env: Record<string, string> = {}) =>
  Effect.runPromiseExit(
    Effect.gen(function*() {
      return yield* resolveChatSettings(options, yield* LaitConfig, yield* FileLoader)
    }).pipe(Effect.provide(LaitConfig.layerTest(config, { env })), Effect.provide(FileLoader.layer))
  )

const ok = async (options: Parameters<typeof resolveChatSettings>[0], env: Record<string, string> = {}) => {
  const exit = await resolve(options, env)
  if (Exit.isFailure(exit)) throw new Error(String(exit.cause))
  return exit.value
}

describe("resolveChatSettings", () => {
  test("sampling: flag over variable over default: over the alias", async () => {
    const viaAlias = await ok({ model: "alias" })
    expect(viaAlias.sampling).toEqual({ temperature: 0.3, top_p: 0.5 })
    expect(viaAlias.endpoints[0].modelId).toBe("a-id")
    expect((await ok({ model: "alias" }, { LLM_TEMPERATURE: "1.1" })).sampling.temperature).toBe(1.1)
    expect((await ok({ model: "alias", temperature: "0" }, { LLM_TEMPERATURE: "1.1" })).sampling.temperature).toBe(0)
    expect((await ok({ model: "alias", fromEnv: false }, { LLM_TEMPERATURE: "1.1" })).sampling.temperature).toBe(0.3)
  })

  test("model: --model/LLM_MODEL, then a named prompt's model, then default.model", async () => {
    expect((await ok({ modelFallback: "p" })).model).toBe("p")
    expect((await ok({ modelFallback: "p" }, { LLM_MODEL: "e" })).model).toBe("e")
    expect((await ok({ model: "f", modelFallback: "p" }, { LLM_MODEL: "e" })).model).toBe("f")
    expect((await ok({})).model).toBe("dflt")
  })

  test("out-of-range values are usage errors naming the flag; the request carries system first", async () => {
    const message = async (options: Parameters<typeof resolveChatSettings>[0], env: Record<string, string> = {}) => {
      const exit = await resolve(options, env)
      return Exit.isFailure(exit) ? renderChain(primaryError(exit.cause)) : "resolved"
    }
    expect(await message({ model: "m" }, { LLM_TOP_P: "2" }))
      .toBe("invalid value '2' for '--top-p <TOP_P>': expected a number from 0 to 1")
    expect(await message({ model: "m", maxTokens: "1.5" }))
      .toBe("invalid value '1.5' for '--max-tokens <MAX_TOKENS>': expected an integer of at least 1")
    expect(await message({ model: "m", reasoningEffort: "max" }))
      .toBe("invalid value 'max' for '--reasoning-effort <REASONING_EFFORT>': expected one of none, minimal, low, medium, high, xhigh")
    const settings = await ok({ model: "m", maxTokens: "12", reasoningEffort: "low" })
    expect(chatRequest(settings, [{ role: "user", content: "q" }])).toEqual({
      messages: [{ role: "system", content: "From config." }, { role: "user", content: "q" }],
      tools: [],
      response_format: null,
      temperature: 0.3,
      max_tokens: 12,
      reasoning_effort: "low"
    })
  })
})
