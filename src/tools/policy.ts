// `tool_policy` (docs/config.md#tool_policy): `deny` is checked first and any match denies; an empty `allow`
// allows everything, a non-empty one requires a match. Patterns are deliberately not a general glob:
// `*` (all), `*mid*` (contains), `pre*` (prefix), `*suf` (suffix), else an exact name. `*mid*` is
// tested before the one-sided forms, or it would read as a prefix pattern starting with `*`.
import type { ToolPolicy } from "../config/schema.ts"

export const matchesPattern = (pattern: string, name: string): boolean => {
  if (pattern === "*") return true
  if (pattern.length >= 2 && pattern.startsWith("*") && pattern.endsWith("*")) {
    return name.includes(pattern.slice(1, -1))
  }
  if (pattern.endsWith("*")) return name.startsWith(pattern.slice(0, -1))
  if (pattern.startsWith("*")) return name.endsWith(pattern.slice(1))
  return pattern === name
}

export const policyAllows = (policy: ToolPolicy | undefined, qualifiedName: string): boolean => {
  if (policy === undefined) return true
  if (policy.deny.some((p) => matchesPattern(p, qualifiedName))) return false
  return policy.allow.length === 0 || policy.allow.some((p) => matchesPattern(p, qualifiedName))
}

export const POLICY_DENIAL = "denied by 'tool_policy' in lait.config.yml"
