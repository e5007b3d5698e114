// Failures of skills (the `skills:` registry of lait.config.yml and the files it names) as one error
// class with a `reason`. A skill name that is not registered or a file that cannot be read exits 1;
// a file that is there but malformed is a validation failure (exit 3), as a malformed agent file is.
import { ReasonError, type TaggedUnion } from "../core/reasonError.ts"

interface Reasons {
  Unknown: { name: string }
  /** `detail` is the OS's (or the read limit's) reason. */
  ReadFailed: { name: string; path: string; detail: string }
  /** No frontmatter, frontmatter that is not YAML, or a field skill files do not have. */
  Invalid: { name: string; path: string; detail: string }
}
export type SkillErrorReason = TaggedUnion<Reasons>

const describe = (reason: SkillErrorReason): string => {
  switch (reason._tag) {
    case "Unknown":
      return `unknown skill '${reason.name}'; define it under 'skills:' in lait.config.yml`
    case "ReadFailed":
      return `failed to read skill file '${reason.path}' (skill '${reason.name}')`
    case "Invalid":
      return `failed to parse skill file '${reason.path}' (skill '${reason.name}')`
  }
}

export class SkillError extends ReasonError("SkillError", { describe }) {}

declare module "../core/errors.ts" {
  interface DomainErrors {
    readonly SkillError: SkillError
  }
}
