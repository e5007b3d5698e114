// The only module that knows which JavaScript runtime we are on: Bun's layer on Bun (the CLI and the
// compiled binary), the Node implementations from @effect/platform-node-shared elsewhere (Deno).
// platform-bun 4.1 happens to build BunServices from those same Node modules, but it is published
// for Bun and may gain Bun-only implementations; choosing here keeps such a change away from Deno.
import * as NodeChildProcessSpawner from "@effect/platform-node-shared/NodeChildProcessSpawner"
import * as NodeFileSystem from "@effect/platform-node-shared/NodeFileSystem"
import * as NodePath from "@effect/platform-node-shared/NodePath"
import * as NodeStdio from "@effect/platform-node-shared/NodeStdio"
// The subpaths, not the barrel (which also loads Bun's HTTP server, Redis and worker modules), and
// not BunServices: that adds BunCrypto, whose module graph (node:crypto and all of effect/crypto)
// adds several milliseconds to every start-up (bench/README.md), and lait uses no Crypto service.
import * as BunChildProcessSpawner from "@effect/platform-bun/BunChildProcessSpawner"
import * as BunFileSystem from "@effect/platform-bun/BunFileSystem"
import * as BunPath from "@effect/platform-bun/BunPath"
import * as BunStdio from "@effect/platform-bun/BunStdio"
import { FileSystem, Layer, Path, Stdio, Terminal } from "effect"
import { FetchHttpClient, HttpClient } from "effect/http"
import { ChildProcessSpawner } from "effect/process"
import { lazyTerminalLayer } from "./lazyTerminal.ts"

type Services =
  | FileSystem.FileSystem
  | Path.Path
  | Stdio.Stdio
  | Terminal.Terminal
  | ChildProcessSpawner.ChildProcessSpawner

const isBun = process.versions.bun !== undefined

// BunServices.layer minus BunCrypto, with a Terminal built on first use (lazyTerminal.ts; BunTerminal
// is NodeTerminal). The annotation keeps the layer's services to what lait provides.
const runtimeServices: Layer.Layer<Services> = isBun
  ? BunChildProcessSpawner.layer.pipe(
    Layer.provideMerge(Layer.mergeAll(BunFileSystem.layer, BunPath.layer, BunStdio.layer, lazyTerminalLayer()))
  )
  : NodeChildProcessSpawner.layer.pipe(
    Layer.provideMerge(Layer.mergeAll(NodeFileSystem.layer, NodePath.layer, NodeStdio.layer, lazyTerminalLayer()))
  )

export const PlatformLayer: Layer.Layer<Services | HttpClient.HttpClient> = Layer.mergeAll(
  runtimeServices,
  FetchHttpClient.layer
)
