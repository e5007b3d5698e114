// Trace files used by the trace tests: one as the original lait writes it (no span ids, chrono's
// nanosecond timestamps), one as this project writes it (a span tree).

/** The seed's `trace show` example as upstream JSONL, plus a compact event and a second chat. */
export const UPSTREAM_TRACE = [
  "{\"seq\":0,\"operation\":\"chat\",\"label\":\"summarize\",\"start\":\"2026-05-01T14:03:11.204123456Z\",\"end\":\"2026-05-01T14:03:11.246987Z\",\"duration_ms\":42,\"attributes\":{\"gen_ai.request.model\":\"workflow-model\",\"lait.source\":\"live\",\"gen_ai.usage.input_tokens\":120,\"gen_ai.usage.output_tokens\":48}}",
  "{\"seq\":1,\"operation\":\"execute_tool\",\"label\":\"tool 'tool__ripgrep'\",\"start\":\"2026-05-01T14:03:11.260Z\",\"end\":\"2026-05-01T14:03:11.263Z\",\"duration_ms\":3,\"attributes\":{\"gen_ai.tool.name\":\"tool__ripgrep\",\"gen_ai.tool.arguments\":\"{\\\"pattern\\\":\\\"TODO\\\"}\",\"lait.step.label\":\"summarize\",\"lait.tool.round\":1,\"lait.tool.decision\":\"allowed\"}}",
  "{\"seq\":2,\"operation\":\"compact\",\"label\":\"summarize\",\"start\":\"2026-05-01T14:03:11.270Z\",\"end\":\"2026-05-01T14:03:11.270Z\",\"duration_ms\":0,\"attributes\":{\"lait.compaction.round\":2,\"lait.compaction.messages_before\":9,\"lait.compaction.messages_after\":4}}",
  "{\"seq\":3,\"operation\":\"chat\",\"label\":\"summarize\",\"start\":\"2026-05-01T14:03:11.280Z\",\"end\":\"2026-05-01T14:03:11.338Z\",\"duration_ms\":58,\"attributes\":{\"gen_ai.request.model\":\"workflow-model\",\"lait.source\":\"cache\",\"gen_ai.usage.input_tokens\":30,\"gen_ai.usage.output_tokens\":7,\"weird\":[1,{\"x\":null}],\"ratio\":0.5,\"flag\":true,\"nothing\":null}}",
  ""
].join("\n")

/** A run of this project: invoke_workflow → step plan → (chat, execute_tool, chat), step fail with an error. */
export const TREE_TRACE = [
  "{\"seq\":0,\"operation\":\"chat\",\"label\":\"plan\",\"start\":\"2026-05-01T10:00:00.010Z\",\"end\":\"2026-05-01T10:00:00.050Z\",\"duration_ms\":40,\"attributes\":{\"gen_ai.request.model\":\"m1\",\"lait.source\":\"live\",\"gen_ai.usage.input_tokens\":12,\"gen_ai.usage.output_tokens\":3,\"gen_ai.provider.name\":\"openai\",\"server.address\":\"127.0.0.1\",\"server.port\":8080},\"span_id\":\"00000000000000a1\",\"parent_span_id\":\"00000000000000b1\"}",
  "{\"seq\":1,\"operation\":\"execute_tool\",\"label\":\"tool 'tool__echo'\",\"start\":\"2026-05-01T10:00:00.051Z\",\"end\":\"2026-05-01T10:00:00.060Z\",\"duration_ms\":9,\"attributes\":{\"gen_ai.tool.name\":\"tool__echo\",\"gen_ai.tool.arguments\":\"{}\",\"lait.step.label\":\"plan\",\"lait.tool.round\":1,\"lait.tool.decision\":\"allowed\"},\"span_id\":\"00000000000000a2\",\"parent_span_id\":\"00000000000000b1\"}",
  "{\"seq\":2,\"operation\":\"chat\",\"label\":\"plan\",\"start\":\"2026-05-01T10:00:00.061Z\",\"end\":\"2026-05-01T10:00:00.070Z\",\"duration_ms\":9,\"attributes\":{\"gen_ai.request.model\":\"m1\",\"lait.source\":\"live\",\"gen_ai.provider.name\":\"openai\",\"server.address\":\"127.0.0.1\",\"server.port\":8080,\"error.type\":\"500\"},\"span_id\":\"00000000000000a3\",\"parent_span_id\":\"00000000000000b1\"}",
  "{\"seq\":3,\"operation\":\"step\",\"label\":\"plan\",\"start\":\"2026-05-01T10:00:00.005Z\",\"end\":\"2026-05-01T10:00:00.071Z\",\"duration_ms\":66,\"attributes\":{\"lait.step.kind\":\"prompt\",\"error.type\":\"ModelApiError\"},\"span_id\":\"00000000000000b1\",\"parent_span_id\":\"00000000000000c1\"}",
  "{\"seq\":4,\"operation\":\"step\",\"label\":\"orphan\",\"start\":\"2026-05-01T10:00:00.072Z\",\"end\":\"2026-05-01T10:00:00.073Z\",\"duration_ms\":1,\"attributes\":{\"lait.step.kind\":\"jq\"},\"span_id\":\"00000000000000b2\",\"parent_span_id\":\"ffffffffffffffff\"}",
  "{\"seq\":5,\"operation\":\"invoke_workflow\",\"label\":\"demo\",\"start\":\"2026-05-01T10:00:00Z\",\"end\":\"2026-05-01T10:00:00.080Z\",\"duration_ms\":80,\"attributes\":{\"lait.workflow.path\":\"/w/demo.yml\"},\"span_id\":\"00000000000000c1\",\"parent_span_id\":null}",
  ""
].join("\n")
