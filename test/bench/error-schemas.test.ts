// The domain error classes are loaded by every lait process (several by `lait --version`). They are
// Data errors whose reasons are plain TypeScript types (src/core/reasonError.ts; ModelError's reasons
// Data classes), so evaluating their modules builds nothing and loads no Effect Schema:
// test/bench/bundle-modules.test.ts keeps Schema out of a plain
// run, a replay and an eval. What is left to check here is that a reason is rendered as before.
import { describe, expect, test } from "bun:test"
import { FileError } from "../../src/core/fileErrors.ts"
import { ModelError, Unreachable } from "../../src/model/ModelError.ts"

describe("domain error reasons", () => {
  test("a Data error's reason is rendered as before", () => {
    const error = new FileError({ reason: { _tag: "NotUtf8", path: "notes.txt" } })
    expect([error._tag, error.reason._tag]).toEqual(["FileError", "NotUtf8"])
    expect(error.message).toBe("failed to read 'notes.txt'")
    expect(error.detail).toBe("file contents were not valid UTF-8")
    expect(error.cause).toBe("file contents were not valid UTF-8")
  })

  test("a ModelError's reason class is rendered as before", () => {
    const error = new ModelError({ reason: new Unreachable({ baseUrl: "http://localhost:1234/v1", detail: "connection refused" }) })
    expect([error._tag, error.reason._tag]).toEqual(["ModelError", "Unreachable"])
    expect(error.message).toBe("failed to reach 'http://localhost:1234/v1': connection refused")
  })
})
