// What `lait lint` must report for each file of test/fixtures/lint/ (one file per check), run from
// that directory with `--config lait.config.yml`. Shared by the in-process corpus test and the e2e
// test, which both render the three formats from this table independently of src/lint/report.ts.
import * as path from "node:path"

export const CORPUS = path.resolve(import.meta.dir, "../fixtures/lint")

export type Severity = "error" | "warning"

export interface ExpectedFinding {
  readonly severity: Severity
  readonly line: number | null
  readonly message: string
}

export interface CorpusEntry {
  /** Relative to CORPUS, as passed to `lait lint`. */
  readonly file: string
  /** The check the file demonstrates. */
  readonly check: string
  readonly findings: ReadonlyArray<ExpectedFinding>
}

const error = (line: number | null, message: string): ExpectedFinding => ({ severity: "error", line, message })
const warning = (line: number | null, message: string): ExpectedFinding => ({ severity: "warning", line, message })

const WRITE_TEMPLATE = (context: string, template: string) =>
  `${context} fills its 'write' path from the template '${template}': a value holding '/' or '..' is refused when ` +
  "the step runs, so keep templates to the file name and write the directories out"

const UNSET_INPUT = (use: string) =>
  `${use}, but a run on 'inputs:' alone (no PROMPT) has no input there and fails; ` +
  "use it inside {{#if input}}...{{/if}}, or declare 'input_schema:' if the workflow needs a PROMPT"

const STEP_KINDS = "prompt, agent, run, workflow, jq, ask, write, group, switch, parallel, for_each, while, until, stop, break"
const JQ_STEP_KEYS = "jq, id, when, input, output, retry, timeout, on_error"
const AGENT_KEYS =
  "name, description, model, reasoning_effort, temperature, top_p, max_tokens, input_schema, output_schema, schema_name, mcp, max_tool_rounds, skills, subagents, tools"
const ASSERTION_TYPES = "equals, contains, jq, llm_judge, tool_called, usage, step_output, regex, icontains, starts_with, contains_any, contains_all, is_json, json_schema, levenshtein, length, cost, latency, script"

/** With the corpus lait.config.yml active. */
export const CORPUS_ENTRIES: ReadonlyArray<CorpusEntry> = [
  // Workflow files: the loader's validation (its first problem) ---------------------------------
  {
    file: "yaml-syntax.yml",
    check: "YAML syntax error (the parser's line)",
    findings: [
      error(
        5,
        "failed to load workflow 'yaml-syntax.yml': Flow sequence in block collection must be sufficiently indented and end with a ] at line 5, column 3"
      )
    ]
  },
  {
    file: "load-error.yml",
    check: "static check of the loader",
    findings: [
      error(
        5,
        `failed to load workflow 'load-error.yml' (line 5): steps[0] (id 'first'): unknown field 'retries'; 'jq' steps accept: ${JQ_STEP_KEYS}`
      )
    ]
  },
  {
    file: "unknown-kind.yml",
    check: "a misspelt kind key: named, with the nearest kind",
    findings: [
      error(
        4,
        "failed to load workflow 'unknown-kind.yml' (line 4): steps[0] (id 'greet'): unknown step kind 'promt' " +
          `(did you mean 'prompt'?); a step needs exactly one of: ${STEP_KINDS}`
      )
    ]
  },
  {
    file: "schema-unknown-type.yml",
    check: "unknown JSON Schema type name (an error: Ajv does not compile it)",
    findings: [
      error(
        3,
        "failed to load workflow 'schema-unknown-type.yml' (line 3): inputs.count: invalid JSON Schema: type must be JSONType or JSONType[]: integr"
      )
    ]
  },
  {
    file: "schema-file-missing.yml",
    check: "unloadable schema file",
    findings: [
      error(
        5,
        `failed to load workflow 'schema-file-missing.yml' (line 5): steps[0]: 'output_schema': failed to read JSON schema file '${CORPUS}/schemas/missing.json': no such file or directory`
      )
    ]
  },
  // Workflow files: lint checks ------------------------------------------------------------------
  {
    file: "undeclared-input-template.yml",
    check: "undeclared inputs.x in a template",
    findings: [error(10, "step 'translate' references input 'tone', which is not declared in 'inputs:'")]
  },
  {
    file: "unset-input.yml",
    check: "inputs: and a template of the first steps printing input unguarded",
    findings: [
      warning(10, UNSET_INPUT("step 'translate': 'prompt' uses 'input.subject'")),
      warning(12, UNSET_INPUT("step 'announce': 'run' uses 'input'"))
    ]
  },
  {
    file: "undeclared-input-jq.yml",
    check: "undeclared $inputs.x in jq",
    findings: [error(6, "step 2 (jq)'s 'jq' references input 'target-lang', which is not declared in 'inputs:'")]
  },
  {
    file: "unknown-step-template.yml",
    check: "unknown steps.x in a template",
    findings: [
      warning(5, "step 2 (write) references step 'drafts', but no step in this file has that 'id'"),
      warning(5, WRITE_TEMPLATE("step 2 (write)", "{{steps.drafts}}"))
    ]
  },
  {
    file: "shell-template.yml",
    check: "a template inside a sh -c script, not quoted with shq",
    findings: [
      warning(
        7,
        "step 'greet' puts the template '{{ steps.name }}' inside a 'sh -c' script, where a value holding a quote, ';' or " +
          `'$(…)' runs as shell code; quote it as '{{ shq steps.name }}' (or pass it after the script and use "$1")`
      )
    ]
  },
  {
    file: "write-template.yml",
    check: "a templated write: path",
    findings: [warning(5, WRITE_TEMPLATE("step 2 (write)", "{{ steps.name }}"))]
  },
  {
    file: "unknown-step-jq.yml",
    check: "unknown $steps.x in jq",
    findings: [warning(5, "the workflow's 'output' references step 'review', but no step in this file has that 'id'")]
  },
  {
    file: "unused-schema.yml",
    check: "unused schemas: entry",
    findings: [warning(6, "schema 'country' is defined in 'schemas:' but never referenced")]
  },
  {
    file: "unused-agent.yml",
    check: "unused agents: entry",
    findings: [warning(5, "agent 'editor' is defined in 'agents:' but never used by an 'agent:' step")]
  },
  {
    file: "mcp-no-tools.yml",
    check: "MCP server with allowed_tools: []",
    findings: [
      warning(
        6,
        "step 1 (prompt) references MCP server 'locked', whose 'allowed_tools' in lait.config.yml is an empty list; every tool call to it will be rejected at runtime"
      )
    ]
  },
  {
    file: "unknown-tool.yml",
    check: "unregistered tool name",
    findings: [
      error(4, "step 1 (prompt) references unknown tool 'char_count'; define it under 'tools:' in lait.config.yml")
    ]
  },
  {
    file: "unknown-mcp.yml",
    check: "unregistered MCP server name",
    findings: [
      error(
        3,
        "the workflow's 'default' references unknown MCP server 'github'; define it under 'mcp_servers:' in lait.config.yml"
      )
    ]
  },
  {
    file: "unknown-skill.yml",
    check: "unregistered skill name",
    findings: [error(5, "agent 'writer' references unknown skill 'tone'; define it under 'skills:' in lait.config.yml")]
  },
  {
    file: "unknown-subagent.yml",
    check: "unregistered subagent name",
    findings: [
      error(6, "step 1 (prompt) references unknown subagent 'proofreader'; define it under 'agents:' in lait.config.yml")
    ]
  },
  {
    file: "unknown-agent.yml",
    check: "unregistered agent: name",
    findings: [
      error(
        4,
        "step 'review' uses agent 'critic', which is neither defined in this workflow's 'agents:' nor registered under 'agents:' in lait.config.yml (use a path such as './critic.md' for a file)"
      )
    ]
  },
  {
    file: "unknown-workflow.yml",
    check: "unregistered workflow: name",
    findings: [
      error(
        5,
        "step 2 (workflow) runs workflow 'grandchild', which is not registered under 'workflows:' in lait.config.yml (use a path such as './grandchild.yml' for a file)"
      )
    ]
  },
  {
    file: "agent-file-broken.yml",
    check: "unloadable agent file",
    findings: [
      error(
        4,
        "step 'review' uses agent 'agents/broken.md', which failed to load: failed to parse agent file 'agents/broken.md': 'temperature' must be between 0 and 2, got 3"
      )
    ]
  },
  {
    file: "agent-file-missing.yml",
    check: "missing agent file",
    findings: [
      error(
        3,
        "step 1 (agent) uses agent 'agents/absent.md', which failed to load: failed to read 'agents/absent.md': no such file or directory"
      )
    ]
  },
  {
    file: "child-broken.yml",
    check: "unloadable child workflow",
    findings: [
      error(
        4,
        `step 2 (workflow) runs workflow 'children/broken.yml', which failed to load: failed to load workflow 'children/broken.yml' (line 3): steps[0]: unknown field 'colour'; 'jq' steps accept: ${JQ_STEP_KEYS}`
      )
    ]
  },
  {
    file: "child-missing.yml",
    check: "missing child workflow",
    findings: [
      error(3, "step 1 (workflow) runs workflow 'children/absent.yml', which could not be resolved: no such file or directory")
    ]
  },
  {
    file: "child-problems.yml",
    check: "problems of a child, prefixed with in 'workflow: <path>':",
    findings: [
      error(
        5,
        "in 'workflow: children/has-problems.yml': step 'echo''s 'jq' references input 'topic', which is not declared in 'inputs:'"
      )
    ]
  },
  {
    file: "cycle/a.yml",
    check: "workflow: cycle",
    findings: [
      error(
        3,
        "in 'workflow: cycle/b.yml': step 1 (workflow) runs workflow 'cycle/a.yml', which would create a cycle ('cycle/a.yml' is already being linted)"
      )
    ]
  },
  // Agent files -----------------------------------------------------------------------------------
  {
    file: "agents/bad-field.md",
    check: "agent frontmatter: unknown field",
    findings: [
      error(
        4,
        `failed to parse agent file 'agents/bad-field.md': unknown field 'structured_output'; agents accept: ${AGENT_KEYS}`
      )
    ]
  },
  {
    file: "agents/bad-yaml.md",
    check: "agent frontmatter: YAML syntax",
    findings: [
      error(
        4,
        "failed to parse agent file 'agents/bad-yaml.md': failed to parse frontmatter: Flow sequence in block collection must be sufficiently indented and end with a ] at line 3, column 1"
      )
    ]
  },
  {
    file: "agents/broken.md",
    check: "agent frontmatter: value out of range",
    findings: [error(3, "failed to parse agent file 'agents/broken.md': 'temperature' must be between 0 and 2, got 3")]
  },
  {
    file: "agents/bad-template.md",
    check: "agent body: template syntax",
    findings: [
      error(
        4,
        `the agent has an invalid system prompt template: failed to parse template: "The body is a template: {{#if input}}unclosed": Parse error on line 1: Expecting 'OPEN_INVERSE_CHAIN', 'INVERSE', 'OPEN_ENDBLOCK', got 'EOF'`
      )
    ]
  },
  {
    file: "agents/bad-schema.md",
    check: "agent schema file that cannot be read",
    findings: [
      error(
        5,
        "the agent's 'output_schema': failed to read JSON schema file 'schemas/absent.json': no such file or directory"
      )
    ]
  },
  {
    file: "agents/unknown-names.md",
    check: "agent file: unregistered names",
    findings: [
      error(3, "the agent references unknown MCP server 'gitlab'; define it under 'mcp_servers:' in lait.config.yml"),
      error(4, "the agent references unknown subagent 'typist'; define it under 'agents:' in lait.config.yml")
    ]
  },
  // Test files ------------------------------------------------------------------------------------
  {
    file: "tests/bad-shape.test.yml",
    check: "test file shape (the test-file parser)",
    findings: [
      error(
        7,
        `failed to parse test definition 'tests/bad-shape.test.yml': assert[1].type: unknown assertion type 'matches'; expected one of: ${ASSERTION_TYPES} (line 7)`
      )
    ]
  },
  {
    file: "tests/bad-workflow.test.yml",
    check: "test: the workflow does not load",
    findings: [
      error(
        2,
        `'workflow' refers to 'children/broken.yml', which failed to load: failed to load workflow 'children/broken.yml' (line 3): steps[0]: unknown field 'colour'; 'jq' steps accept: ${JQ_STEP_KEYS}`
      )
    ]
  },
  {
    file: "tests/missing-replay.test.yml",
    check: "test: replay directory missing",
    findings: [
      warning(
        4,
        "'replay' directory 'tests/cassettes' does not exist yet; record it with " +
          "`lait test --record-missing tests/missing-replay.test.yml`"
      )
    ]
  },
  {
    file: "tests/bad-input.test.yml",
    check: "test: input against the workflow's input_schema",
    findings: [error(3, "'input': input must be of type string (got object)")]
  },
  {
    file: "tests/bad-inputs.test.yml",
    check: "test: inputs the workflow does not declare",
    findings: [error(6, "'inputs': unknown input 'tone'; the workflow declares: lines")]
  },
  {
    file: "tests/bad-jq.test.yml",
    check: "test: jq assertions that do not compile",
    findings: [
      error(
        7,
        `assert[0].expr: failed to parse jq filter ". >": syntax error, unexpected end of file at <top-level>, line 1, column 3`
      ),
      error(
        10,
        `assert[1].args_jq: failed to parse jq filter ".text | length >": syntax error, unexpected end of file at <top-level>, line 1, column 16`
      )
    ]
  },
  {
    file: "tests/unknown-step.test.yml",
    check: "test: step_output id the workflow lacks",
    findings: [error(7, "assert[0].id: the workflow 'tests/target.yml' has no step with the id 'summry'")]
  },
  {
    file: "tests/llm-judge.test.yml",
    check: "test: llm_judge (always fails under lait test)",
    findings: [
      error(
        6,
        "assert[0]: llm_judge assertions always fail under 'lait test' (it has no judge model); move this check to an eval file"
      )
    ]
  },
  {
    file: "tests/min-max.test.yml",
    check: "test: tool_called min > max",
    findings: [error(9, "assert[0]: 'min' (3) is greater than 'max' (1); the assertion can never pass")]
  },
  { file: "tests/max-only.test.yml", check: "test: tool_called with only max (min 0) is valid", findings: [] },
  // Eval files ------------------------------------------------------------------------------------
  {
    file: "evals/bad-shape.eval.yml",
    check: "eval file shape (the eval-file parser)",
    findings: [
      error(
        6,
        "failed to parse eval definition 'evals/bad-shape.eval.yml': cases[0]: missing required key 'input' (line 6)"
      )
    ]
  },
  {
    file: "evals/bad-workflow.eval.yml",
    check: "eval: the target workflow does not load",
    findings: [
      error(
        3,
        "'target.workflow' refers to 'children/absent.yml', which failed to load: failed to read 'children/absent.yml': no such file or directory"
      )
    ]
  },
  {
    file: "evals/bad-target-inputs.eval.yml",
    check: "eval: target.inputs the workflow does not declare",
    findings: [error(5, "'target.inputs': unknown input 'length'; the workflow declares: lines")]
  },
  {
    file: "evals/bad-case-input.eval.yml",
    check: "eval: a case input the input_schema rejects",
    findings: [
      error(
        6,
        `cases[1].input: the initial input must be JSON matching the workflow's 'input_schema': JSON Parse error: Unexpected identifier "not"`
      )
    ]
  },
  {
    file: "evals/bad-prompt.eval.yml",
    check: "eval: prompt target template syntax",
    findings: [
      error(
        4,
        `target.prompt: failed to parse template: "Summarise: {{input": Parse error on line 1: Expecting 'ID', 'STRING', 'NUMBER', 'BOOLEAN', 'UNDEFINED', 'NULL', 'DATA', got 'INVALID'`
      )
    ]
  },
  {
    file: "evals/step-output-prompt.eval.yml",
    check: "eval: step_output with a model target",
    findings: [error(8, "cases[0].assert[0]: step_output needs a workflow target; a model target has no steps")]
  },
  {
    file: "evals/bad-case-inputs.eval.yml",
    check: "eval: a case's inputs the workflow does not declare (targets:)",
    findings: [error(8, "cases[0].inputs: unknown input 'length'; the workflow declares: lines")]
  },
  {
    file: "evals/bad-cases-file.eval.yml",
    check: "eval: a cases file with a bad line",
    findings: [
      error(4, "evals/cases/bad.jsonl:2: unknown key 'inptu'; cases accept: name, input, inputs, vars, assert")
    ]
  },
  {
    file: "evals/empty-cases.eval.yml",
    check: "eval: no cases",
    findings: [warning(5, "'cases' is empty; the eval has nothing to run")]
  },
  // Config files ----------------------------------------------------------------------------------
  {
    file: "configs/bad/lait.config.yml",
    check: "config file: the config loader's checks",
    findings: [
      error(
        4,
        "failed to parse YAML configuration file 'configs/bad/lait.config.yml': default.temprature: unknown key (line 4)"
      )
    ]
  },
  {
    file: "configs/registry/lait.config.yml",
    check: "config file: registry entries naming missing files",
    findings: [
      error(4, "workflows.absent resolves to 'configs/registry/absent.yml', which does not exist"),
      error(7, "agents.ghost resolves to 'configs/registry/ghost.md', which does not exist"),
      error(10, "skills.empty resolves to 'children', a directory without SKILL.md")
    ]
  },
  // Clean files of every kind ---------------------------------------------------------------------
  { file: "ok/workflow.yml", check: "clean workflow", findings: [] },
  { file: "ok/workflow.test.yml", check: "clean test file", findings: [] },
  { file: "ok/workflow.eval.yml", check: "clean eval file", findings: [] },
  { file: "ok/agents/local.md", check: "clean agent file", findings: [] },
  { file: "ok/lait.config.yml", check: "clean config file", findings: [] },
  { file: "tests/ok.test.yml", check: "clean test file", findings: [] },
  { file: "evals/ok.eval.yml", check: "clean eval file", findings: [] }
]

/** With --no-config: names cannot be checked, which is said once per file. */
export const NO_CONFIG_ENTRY: CorpusEntry = {
  file: "names-unchecked.yml",
  check: "names not checked without a config",
  findings: [
    warning(
      4,
      "'mcp'/'skills'/'subagents'/'tools' names were not checked because no lait.config.yml was found (or --no-config was used)"
    )
  ]
}

/** The text format's header for the corpus config's `workflows:` registry. */
export const CORPUS_CONFIG_SECTION = ["lait.config.yml (workflows:):", "  child: OK (children/clean.yml)"]

// ---------------------------------------------------------------------------------------------------
// Expected renderings (written out here, not taken from src/lint/report.ts)

export const expectedText = (entries: ReadonlyArray<CorpusEntry>): ReadonlyArray<string> =>
  entries.flatMap((e) =>
    e.findings.length === 0
      ? [`${e.file}: OK`]
      : [`${e.file}:`, ...e.findings.map((f) => `  ${f.severity}: ${f.message}`)]
  )

export const expectedJson = (entries: ReadonlyArray<CorpusEntry>): string =>
  JSON.stringify(
    entries.flatMap((e) => e.findings.map((f) => ({ file: e.file, line: f.line, severity: f.severity, message: f.message }))),
    null,
    2
  )

const escapeData = (s: string) => s.replaceAll("%", "%25").replaceAll("\r", "%0D").replaceAll("\n", "%0A")

export const expectedGithub = (entries: ReadonlyArray<CorpusEntry>): ReadonlyArray<string> =>
  entries.flatMap((e) =>
    e.findings.map((f) =>
      `::${f.severity} file=${e.file}${f.line === null ? "" : `,line=${f.line}`}::${escapeData(f.message)}`
    )
  )

export const failedCount = (entries: ReadonlyArray<CorpusEntry>): number =>
  entries.filter((e) => e.findings.some((f) => f.severity === "error")).length

export const errorCount = (entries: ReadonlyArray<CorpusEntry>): number =>
  entries.reduce((n, e) => n + e.findings.filter((f) => f.severity === "error").length, 0)

export const findingCount = (entries: ReadonlyArray<CorpusEntry>): number =>
  entries.reduce((n, e) => n + e.findings.length, 0)
