package reports

import "time"

// SchemaVersion is the version of the results.json layout this package writes: evidence in
// shared tables (resultsjson.go). ReadResults reads it and SchemaVersionInline.
const SchemaVersion = 2

// SchemaVersionInline is the layout before shared evidence, each result's evidence inline.
const SchemaVersionInline = 1

// Exchange is one line of evidence: a frame sent or received, or a note.
type Exchange struct {
	Seq       int    `json:"seq"`
	AtMs      int64  `json:"atMs"`           // milliseconds since the run started
	Direction string `json:"dir"`            // "send", "recv" or "note"
	Channel   string `json:"channel"`        // e.g. "stdin", "stdout", "stderr", "POST", "POST-SSE", "GET-SSE", "HTTP"
	Meta      string `json:"meta,omitempty"` // e.g. "HTTP 400 application/json", "Mcp-Session-Id: …"
	Body      string `json:"body"`
}

// Result is the outcome of one requirement at one revision over one transport.
type Result struct {
	ID        string `json:"id"`        // requirement ID, e.g. "BATCH-EMPTY"
	Title     string `json:"title"`     // "BATCH-EMPTY [MUST] an empty batch gets one -32600 error with a null id"
	Area      string `json:"area"`      // e.g. "batch"
	Level     string `json:"level"`     // "MUST", "SHOULD", "MAY"
	Version   string `json:"version"`   // "2025-03-26"
	Transport string `json:"transport"` // "stdio", "http", "sse"
	// Scenario is the probe scenario whose recording a client check judged (mcpspec client): a
	// check judging several scenarios has a row for each. "" for server checks.
	Scenario string `json:"scenario,omitempty"`
	// Extension is the identifier of the protocol extension the requirement belongs to
	// (io.modelcontextprotocol/tasks, …); "" for the core protocol.
	Extension string `json:"extension,omitempty"`
	// Side is the party whose rule an observed check judged (mcpspec judge, proxy): "server" or
	// "client". "" for the active checks of run and client, which judge their target alone.
	Side string `json:"side,omitempty"`
	// Mode is ModeObserved for a verdict reached from recorded traffic alone; "" for a check
	// that drove its target.
	Mode           string     `json:"mode,omitempty"`
	Status         Status     `json:"status"`
	SpecURL        string     `json:"specUrl"`
	Message        string     `json:"message"`
	Evidence       []Exchange `json:"evidence"`
	DurationMs     int64      `json:"durationMs"`
	BaselineReason string     `json:"baselineReason,omitempty"` // for expected/stale
	// Intermittent: the baseline entry covering this result says its failure comes and goes.
	Intermittent bool `json:"intermittent,omitempty"`
}

// Tool identifies the program that produced a run.
type Tool struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Target describes the server under test.
type Target struct {
	// Name is what the run was told to call the target (mcpspec run --name); "" when not told.
	Name string `json:"name,omitempty"`
	// Kind is KindClient for a run of `mcpspec client`, KindAuthServer for one of `mcpspec
	// authserver`, KindRecording for `mcpspec judge`, "" for a server.
	Kind        string         `json:"kind,omitempty"`
	Description string         `json:"description"` // e.g. "stdio: npx -y @modelcontextprotocol/server-everything stdio"
	Transports  []string       `json:"transports"`
	ServerInfo  map[string]any `json:"serverInfo,omitempty"` // as the server reported it
}

// ModeObserved is Result.Mode of a verdict judged on a recording (mcpspec judge, proxy).
const ModeObserved = "observed"

// KindRecording is Target.Kind of a run that judged recorded traffic of both sides.
const KindRecording = "recording"

// KindClient is Target.Kind of a run that judged a client (`mcpspec client`).
const KindClient = "client"

// KindAuthServer is Target.Kind of a run that judged an authorization server alone
// (`mcpspec authserver`).
const KindAuthServer = "authserver"

// Run is everything one invocation produced; it is the content of results.json.
type Run struct {
	SchemaVersion int            `json:"schemaVersion"` // SchemaVersion
	Tool          Tool           `json:"tool"`
	Target        Target         `json:"target"`
	StartedAt     time.Time      `json:"startedAt"`
	DurationMs    int64          `json:"durationMs"`
	Revisions     []string       `json:"revisions"`
	Strict        bool           `json:"strict,omitempty"` // warnings count as failures (--strict)
	Summary       map[Status]int `json:"summary"`          // a count for every status, zeros included
	Results       []Result       `json:"results"`
	Errors        []string       `json:"errors,omitempty"` // harness/infrastructure errors outside any check
	// Stats are the harness's own counters (servers spawned, connections opened, time spent in
	// quiet windows, …), for benchmarks; they say nothing about the server's conformance.
	Stats map[string]int64 `json:"stats,omitempty"`
}

// Summarize recomputes Summary from Results, with a count for every status.
func (r *Run) Summarize() {
	r.Summary = countStatuses(r.Results)
}

func countStatuses(results []Result) map[Status]int {
	counts := make(map[Status]int, len(AllStatuses()))
	for _, s := range AllStatuses() {
		counts[s] = 0
	}
	for _, res := range results {
		counts[res.Status]++
	}
	return counts
}

// serverField returns a string field of the server's reported serverInfo,
// or "" when absent or not a string.
func (r *Run) serverField(name string) string {
	v, _ := r.Target.ServerInfo[name].(string)
	return v
}
