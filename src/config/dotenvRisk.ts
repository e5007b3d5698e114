// A `.env` belongs to the checkout it sits in; the API key in the process environment belongs to the
// user. A `.env` that decides where requests go (OPENAI_BASE_URL, or a variable a base_url expands)
// while the key comes from the user's environment would send that key to a server the checkout
// chose, without a word. It still works (that may well be the user's own setup), with a warning.
import * as nodePath from "node:path"
import { DOTENV_FILE, type Env } from "./env.ts"
import { displayUrl } from "../core/urls.ts"
import type { ConfigFile } from "./schema.ts"

const PLACEHOLDER = /\$\{([A-Za-z0-9_]+)\}/g

const placeholders = (values: ReadonlyArray<string | undefined>): Set<string> =>
  new Set(values.flatMap((v) => (v === undefined ? [] : [...v.matchAll(PLACEHOLDER)].map((m) => m[1]!))))

const providers = (config: ConfigFile) => Object.values(config.models ?? {}).flat().map((d) => d.provider)

/** The `warning:` line for this `.env` (`setByDotenv`: the variables it set), if it steers a key. */
export const dotenvBaseUrlWarning = (
  cwd: string,
  setByDotenv: ReadonlyArray<string>,
  config: ConfigFile,
  env: Env
): string | undefined => {
  const fromDotenv = new Set(setByDotenv)
  const fromProcess = (name: string) => !fromDotenv.has(name) && env[name] !== undefined && env[name] !== ""
  const urlVars = ["OPENAI_BASE_URL", ...placeholders([config.base_url, ...providers(config).map((p) => p.base_url)])]
    .filter((name) => fromDotenv.has(name) && env[name] !== "")
  const keyVars = ["OPENAI_API_KEY", ...placeholders([config.api_key, ...providers(config).map((p) => p.api_key)])]
    .filter(fromProcess)
  if (urlVars.length === 0 || keyVars.length === 0) return undefined
  const urls = [...new Set(urlVars)].map((name) => `${name} ('${displayUrl(env[name] ?? "")}')`).join(", ")
  return `warning: '${nodePath.join(cwd, DOTENV_FILE)}' sets ${urls} while the API key comes from ` +
    `${[...new Set(keyVars)].join(", ")} in your environment: requests carry that key there ` +
    "(use --no-env if this '.env' is not yours)"
}

// A `.env` may set no variable that changes which code a program runs or where it finds its
// configuration: a checkout holding only `.env` and `evil.so` would otherwise run its code in every
// `run:` step, tool, MCP server and `api_key_cmd` (LD_PRELOAD), swap in a global config of its own
// (XDG_CONFIG_HOME), or route lait's requests through a proxy of its choosing (HTTPS_PROXY). Each
// group says what the variables control; docs/environment.md lists them.
const REFUSED_PREFIXES: ReadonlyArray<readonly [prefix: string, controls: string]> = [
  ["LD_", "the dynamic loader"],
  ["DYLD_", "the dynamic loader"],
  ["BUN_", "the Bun runtime"],
  ["XDG_", "where programs find their configuration"],
  ["GIT_", "git's configuration and the commands it runs"]
]

const group = (controls: string, names: ReadonlyArray<string>) => names.map((name) => [name, controls] as const)

const REFUSED_NAMES: ReadonlyMap<string, string> = new Map([
  ...group("what a shell runs", [
    "BASH_ENV",
    "ENV",
    "SHELLOPTS",
    "BASHOPTS",
    "PROMPT_COMMAND",
    "PS4",
    "IFS",
    "CDPATH",
    "GLOBIGNORE",
    "ZDOTDIR",
    "SHELL"
  ]),
  ...group("the code a language runtime loads", [
    "NODE_OPTIONS",
    "NODE_PATH",
    "PYTHONPATH",
    "PYTHONHOME",
    "PYTHONSTARTUP",
    "PERL5OPT",
    "PERL5LIB",
    "PERLLIB",
    "PERL5DB",
    "RUBYOPT",
    "RUBYLIB",
    "JAVA_TOOL_OPTIONS",
    "_JAVA_OPTIONS",
    "JDK_JAVA_OPTIONS"
  ]),
  // lait's own requests read these as they are made: a proxy the checkout names, with certificate
  // checks off, would see the user's API key.
  ...group("where connections go and which certificates are trusted", [
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "ALL_PROXY",
    "NODE_TLS_REJECT_UNAUTHORIZED",
    "NODE_EXTRA_CA_CERTS",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR"
  ]),
  ...group("where programs, configuration and temporary files are found", [
    "PATH",
    "HOME",
    "USERPROFILE",
    "TMPDIR",
    "TMP",
    "TEMP"
  ])
])

/** What `name` controls when a `.env` may not set it (names compared in upper case, as Windows does). */
export const refusedDotenvVariable = (name: string): string | undefined => {
  const upper = name.toUpperCase()
  return REFUSED_NAMES.get(upper) ?? REFUSED_PREFIXES.find(([prefix]) => upper.startsWith(prefix))?.[1]
}

/** The `warning:` line for a variable `.env` may not set. */
export const refusedDotenvWarning = (file: string, name: string, controls: string): string =>
  `warning: '${file}' sets ${name}, which a .env may not set (it controls ${controls}); ignored`
