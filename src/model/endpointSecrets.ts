// What must never be printed or stored about an endpoint: its API key, the values of its extra headers
// (a gateway's credential, docs/config.md#provider-headers), and any credential written into its base
// URL (`user:password@`, `?api-key=…`), which servers may echo back just like the key.
import { DUMMY_API_KEY } from "../config/endpoints.ts"
import { registerSecrets } from "../config/secrets.ts"
import { redact } from "../core/redaction.ts"
import { containsAnySecret, headerSecrets } from "../core/secrets.ts"
import { urlCredentials } from "../core/urls.ts"

export const secretsOf = (
  key: string | undefined,
  baseUrl: string,
  headers?: Readonly<Record<string, string>>
): ReadonlyArray<string | undefined> => [
  key,
  ...headerSecrets(Object.values(headers ?? {})),
  ...urlCredentials(baseUrl)
]

/**
 * Makes the endpoint's secrets secrets of the run (src/config/secrets.ts) and masks them, with every
 * other secret the run knows (a fallback's key, tool `env` values), in text about to be printed.
 */
export const endpointRedactor = (
  key: string | undefined,
  baseUrl: string,
  headers?: Readonly<Record<string, string>>
): (text: string) => string => {
  registerSecrets(secretsOf(key, baseUrl, headers))
  return redact
}

/** Whether `text` holds one of the endpoint's secrets. */
export const holdsEndpointSecret = (
  text: string,
  key: string | undefined,
  baseUrl: string,
  headers?: Readonly<Record<string, string>>
): boolean => containsAnySecret(text, secretsOf(key, baseUrl, headers), [DUMMY_API_KEY])
