// The domain error classes are loaded by every lait process (several by `lait --version`). ModelError
// is the one whose reasons are Schema classes: building its `reason` union when the module was
// evaluated added to every start-up, so the union is suspended until the first ModelError is made.
// The other classes are Data errors with plain reason types (src/core/reasonError.ts), which build
// nothing at all; test/bench/run-bundle-modules.test.ts keeps effect's Schema out of a plain run.
import { describe, expect, test } from "bun:test"
import type { Schema } from "effect"
import { FileError } from "../../src/core/fileErrors.ts"
import { ModelError } from "../../src/model/ModelError.ts"

describe("domain error reasons", () => {
  test("ModelError builds its reason union on first use", () => {
    const fields = (ModelError as unknown as { fields: Record<string, Schema.Top> }).fields
    expect(fields["reason"]?.ast._tag).toBe("Suspend")
  })

  test("a Data error's reason is rendered as before", () => {
    const error = new FileError({ reason: { _tag: "NotUtf8", path: "notes.txt" } })
    expect([error._tag, error.reason._tag]).toEqual(["FileError", "NotUtf8"])
    expect(error.message).toBe("failed to read 'notes.txt'")
    expect(error.detail).toBe("file contents were not valid UTF-8")
    expect(error.cause).toBe("file contents were not valid UTF-8")
  })
})
