// Sampling settings of the requests an eval makes itself (the model target's and the judge's): they
// have no step or agent of their own, so the model definition's defaults apply, then config
// `default:`, as for any request upstream resolves without overrides.
import type { Endpoint } from "../config/endpoints.ts"
import type { DefaultSettings } from "../config/schema.ts"
import type { ChatRequest } from "../model/types.ts"

export type SamplingFields = Pick<ChatRequest, "reasoning_effort" | "temperature" | "top_p" | "max_tokens">

export const samplingFields = (primary: Endpoint, defaults: DefaultSettings | undefined): SamplingFields => {
  const reasoning = primary.sampling.reasoningEffort ?? defaults?.reasoning_effort
  const temperature = primary.sampling.temperature ?? defaults?.temperature
  const topP = primary.sampling.topP ?? defaults?.top_p
  const maxTokens = primary.sampling.maxTokens ?? defaults?.max_tokens
  return {
    ...(reasoning !== undefined ? { reasoning_effort: reasoning } : {}),
    ...(temperature !== undefined ? { temperature } : {}),
    ...(topP !== undefined ? { top_p: topP } : {}),
    ...(maxTokens !== undefined ? { max_tokens: maxTokens } : {})
  }
}
