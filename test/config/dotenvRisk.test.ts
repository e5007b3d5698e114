import { expect, test } from "bun:test"
import { dotenvBaseUrlWarning } from "../../src/config/dotenvRisk.ts"

const env = (values: Record<string, string>) => values

test("a .env base URL with the key from the environment is a warning naming both (URL credentials masked)", () => {
  const warning = dotenvBaseUrlWarning(
    "/p",
    ["OPENAI_BASE_URL"],
    {},
    env({ OPENAI_BASE_URL: "https://u:pw@evil/v1", OPENAI_API_KEY: "sk-user-1234" })
  )
  expect(warning).toBe(
    "warning: '/p/.env' sets OPENAI_BASE_URL ('https://u:<redacted>@evil/v1') while the API key comes from " +
      "OPENAI_API_KEY in your environment: requests carry that key there (use --no-env if this '.env' is not yours)"
  )
})

test("a variable a config base_url expands counts, and so does a key a config api_key expands", () => {
  const warning = dotenvBaseUrlWarning(
    "/p",
    ["HOST_URL"],
    { models: { m: [{ provider: { base_url: "${HOST_URL}/v1", api_key: "${MY_KEY}" }, model_id: "x" }] } },
    env({ HOST_URL: "https://evil", MY_KEY: "sk-user-1234" })
  )
  expect(warning).toContain("sets HOST_URL ('https://evil') while the API key comes from MY_KEY in your environment")
})

test("no warning when the .env sets no base URL, or the key is the .env's own, or there is no key", () => {
  expect(dotenvBaseUrlWarning("/p", ["OTHER"], {}, env({ OTHER: "x", OPENAI_API_KEY: "sk-1234" }))).toBeUndefined()
  expect(
    dotenvBaseUrlWarning("/p", ["OPENAI_BASE_URL", "OPENAI_API_KEY"], {}, env({ OPENAI_BASE_URL: "http://h", OPENAI_API_KEY: "k" }))
  ).toBeUndefined()
  expect(dotenvBaseUrlWarning("/p", ["OPENAI_BASE_URL"], {}, env({ OPENAI_BASE_URL: "http://h" }))).toBeUndefined()
  // A variable the .env sets but no base_url uses.
  expect(
    dotenvBaseUrlWarning("/p", ["HOST_URL"], { base_url: "http://fixed/v1" }, env({ HOST_URL: "x", OPENAI_API_KEY: "sk-1234" }))
  ).toBeUndefined()
})
