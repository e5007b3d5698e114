// Preloaded before every test file by bunfig.toml.
//
// A test's own deadline is a hang guard, never a speed check (speed lives in bench/): bun's default of
// 5 s per test is what a test that spawns a few lait processes takes on a busy machine, so the default
// is raised to a bound that holds on a machine ten times slower than a quiet one.
import { setDefaultTimeout } from "bun:test"

setDefaultTimeout(60_000)
