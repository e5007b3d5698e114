import { expect, test } from "bun:test"
import { displayUrl, isCredentialParam, joinUrl, urlCredentials } from "../../src/core/urls.ts"

test("URLs without credentials are printed exactly as written", () => {
  for (const url of ["http://localhost:1234/v1", "https://h:443/v1/", "localhost:8080/v1", "https://h/openai/v1?api-version=2024-06-01", "", "not a url"]) {
    expect(displayUrl(url)).toBe(url)
  }
})

test("the userinfo's password, or a lone user name, is masked; the host and path stay", () => {
  expect(displayUrl("https://me:s3cr%2Ft@h:8443/v1")).toBe("https://me:<redacted>@h:8443/v1")
  expect(displayUrl("https://ghp_token@h/v1")).toBe("https://<redacted>@h/v1")
  expect(displayUrl("https://me:@h/v1")).toBe("https://me:@h/v1")
  // The last `@` of the authority ends the userinfo, as the URL parser reads it.
  expect(displayUrl("http://me:p@ss@h/v1?x=1")).toBe("http://me:<redacted>@h/v1?x=1")
  // An `@` after the authority is not userinfo.
  expect(displayUrl("http://h/v1/@models")).toBe("http://h/v1/@models")
})

test("values of credential-like query and fragment parameters are masked, the others kept", () => {
  expect(displayUrl("https://h/openai/v1?api-version=2024-06-01&api-key=abc")).toBe(
    "https://h/openai/v1?api-version=2024-06-01&api-key=<redacted>"
  )
  expect(displayUrl("https://h/v1?key=a&token=b&access_token=c&sig=d&signature=e&password=f&API_KEY=g&X-Amz-Security-Token=h&flag"))
    .toBe(
      "https://h/v1?key=<redacted>&token=<redacted>&access_token=<redacted>&sig=<redacted>&signature=<redacted>" +
        "&password=<redacted>&API_KEY=<redacted>&X-Amz-Security-Token=<redacted>&flag"
    )
  expect(displayUrl("https://h/cb#access_token=abc&state=1")).toBe("https://h/cb#access_token=<redacted>&state=1")
  expect(displayUrl("https://h/v1?api%2Dkey=abc&key=")).toBe("https://h/v1?api%2Dkey=<redacted>&key=")
  for (const name of ["api-version", "model", "keys_only_in_name_start", "monkey"]) expect(isCredentialParam(name)).toBe(false)
})

test("urlCredentials: what displayUrl hides, as written and decoded", () => {
  expect(urlCredentials("https://me:p%40ss@h/v1?api-version=1&api-key=a%2Fb")).toEqual(["p%40ss", "p@ss", "a%2Fb", "a/b"])
  expect(urlCredentials("https://tok@h/v1")).toEqual(["tok"])
  expect(urlCredentials("http://localhost:1234/v1?api-version=1")).toEqual([])
})

test("joinUrl puts the path before the query string and drops a fragment", () => {
  expect(joinUrl("https://h/openai/v1?api-version=2024-06-01", "/chat/completions")).toBe(
    "https://h/openai/v1/chat/completions?api-version=2024-06-01"
  )
  expect(joinUrl("https://me:pw@h/v1/?k=1#frag", "/responses")).toBe("https://me:pw@h/v1/responses?k=1")
  expect(joinUrl("http://localhost:1234/v1", "/chat/completions")).toBe("http://localhost:1234/v1/chat/completions")
})
