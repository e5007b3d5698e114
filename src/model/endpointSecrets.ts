// What must never be printed or stored about an endpoint: its API key, and any credential written into
// its base URL (`user:password@`, `?api-key=…`), which servers may echo back just like the key.
import { DUMMY_API_KEY } from "../config/endpoints.ts"
import { containsAnySecret, redactSecrets } from "../core/secrets.ts"
import { urlCredentials } from "../core/urls.ts"

export const secretsOf = (key: string | undefined, baseUrl: string): ReadonlyArray<string | undefined> => [
  key,
  ...urlCredentials(baseUrl)
]

/** Masks the endpoint's secrets (every spelling `redactSecret` knows) in text about to be printed. */
export const endpointRedactor = (key: string | undefined, baseUrl: string) => (text: string): string =>
  redactSecrets(text, secretsOf(key, baseUrl), [DUMMY_API_KEY])

/** Whether `text` holds one of the endpoint's secrets. */
export const holdsEndpointSecret = (text: string, key: string | undefined, baseUrl: string): boolean =>
  containsAnySecret(text, secretsOf(key, baseUrl), [DUMMY_API_KEY])
