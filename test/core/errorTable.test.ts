// Every error class in `exitCodeByTag`, and every reason the table names, with the one line the user
// reads, its exit code and the class a trace reports it as (`error.type`). The texts are the ones lait
// printed before the domain classes existed; a class added to the table without a row here fails.
import { describe, expect, test } from "bun:test"
import { ChatError } from "../../src/chat/chatErrors.ts"
import { CommandError } from "../../src/cli/commandErrors.ts"
import { CheckpointError } from "../../src/workflow/checkpointErrors.ts"
import { ConfigError } from "../../src/config/configErrors.ts"
import {
  type AnyLaitError,
  errorClassOf,
  errorLine,
  exitCodeByTag,
  exitCodeOf,
  InterruptedError,
  LaitError,
  ModelApiError,
  OutputError,
  renderChain,
  UsageError,
  ValidationError,
  withContext
} from "../../src/core/errors.ts"
import { FileError } from "../../src/core/fileErrors.ts"
import { StepError } from "../../src/workflow/stepErrors.ts"
import { SkillError } from "../../src/tools/skillErrors.ts"
import { SubagentError } from "../../src/tools/subagentErrors.ts"
import { McpError, ToolError } from "../../src/tools/toolErrors.ts"
import { ArgumentError } from "../../src/core/usageErrors.ts"
import { EvalError } from "../../src/eval/evalErrors.ts"
import { ServeError } from "../../src/serve/serveErrors.ts"
import { AppError } from "../../src/proxy/appErrors.ts"
import { JqError, SchemaError, TemplateError } from "../../src/lang/languageErrors.ts"
import { WorkflowLoadError } from "../../src/lang/loadErrors.ts"
import { LintError } from "../../src/lint/lintErrors.ts"
import { DoctorError } from "../../src/doctor/doctorErrors.ts"
import {
  BadResponse,
  CassetteInvalid,
  CassetteMissing,
  EntryRefused,
  HttpStatus,
  ModelError,
  ResponsesUnsupported,
  ResponseTooLarge,
  StreamBroken,
  Timeout,
  Unreachable
} from "../../src/model/ModelError.ts"
import { TestError } from "../../src/testing/testErrors.ts"
import { TraceError } from "../../src/trace/TraceError.ts"
import { HistoryError } from "../../src/history/historyErrors.ts"

/** `traceAs` when a trace names it otherwise than its exit code says (a cause decided the code). */
type Row = readonly [error: AnyLaitError, line: string, code: number, traceAs?: string]

const jqNoOutput = new JqError({ reason: { _tag: "NoOutput", what: "condition", filter: ".a" } })
const schemaMismatch = new SchemaError({ reason: { _tag: "Mismatch", detail: "input must be object (got string)" } })
const agentField = new WorkflowLoadError({ reason: { _tag: "AgentField", detail: "'tools' must be a list of names" } })
const staticCheck = new WorkflowLoadError({
  reason: { _tag: "Invalid", detail: "steps[0]: unknown field 'x'", file: "/w/wf.yml", line: 4 }
})

const rows: ReadonlyArray<Row> = [
  [new LaitError({ message: "x", cause: "y" }), "x: y", 1],
  [new OutputError({ message: "failed to write to stdout", errno: "EIO" }), "failed to write to stdout", 1],
  [new UsageError({ message: "bad flag" }), "bad flag", 2],
  [new ValidationError({ message: "bad file" }), "bad file", 3],
  [new ModelApiError({ message: "503" }), "503", 4],
  [new InterruptedError({ message: "stopped" }), "stopped", 5],
  // ModelError: every reason the table names.
  [new ModelError({ reason: new HttpStatus({ baseUrl: "http://h", status: 503 }) }), "the model server at 'http://h' answered HTTP 503", 4],
  [new ModelError({ reason: new Timeout({ baseUrl: "http://h", timeoutMillis: 2000 }) }), "failed to reach 'http://h': timed out after 2 s", 4],
  [
    new ModelError({ reason: new StreamBroken({ baseUrl: "http://h", bytes: 312, detail: "connection reset" }) }),
    "the stream from 'http://h' broke off after 312 bytes: connection reset",
    4
  ],
  [
    new ModelError({ reason: new CassetteMissing({ path: "c/k.json", dir: "c", modelId: "m" }) }),
    "no recorded cassette for this request (model 'm') at 'c/k.json'; run `lait run --record c` first against the " +
    "same workflow/input/vars, or check that they still match this recording",
    1
  ],
  [
    new ModelError({ reason: new CassetteInvalid({ path: "c/k.json", stage: "parse", problem: "not JSON" }) }),
    "failed to parse cassette entry 'c/k.json': not JSON",
    1
  ],
  [
    new ModelError({ reason: new ResponsesUnsupported({ modelId: "gpt", feature: "images" }) }),
    "model 'gpt' uses 'api: responses', which does not support images; use a chat_completions model for this step",
    1
  ],
  [
    new ModelError({ reason: new EntryRefused({ what: "a cassette", problem: "the response contains the API key in use" }) }),
    "refusing to write a cassette: the response contains the API key in use",
    1
  ],
  [
    new ModelError({ reason: new Unreachable({ baseUrl: "http://h", detail: "connection refused" }) }),
    "failed to reach 'http://h': connection refused",
    4
  ],
  [
    new ModelError({ reason: new BadResponse({ baseUrl: "http://h", problem: "no-choices" }) }),
    "the model server at 'http://h' returned no choices",
    4
  ],
  [
    new ModelError({ reason: new ResponseTooLarge({ baseUrl: "http://h", limit: 1024 }) }),
    "response from 'http://h' exceeds 1 KiB",
    4
  ],
  [
    new McpError({ reason: { _tag: "Timeout", server: "s", timeoutMs: 300 } }),
    "timed out after 0.3s while initializing MCP server 's'",
    5
  ],
  [new McpError({ reason: { _tag: "Stopping", server: "s" } }), "MCP server 's' was not started: the run is ending", 5],
  [new McpError({ reason: { _tag: "UnknownServer", server: "s" } }), "unknown MCP server 's'; define it under 'mcp_servers:' in lait.config.yml", 1],
  [new ToolError({ reason: { _tag: "MaxRounds", max: 3 } }), "tool loop exceeded max_tool_rounds (3) without the model producing a final response", 1],
  [new FileError({ reason: { _tag: "IsDirectory", path: "p" } }), "failed to read 'p': is a directory", 1],
  [new FileError({ reason: { _tag: "StdinFailed", detail: "stream did not contain valid UTF-8" } }), "failed to read from stdin: stream did not contain valid UTF-8", 1],
  [new FileError({ reason: { _tag: "ResolveFailed", path: "d", what: "directory", detail: "no such file or directory" } }), "failed to resolve directory 'd': no such file or directory", 1],
  [new FileError({ reason: { _tag: "ResolveFailed", path: "t.yml", what: "test file", detail: "gone" } }), "failed to resolve test file 't.yml': gone", 1],
  [new FileError({ reason: { _tag: "ListFailed", path: "d", detail: "permission denied" } }), "failed to read directory 'd': permission denied", 1],
  [new FileError({ reason: { _tag: "RemoveFailed", path: "/c", detail: "EBUSY" } }), "failed to remove '/c': EBUSY", 1],
  [new FileError({ reason: { _tag: "ListFailed", path: "c", what: "cassette directory", detail: "no such file or directory" } }), "failed to read cassette directory 'c': no such file or directory", 1],
  [new ToolError({ reason: { _tag: "CassetteUnwritable", path: "c/tool-1.json", problem: "too large" } }), "refusing to write tool cassette 'c/tool-1.json': too large", 1],
  [new ArgumentError({ reason: { _tag: "Requires", flag: "--a", needs: "--b" } }), "the argument '--a' requires '--b'", 2],
  [new ArgumentError({ reason: { _tag: "BadHeaderFlag", problem: "expected 'NAME: VALUE'" } }), "invalid --header: expected 'NAME: VALUE'", 2],
  [new ArgumentError({ reason: { _tag: "Missing", expected: "a KIND or --write DIR" } }), "a KIND or --write DIR is required", 2],
  [new TraceError({ reason: { _tag: "ReadFailed", path: "t.jsonl", detail: "gone" } }), "failed to read trace file 't.jsonl': gone", 1],
  // WorkflowLoadError: every reason the table names, and the ones that exit 1.
  [new WorkflowLoadError({ reason: { _tag: "YamlSyntax", file: "/w/wf.yml", detail: "bad at line 2, column 1", line: 2 } }), "bad at line 2, column 1", 3],
  [staticCheck, "steps[0]: unknown field 'x'", 3],
  [
    new WorkflowLoadError({
      reason: { _tag: "SchemaFileUnusable", where: "schemas.s", path: "s.json", problem: "read", file: "/w/wf.yml", cause: "gone" }
    }),
    "schemas.s: failed to read JSON schema file 's.json': gone",
    3
  ],
  [
    new WorkflowLoadError({
      reason: { _tag: "SchemaFileUnusable", where: "schemas.s", path: "s.json", problem: "parse", file: "/w/wf.yml", cause: "bad" }
    }),
    "schemas.s: failed to parse JSON schema file 's.json': bad",
    3
  ],
  [
    new WorkflowLoadError({
      reason: { _tag: "SchemaFileUnusable", where: "schemas.s", path: "s.json", problem: "not-object", file: "/w/wf.yml" }
    }),
    "schemas.s: JSON schema file 's.json' must contain a JSON object",
    3
  ],
  [
    new WorkflowLoadError({ reason: { _tag: "Rejected", path: "wf.yml", cause: staticCheck, shownLine: 4, line: 4 } }),
    "failed to load workflow 'wf.yml' (line 4): steps[0]: unknown field 'x'",
    3
  ],
  [
    new WorkflowLoadError({ reason: { _tag: "LoadFailed", path: "wf.yml", cause: new JqError({ reason: { _tag: "EngineUnavailable", cause: "no wasm" } }) } }),
    "failed to load workflow 'wf.yml': failed to load the jq engine: no wasm",
    1
  ],
  [agentField, "'tools' must be a list of names", 3],
  [new WorkflowLoadError({ reason: { _tag: "AgentFrontmatter", detail: "bad indent" } }), "failed to parse frontmatter: bad indent", 3],
  [
    new WorkflowLoadError({ reason: { _tag: "AgentFileInvalid", path: "a.md", cause: agentField } }),
    "failed to parse agent file 'a.md': 'tools' must be a list of names",
    3
  ],
  [new WorkflowLoadError({ reason: { _tag: "AgentFileRead", path: "a.md", detail: "gone" } }), "failed to read agent file 'a.md': gone", 1],
  // StepError: the timeouts the table names, and the reasons added with the domain errors.
  [new StepError({ reason: { _tag: "StepTimeout", step: "s", seconds: 1, attempt: 1, attempts: 2 } }), "step 's' timed out after 1s (attempt 1/2)", 5],
  [new StepError({ reason: { _tag: "WorkflowTimeout", seconds: 3 } }), "workflow timed out after 3s ('timeout')", 5],
  [new StepError({ reason: { _tag: "InputMismatch", step: "ask", cause: schemaMismatch } }), "step 'ask': input must be object (got string)", 1],
  [
    new StepError({ reason: { _tag: "OutputTooDeep", step: "s", reason: "nested deeper than 1000 levels (lait's limit for JSON it reads)" } }),
    "step 's': the model's answer is nested deeper than 1000 levels (lait's limit for JSON it reads)",
    1
  ],
  [
    new StepError({ reason: { _tag: "DryRunAgent", step: "a", cause: agentField } }),
    "step 'a': failed to load agent file for dry-run: 'tools' must be a list of names",
    3,
    "LaitError"
  ],
  [
    new StepError({ reason: { _tag: "DryRunAgent", step: "a", name: "helper", cause: "gone" } }),
    "step 'a': failed to load agent 'helper' for dry-run: gone",
    1
  ],
  // ConfigError: every reason the table names, and the ones added with the domain errors.
  [new ConfigError({ reason: { _tag: "ParseFailed", path: "c.yml", detail: "bad", line: 1 } }), "failed to parse YAML configuration file 'c.yml': bad", 3],
  [new ConfigError({ reason: { _tag: "Invalid", path: "c.yml", detail: "unknown key" } }), "invalid configuration file 'c.yml': unknown key", 3],
  [new ConfigError({ reason: { _tag: "EmptyModelId", context: "model definition \"x\"" } }), "model_id in model definition \"x\" must not be empty", 3],
  [new ConfigError({ reason: { _tag: "BothApiKeys", context: "model \"x\"" } }), "model \"x\" sets both 'api_key' and 'api_key_cmd'; set exactly one", 3],
  [new ConfigError({ reason: { _tag: "EmptyDefinition", name: "x" } }), "model definition \"x\" must contain at least one entry", 3],
  [
    new ConfigError({ reason: { _tag: "ModelRequired", subject: "step 'a'", places: ["'model:' on the step", "default.model in 'c.yml'"] } }),
    "model is required for step 'a'; set 'model:' on the step or default.model in 'c.yml'",
    1
  ],
  [
    new ConfigError({
      reason: { _tag: "ModelRequired", subject: "subagent 'h'", places: ["a", "b", "c"], why: "--no-config: no config file was read" }
    }),
    "model is required for subagent 'h' (--no-config: no config file was read); set a, b, or c",
    1
  ],
  [new ConfigError({ reason: { _tag: "CompactionTrigger" } }), "default.compaction needs trigger_rounds or trigger_tokens", 1],
  [new ConfigError({ reason: { _tag: "CompactionTrigger", key: "trigger_tokens" } }), "default.compaction.trigger_tokens must be at least 1", 1],
  [
    new ConfigError({ reason: { _tag: "McpTransport", server: "fs", problem: "both" } }),
    "mcp_servers.fs has both 'command' and 'url'; set exactly one (stdio vs. streamable HTTP)",
    1
  ],
  [
    new ConfigError({ reason: { _tag: "McpTransport", server: "fs", problem: "neither" } }),
    "mcp_servers.fs has neither 'command' nor 'url'; set exactly one (stdio vs. streamable HTTP)",
    1
  ],
  [new ConfigError({ reason: { _tag: "McpHeader", server: "fs", key: "X Y" } }), "mcp_servers.fs has an invalid header name or value for 'X Y'", 1],
  [new ConfigError({ reason: { _tag: "ModelHeader", context: "model definition \"gw\"", problem: "'Host' is set by lait itself" } }), "model definition \"gw\" has a header that cannot be sent: 'Host' is set by lait itself", 3],
  // JqError
  [new JqError({ reason: { _tag: "EngineUnavailable", cause: new Error("no wasm") } }), "failed to load the jq engine: no wasm", 1],
  [new JqError({ reason: { _tag: "EngineStopped", cause: new Error("worker exited") } }), "the jq engine stopped unexpectedly: worker exited", 1],
  [new JqError({ reason: { _tag: "Syntax", detail: "failed to parse jq filter \".[\": syntax error" } }), "failed to parse jq filter \".[\": syntax error", 1],
  [new JqError({ reason: { _tag: "Failed", what: "filter", filter: "error(\"x\")", problem: "x" } }), "jq filter \"error(\\\"x\\\")\" failed: x", 1],
  [jqNoOutput, "jq condition \".a\" produced no output; expected exactly one value", 1],
  [
    new JqError({ reason: { _tag: "ManyOutputs", what: "filter", filter: ".[]", count: 2 } }),
    "jq filter \".[]\" produced 2 outputs; expected exactly one value (wrap a stream in '[...]' to collect it into an array)",
    1
  ],
  [
    new JqError({ reason: { _tag: "InFilter", what: "filter", filter: ".", cause: new JqError({ reason: { _tag: "OutputCount", limit: 10 } }) } }),
    "jq filter \".\": jq produced more than 10 outputs, the configured limit",
    1
  ],
  [new JqError({ reason: { _tag: "OutputBytes", limit: 100 } }), "jq rendered output exceeds the configured limit of 100 bytes", 1],
  [new JqError({ reason: { _tag: "OutputNotJson", detail: "Unexpected token" } }), "jq produced output that is not JSON: Unexpected token", 1],
  [new JqError({ reason: { _tag: "TooDeep", subject: "jq input", limit: 512 } }), "jq input exceeds the configured nesting limit of 512", 1],
  [new JqError({ reason: { _tag: "TooLarge", subject: "jq '$steps'", limit: 1000 } }), "jq '$steps' exceeds the configured limit of 1000 bytes", 1],
  // TemplateError, SchemaError
  [new TemplateError({ reason: { _tag: "Parse", source: "{{#if}}", detail: "Parse error" } }), "failed to parse template: \"{{#if}}\": Parse error", 1],
  [new TemplateError({ reason: { _tag: "Render", source: "{{x y}}", detail: "Missing helper: \"x\"" } }), "failed to render template: \"{{x y}}\": Missing helper: \"x\"", 1],
  [new SchemaError({ reason: { _tag: "Invalid", label: "output", detail: "schema is invalid" } }), "output: invalid JSON Schema: schema is invalid", 1],
  [schemaMismatch, "input must be object (got string)", 1],
  [new SchemaError({ reason: { _tag: "FileParse", path: "s.yml", detail: "bad indent" } }), "failed to parse schema file 's.yml': bad indent", 3],
  [new SchemaError({ reason: { _tag: "FileNotObject", label: "input_schema", path: "s.yml" } }), "input_schema: schema file 's.yml' must hold a JSON object", 3],
  // SubagentError
  [new SubagentError({ reason: { _tag: "Unknown", name: "h" } }), "unknown subagent 'h'; define it under 'agents:' in lait.config.yml", 1],
  [new SubagentError({ reason: { _tag: "ResolvePathFailed", path: "h.md", detail: "gone" } }), "failed to resolve agent file path 'h.md': gone", 1],
  [new SubagentError({ reason: { _tag: "Duplicate", name: "h" } }), "duplicate subagent name 'h' in 'subagents:'", 1],
  [new SubagentError({ reason: { _tag: "Cycle", name: "h", path: "/a/h.md" } }), "calling subagent 'h' would create a cycle ('/a/h.md' is already running)", 1],
  [new SubagentError({ reason: { _tag: "TooDeep", name: "h", max: 8 } }), "calling subagent 'h' exceeded the maximum subagent nesting depth of 8", 1],
  [new SubagentError({ reason: { _tag: "ArgumentsNotJson", detail: "JSON Parse error" } }), "failed to parse subagent tool call arguments as JSON: JSON Parse error", 1],
  [new SubagentError({ reason: { _tag: "MissingInput" } }), "subagent tool call is missing the required 'input' field", 1],
  // SkillError
  [new SkillError({ reason: { _tag: "Unknown", name: "tone" } }), "unknown skill 'tone'; define it under 'skills:' in lait.config.yml", 1],
  [new SkillError({ reason: { _tag: "ReadFailed", name: "tone", path: "s/tone.md", detail: "No such file or directory" } }), "failed to read skill file 's/tone.md' (skill 'tone'): No such file or directory", 1],
  [new SkillError({ reason: { _tag: "Invalid", name: "tone", path: "s/tone.md", detail: "skill file must start with a '---' frontmatter delimiter" } }), "failed to parse skill file 's/tone.md' (skill 'tone'): skill file must start with a '---' frontmatter delimiter", 3],
  // TestError
  [new TestError({ reason: { _tag: "TargetUnreadable", path: "t", detail: "no such file or directory" } }), "failed to read test target 't': no such file or directory", 1],
  [new TestError({ reason: { _tag: "TargetSymlink", path: "t" } }), "test target 't' is a symbolic link; pass a regular file or directory", 1],
  [new TestError({ reason: { _tag: "TargetNotFile", path: "t" } }), "test target 't' is not a regular file or directory", 1],
  [new TestError({ reason: { _tag: "NoFiles", listed: "'tests'" } }), "no test files found in 'tests'", 1],
  [new TestError({ reason: { _tag: "FilterMatchedNone", filter: "x", found: 3 } }), "--filter 'x' matched none of the 3 test file(s) found", 1],
  [new TestError({ reason: { _tag: "ReadFailed", path: "t.yml", detail: "gone" } }), "failed to read test definition 't.yml': gone", 1],
  [new TestError({ reason: { _tag: "ParseFailed", path: "t.yml", detail: "tests: bad", line: 2 } }), "failed to parse test definition 't.yml': tests: bad (line 2)", 3],
  [new TestError({ reason: { _tag: "NoStdin" } }), "lait test never reads answers from stdin", 1],
  [new TestError({ reason: { _tag: "PruneOutside", detail: "'t.yml' replays from '../v', which is '/v', outside the project '/p'", more: 1 } }), "refusing to prune: 't.yml' replays from '../v', which is '/v', outside the project '/p' (and 1 more replay directory outside it); pass --allow-outside to prune there too; nothing was deleted", 2],
  [new TestError({ reason: { _tag: "WorkdirUnusable", path: "w", detail: "no such file or directory" } }), "failed to use workdir 'w': no such file or directory", 1],
  [new TestError({ reason: { _tag: "WorkdirNotDirectory", path: "w" } }), "workdir 'w' is not a directory", 1],
  [new TestError({ reason: { _tag: "TempWorkdirFailed", detail: "no space left on device" } }), "failed to create a temporary working directory: no space left on device", 1],
  [new TestError({ reason: { _tag: "FixtureCopyFailed", path: "f", detail: "no such file or directory" } }), "failed to copy fixture 'f': no such file or directory", 1],
  [new TestError({ reason: { _tag: "FixtureClash", earlier: "a/x", fixture: "b/x", name: "x" } }), "fixtures 'a/x' and 'b/x' would both be copied to 'x'", 1],
  [new TestError({ reason: { _tag: "PruneRefused", failing: 1, total: 2 } }), "refusing to prune: 1 of 2 test file(s) did not pass in replay, so which cassettes they use is unknown; nothing was deleted", 1],
  [new TestError({ reason: { _tag: "SuiteFailed", failed: 1, errors: 0, total: 2 } }), "1 of 2 test file(s) failed", 1],
  [new TestError({ reason: { _tag: "SuiteFailed", failed: 0, errors: 2, total: 3 } }), "2 of 3 test file(s) could not run", 1],
  [new TestError({ reason: { _tag: "SuiteFailed", failed: 1, errors: 1, total: 3 } }), "1 of 3 test file(s) failed and 1 could not run", 1],
  // EvalError
  [new EvalError({ reason: { _tag: "CasesFileExtension", path: "c.txt", extension: ".txt", expected: ".jsonl, .csv" } }), "cases file 'c.txt': unknown extension '.txt'; expected one of: .jsonl, .csv", 3],
  [new EvalError({ reason: { _tag: "CasesFileInvalid", path: "c.jsonl", detail: "not JSON", line: 3 } }), "c.jsonl:3: not JSON", 3],
  [new EvalError({ reason: { _tag: "CasesFileInvalid", path: "c.yml", detail: "case 2: duplicate case name 'a'" } }), "c.yml: case 2: duplicate case name 'a'", 3],
  [new EvalError({ reason: { _tag: "CasesFileUnreadable", path: "c.csv", detail: "permission denied" } }), "failed to read cases file 'c.csv': permission denied", 1],
  [new EvalError({ reason: { _tag: "ReportWriteFailed", path: "r.html", detail: "is a directory" } }), "failed to write the report to 'r.html': is a directory", 1],
  [new EvalError({ reason: { _tag: "ReadFailed", path: "e.yml", detail: "gone" } }), "failed to read eval definition 'e.yml': gone", 1],
  [new EvalError({ reason: { _tag: "ParseFailed", path: "e.yml", detail: "cases: bad" } }), "failed to parse eval definition 'e.yml': cases: bad", 3],
  [new EvalError({ reason: { _tag: "PromptSyntax", file: "e.yml", detail: "failed to parse template: \"{{\": x" } }), "target.prompt: failed to parse template: \"{{\": x", 3],
  [new EvalError({ reason: { _tag: "JudgeNoModel" } }), "llm_judge requires a `model:` (no default model is available in this eval context)", 1],
  [new EvalError({ reason: { _tag: "JudgeNotJson", quoted: "\"nope\"", detail: "expected a score" } }), "failed to parse llm_judge response as JSON: \"nope\": expected a score", 1],
  [
    new EvalError({ reason: { _tag: "BudgetReached", budgetUsd: 0.5, spentUsd: 0.51234, started: 3, total: 5 } }),
    "stopped at the --max-cost budget of $0.5000: $0.5123 spent on 3 of 5 run(s); 2 run(s) not started",
    1
  ],
  [new EvalError({ reason: { _tag: "CasesFailed" } }), "one or more eval cases did not fully pass", 1],
  [new EvalError({ reason: { _tag: "CasesFailed", minRate: 0.8 } }), "one or more eval cases did not pass (a flaky case needs a pass rate of at least 0.8)", 1],
  // Baselines, merges and runs that could not run (issue 21)
  [new EvalError({ reason: { _tag: "BaselineReadFailed", path: "b.json", detail: "no such file" } }), "failed to read baseline 'b.json': no such file", 1],
  [new EvalError({ reason: { _tag: "BaselineInvalid", path: "b.json", detail: "cases[0]: expected {case}" } }), "invalid baseline 'b.json': cases[0]: expected {case}", 3],
  [new EvalError({ reason: { _tag: "BaselineWriteFailed", path: "b.json", detail: "is a directory" } }), "failed to write baseline 'b.json': is a directory", 1],
  [new EvalError({ reason: { _tag: "Regressed", count: 2, file: "b.json", significance: 0.05 } }), "2 eval case(s) regressed against the baseline 'b.json' (Fisher's exact test, p < 0.05)", 1],
  [new EvalError({ reason: { _tag: "RunsCouldNotRun", runs: 3 } }), "3 run(s) could not run (server or setup errors; see the report)", 4],
  [new EvalError({ reason: { _tag: "ReportReadFailed", path: "s1.json", detail: "gone" } }), "failed to read eval report 's1.json': gone", 1],
  [new EvalError({ reason: { _tag: "ReportInvalid", path: "s1.json", detail: "case entry 1: expected 'case' and 'input'" } }), "invalid eval report 's1.json': case entry 1: expected 'case' and 'input'", 3],
  [new EvalError({ reason: { _tag: "MergeRefused", detail: "cannot merge: case 3 is in both 'a' and 'b' (overlapping shards?)" } }), "cannot merge: case 3 is in both 'a' and 'b' (overlapping shards?)", 1],
  // DoctorError
  [new DoctorError({ reason: { _tag: "ChecksFailed", failed: 2, total: 7 } }), "2 of 7 checks failed", 1],
  [new DoctorError({ reason: { _tag: "ListFailed", failed: 1, total: 1 } }), "1 of 1 endpoint could not be listed", 4],
  // LintError, CommandError
  [new LintError({ reason: { _tag: "Findings", summary: "1 of 1 file(s) had errors" } }), "1 of 1 file(s) had errors", 3],
  [
    new LintError({ reason: { _tag: "Aborted", error: new FileError({ reason: { _tag: "ListFailed", path: "d", detail: "permission denied" } }) } }),
    "failed to read directory 'd': permission denied",
    3
  ],
  [
    new CommandError({ reason: { _tag: "PromptRequired" } }),
    "a PROMPT is required; provide one or pipe input via stdin (a workflow that declares 'inputs:' may be run without one)",
    1
  ],
  [new CommandError({ reason: { _tag: "InputRequired" } }), "an INPUT is required; provide one or pipe input via stdin", 1],
  [new CommandError({ reason: { _tag: "ResponseWriteFailed", path: "o.txt", detail: "permission denied" } }), "failed to write the response to 'o.txt': permission denied", 1],
  [
    new CommandError({ reason: { _tag: "InitExists", path: "lait.config.yml" } }),
    "'lait.config.yml' already exists; refusing to overwrite it (move it aside or pass another PATH)",
    1
  ],
  [
    new CommandError({ reason: { _tag: "CacheSymlink", path: "/p/.lait" } }),
    "refusing to clear the cache: '/p/.lait' is a symbolic link, and nothing is deleted through one",
    1
  ],
  // CheckpointError (lait run --checkpoint/--resume, lait runs)
  [
    new CheckpointError({ reason: { _tag: "InvalidRunId", runId: "../x" } }),
    "invalid run id '../x'; run ids may only contain letters, digits, '_', and '-'",
    1
  ],
  [new CheckpointError({ reason: { _tag: "NotFound", runId: "r1" } }), "no such checkpointed run 'r1'", 1],
  [
    new CheckpointError({ reason: { _tag: "Unreadable", path: ".lait/runs/r1.json", detail: "missing field `run_id`" } }),
    "failed to parse checkpoint file '.lait/runs/r1.json': missing field `run_id`",
    1
  ],
  [
    new CheckpointError({ reason: { _tag: "OldFormat", path: ".lait/runs/r1.json" } }),
    "checkpoint file '.lait/runs/r1.json' was written by an older version of lait and cannot be resumed; start a fresh run",
    1
  ],
  [
    new CheckpointError({ reason: { _tag: "WorkflowMismatch", runId: "r1", recorded: "a.yml", given: "b.yml" } }),
    "run 'r1' was checkpointed against workflow 'a.yml', not 'b.yml'; pass the same FILE to resume it",
    1
  ],
  [new CheckpointError({ reason: { _tag: "AlreadyCompleted", runId: "r1" } }), "run 'r1' already completed; nothing to resume", 1],
  [
    new CheckpointError({ reason: { _tag: "TooFewSteps", runId: "r1", completed: 2, recorded: 3, current: 1 } }),
    "run 'r1' was checkpointed after completing 2 of 3 top-level step(s), but the current workflow only has 1; " +
    "resuming would replay recorded state into a step list that no longer has that many steps. Start a fresh run instead.",
    1
  ],
  [
    new CheckpointError({ reason: { _tag: "StepsChanged", runId: "r1" } }),
    "run 'r1' was checkpointed against a different sequence of top-level steps than the current workflow (one of the " +
    "already-completed steps changed); resuming would replay recorded state into the wrong steps. Start a fresh run instead.",
    1
  ],
  [
    new CheckpointError({ reason: { _tag: "SaveFailed", path: ".lait/runs/r1.json", detail: "permission denied" } }),
    "failed to save checkpoint to '.lait/runs/r1.json': permission denied",
    1
  ],
  [new CheckpointError({ reason: { _tag: "Symlink", path: ".lait/runs/r1.json" } }), "refusing to follow symbolic link '.lait/runs/r1.json'", 1],
  [
    new CheckpointError({ reason: { _tag: "IdMismatch", path: ".lait/runs/a.json", runId: "a", recorded: "../b" } }),
    "checkpoint file '.lait/runs/a.json' holds run \"../b\", not 'a'; it cannot be resumed",
    1
  ],
  [
    new CheckpointError({ reason: { _tag: "Locked", runId: "a", pid: 42, lock: ".lait/runs/a.lock" } }),
    "run 'a' is being resumed by another lait (pid 42); wait for it to end, or remove '.lait/runs/a.lock' if no lait is running",
    1
  ],
  // AppError
  [
    new AppError({ reason: { _tag: "ExecFailed", target: "node app.mjs", cause: new Error("exit status: 2") } }),
    "exec target 'node app.mjs' failed: exit status: 2",
    1
  ],
  [new AppError({ reason: { _tag: "HttpFailed", target: "http://h/x", detail: "HTTP 500" } }), "http target 'http://h/x' failed: HTTP 500", 1],
  [new AppError({ reason: { _tag: "TimedOut", target: "node app.mjs", seconds: 5 } }), "target 'node app.mjs' did not finish within 5 s", 1],
  [
    new AppError({ reason: { _tag: "ListenFailed", address: "127.0.0.1:80", detail: "permission denied" } }),
    "failed to listen on 127.0.0.1:80: permission denied",
    1
  ],
  // ServeError
  [new ServeError({ reason: { _tag: "McpRequired" } }), "'lait serve' currently only supports '--mcp'; see docs/serve.md", 2],
  [
    new ServeError({ reason: { _tag: "ListenFailed", address: "127.0.0.1:80", detail: "permission denied" } }),
    "failed to listen on 127.0.0.1:80: permission denied",
    1
  ],
  [
    new ServeError({ reason: { _tag: "ArgumentsInvalid", what: "'inputs'", detail: "got [1]" } }),
    "workflow tool call 'inputs' must be a JSON object: got [1]",
    1
  ],
  [new ServeError({ reason: { _tag: "MissingInput" } }), "workflow tool call is missing the required 'input' field", 1],
  [
    new ServeError({ reason: { _tag: "TokenRequired", address: "0.0.0.0:8765" } }),
    "--http 0.0.0.0:8765 is not a loopback address, and anyone who can reach it could run the served tools: " +
    "set a token with --token TOKEN or LAIT_SERVE_TOKEN (see docs/serve.md)",
    2
  ],
  [
    new ServeError({ reason: { _tag: "TokenInvalid", source: "LAIT_SERVE_TOKEN" } }),
    "the token of LAIT_SERVE_TOKEN must be one word of printable characters (no spaces)",
    2
  ],
  // HistoryError
  [
    new HistoryError({ reason: { _tag: "NoHome" } }),
    "failed to determine the home directory (HOME/USERPROFILE is not set) to locate the history file",
    1
  ],
  [
    new HistoryError({ reason: { _tag: "BadSince", value: "yesterday" } }),
    "invalid --since 'yesterday'; expected a date (2026-09-01), an RFC 3339 timestamp, or a duration like 30m/12h/7d/2w",
    2
  ],
  [new HistoryError({ reason: { _tag: "IndexZero" } }), "history index must be at least 1", 2],
  [new HistoryError({ reason: { _tag: "NotFound", index: 3 } }), "no history entry numbered 3", 1],
  [new HistoryError({ reason: { _tag: "ReadFailed", path: "/h.jsonl", detail: "permission denied" } }), "failed to read '/h.jsonl': permission denied", 1],
  [new HistoryError({ reason: { _tag: "WriteFailed", path: "/h.jsonl", detail: "no space left on device" } }), "failed to write to '/h.jsonl': no space left on device", 1],
  // ChatError: one-shot chat, sessions, named prompts, compare
  [new ChatError({ reason: { _tag: "ModelRequired" } }), "model is required; provide --model, set LLM_MODEL, or specify default.model in lait.config.yml", 1],
  [new ChatError({ reason: { _tag: "PromptModelRequired", name: "t" } }), "model is required for prompt 't'; set 'prompts.t.model' or default.model in lait.config.yml", 1],
  [new ChatError({ reason: { _tag: "PromptRequired", command: "chat" } }), "a PROMPT is required; provide one, pipe input via stdin, or use `lait run <FILE> <PROMPT>`", 1],
  [new ChatError({ reason: { _tag: "SessionName", name: "../x" } }), "invalid session name '../x'; session names may only contain letters, digits, '_', and '-'", 1],
  [new ChatError({ reason: { _tag: "SessionMissing", name: "x" } }), "no such session 'x'", 1],
  [new ChatError({ reason: { _tag: "SessionCorrupt", path: "s.jsonl", line: 2 } }), "invalid session file 's.jsonl' (line 2): expected {\"role\",\"content\"}", 1],
  [new ChatError({ reason: { _tag: "SessionIo", path: "s.jsonl", detail: "disk full", action: "write" } }), "failed to write session file 's.jsonl': disk full", 1],
  [new ChatError({ reason: { _tag: "SessionFull", name: "s", path: "s.jsonl", limit: 16 } }), "session file 's.jsonl' would exceed the read limit of 16 bytes, so --session could not read it back; continue in a new session, or delete this one with `lait sessions delete s`", 1],
  [new ChatError({ reason: { _tag: "UnknownPrompt", name: "x", available: ["a", "b"] } }), "no prompt named 'x' is configured; configured prompts: a, b", 1],
  [new ChatError({ reason: { _tag: "BadVar", arg: "k", problem: "no-equals" } }), "invalid '--var k'; expected KEY=VALUE", 1],
  [new ChatError({ reason: { _tag: "SystemFile", path: "s.txt", detail: "not found" } }), "failed to read system prompt file 's.txt': not found", 1],
  [new ChatError({ reason: { _tag: "JsonSchemaRead", path: "s.json", detail: "not found" } }), "failed to read JSON schema file 's.json': not found", 1],
  [new ChatError({ reason: { _tag: "JsonSchemaFile", path: "s.json", detail: "bad" } }), "failed to parse JSON schema file 's.json': bad", 1],
  [new ChatError({ reason: { _tag: "AnswerNotJson", schema: "s.json", detail: "Ada is 36." } }), "the model's answer is not valid JSON for the JSON schema 's.json': Ada is 36.", 1],
  [new ChatError({ reason: { _tag: "AnswerMismatch", schema: "s.json", detail: "answer is missing required field(s): age" } }), "the model's answer does not match the JSON schema 's.json': answer is missing required field(s): age", 1],
  [new ChatError({ reason: { _tag: "CompareTooFew" } }), "`lait compare` requires at least two `--model` values", 1],
  [new ChatError({ reason: { _tag: "CompareFailed", failed: 1, total: 2 } }), "1 of 2 model(s) failed", 1]
]

const reasonOf = (error: AnyLaitError): string | undefined =>
  "reason" in error ? (error.reason as { readonly _tag: string })._tag : undefined

/** The general class each exit code reports as, as traces have always named them. */
const traceClass: Record<number, string> = {
  1: "LaitError",
  2: "UsageError",
  3: "ValidationError",
  4: "ModelApiError",
  5: "InterruptedError"
}

describe("every error class and reason", () => {
  for (const [error, line, code, traceAs] of rows) {
    test(`${error._tag}${reasonOf(error) === undefined ? "" : `.${reasonOf(error)}`}: ${line}`, () => {
      expect(renderChain(error)).toBe(line)
      expect(exitCodeOf(error) as number).toBe(code)
      expect(errorClassOf(error)).toBe(traceAs ?? (error._tag === "OutputError" ? "OutputError" : traceClass[code]!))
      // Context keeps the exit code, as it did for the general classes (an InterruptedError's own
      // interruption counts only at the top).
      const wrapped = withContext("outer")(error)
      expect({ code: exitCodeOf(wrapped) as number, line: renderChain(wrapped) }).toEqual({
        code: error._tag === "InterruptedError" ? 1 : code,
        line: `outer: ${line}`
      })
    })
  }

  test("every class in exitCodeByTag, and every reason it names, has a row", () => {
    const covered = new Set(rows.map(([error]) => `${error._tag}.${reasonOf(error) ?? ""}`))
    const classes = new Set(rows.map(([error]) => error._tag))
    const missing: Array<string> = []
    for (const [tag, entry] of Object.entries(exitCodeByTag)) {
      if (!classes.has(tag as AnyLaitError["_tag"])) missing.push(tag)
      if (typeof entry === "object") {
        for (const reason of Object.keys(entry)) if (!covered.has(`${tag}.${reason}`)) missing.push(`${tag}.${reason}`)
      }
    }
    expect(missing).toEqual([])
  })

  test("a domain error points at the file and line it is about, or at nothing (not where it was built)", () => {
    expect(errorLine(staticCheck)).toBe(4)
    expect(errorLine(new TestError({ reason: { _tag: "ParseFailed", path: "t.yml", detail: "x", line: 7 } }))).toBe(7)
    expect(errorLine(new TestError({ reason: { _tag: "ParseFailed", path: "t.yml", detail: "x" } }))).toBeUndefined()
    expect(errorLine(new EvalError({ reason: { _tag: "ParseFailed", path: "e.yml", detail: "x" } }))).toBeUndefined()
    expect(new EvalError({ reason: { _tag: "PromptSyntax", file: "e.yml", detail: "x" } }).file).toBe("e.yml")
  })
})
