// Which run errors mean the run could not run at all, so that they say nothing about the model: the
// model server failed (unreachable, timed out, an HTTP error after every retry and fallback, an
// unusable answer), a cassette was missing or broken, the configuration could not resolve a model, or
// the app under test (an exec or http target) failed.
// Anything else that stops a run — a workflow step failing on the model's output, a schema the answer
// did not match, a timeout of the workflow — is the model's (or the workflow's) doing: a failure.
import { causeChain } from "../core/errors.ts"

// An app under test that crashed or did not answer (docs/apps.md) says nothing about the model either.
const SETUP_TAGS: ReadonlySet<string> = new Set(["ModelError", "ModelApiError", "ConfigError", "AppError"])

export const couldNotRun = (error: unknown): boolean =>
  causeChain(error).some((link) =>
    typeof link === "object" && link !== null && "_tag" in link && SETUP_TAGS.has(String(link._tag))
  )
