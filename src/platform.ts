// The only module (with main.ts) that knows we run on Bun.
import { BunServices } from "@effect/platform-bun"
import { FileSystem, Layer, Path, Stdio, Terminal } from "effect"
import { FetchHttpClient, HttpClient } from "effect/http"
import { ChildProcessSpawner } from "effect/process"

// The annotation matters: platform-bun 4.0.0 types BunServices with `effect/Crypto` (gone in 4.1).
export const PlatformLayer: Layer.Layer<
  | FileSystem.FileSystem
  | Path.Path
  | Stdio.Stdio
  | Terminal.Terminal
  | ChildProcessSpawner.ChildProcessSpawner
  | HttpClient.HttpClient
> = Layer.mergeAll(BunServices.layer, FetchHttpClient.layer)
