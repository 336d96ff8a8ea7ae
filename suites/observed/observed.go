// Package observed judges real traffic after the fact: a recording (harness/recording) of what a
// client and a server sent each other, judged on both sides with every check that observation
// alone can decide. It drives nothing: a requirement the traffic never exercised is na ("not
// exercised"), never a pass. `mcpspec judge` reads recordings into it, and `mcpspec proxy`
// hands it what it relayed; the results are those `mcpspec run` writes, so the same report
// writers turn them into the four reports.
package observed

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcpspec/mcpspec/harness/record"
	"github.com/mcpspec/mcpspec/harness/recording"
	"github.com/mcpspec/mcpspec/harness/schema"
	"github.com/mcpspec/mcpspec/harness/transcript"
	"github.com/mcpspec/mcpspec/reports"
	"github.com/mcpspec/mcpspec/suites/catalog"
	"github.com/mcpspec/mcpspec/suites/check"
	"github.com/mcpspec/mcpspec/suites/finding"
)

// Sides a verdict binds: the party whose rule the check judges.
const (
	Server = recording.FromServer
	Client = recording.FromClient
)

// NotExercised is the reason of every na verdict of a requirement the traffic never exercised.
const NotExercised = "not exercised"

// Options tune a judgement.
type Options struct {
	// Revision judges every conversation at this revision instead of the one its pair
	// negotiated (mcpspec judge --revision).
	Revision string
	// CancelGrace is how long after a cancellation was relayed to the receiver a response to
	// the cancelled request is still taken for one already in flight (default DefaultCancelGrace).
	CancelGrace time.Duration
	// ReplyBound is how long a request may stay unanswered while the conversation goes on
	// before the silence is a violation (default DefaultReplyBound).
	ReplyBound time.Duration
	// Skipped is how many frames the reader left out (recording.Read's bound): a view known to
	// be cut is said so in Info, and the checks that need every frame are untestable.
	Skipped int
	// Validator validates against the revisions' schemas (default: harness/schema's).
	Validator Validator
}

// The defaults of Options' bounds.
const (
	DefaultCancelGrace = 2 * time.Second
	DefaultReplyBound  = 60 * time.Second
)

// Validator validates JSON against a revision's schema definition (harness/schema).
type Validator interface {
	Definition(revision, name string, raw []byte) error
}

// Info is what a judgement learnt of the recording besides its verdicts.
type Info struct {
	Conversations int      // the sessions judged (an HTTP recording may hold several)
	Transports    []string // results transports seen: stdio, http, sse
	Revisions     []string // the revisions judged at, oldest first
	ServerInfo    map[string]any
	ClientInfo    map[string]any
	Frames        int      // records read
	Notes         []string // what limited the view: skipped frames, cut bodies, unknown revision
}

// Judge judges a recording: its conversations (stdio: the one; HTTP: one per session), each at
// the revision its pair negotiated. Results are one per check × side × revision × transport,
// the worst verdict over the conversations, as `mcpspec run` reports them.
func Judge(recs []recording.Record, opts Options) ([]reports.Result, Info) {
	return JudgeConversations(Split(recs), opts)
}

// JudgeConversations judges conversations already told apart (one per session of a transcript).
func JudgeConversations(convs [][]recording.Record, opts Options) ([]reports.Result, Info) {
	if opts.CancelGrace <= 0 {
		opts.CancelGrace = DefaultCancelGrace
	}
	if opts.ReplyBound <= 0 {
		opts.ReplyBound = DefaultReplyBound
	}
	if opts.Validator == nil {
		opts.Validator = sharedValidator
	}
	var info Info
	if opts.Skipped > 0 {
		info.Notes = append(info.Notes, fmt.Sprintf("%d frames past the reader's bound were skipped: the checks that need every frame are untestable", opts.Skipped))
	}
	agg := map[string]*reports.Result{}
	var order []string
	cut := 0
	for i, recs := range convs {
		if len(recs) == 0 {
			continue
		}
		info.Frames += len(recs)
		v := newView(recs, opts)
		if v.Revision == "" {
			info.Notes = append(info.Notes, fmt.Sprintf("conversation %d: no revision negotiated or given (--revision): not judged", i+1))
			continue
		}
		info.Conversations++
		cut += v.truncated
		if info.ServerInfo == nil {
			info.ServerInfo = v.ServerInfo
		}
		if info.ClientInfo == nil {
			info.ClientInfo = v.ClientInfo
		}
		info.Transports = addOnce(info.Transports, v.Transport)
		info.Revisions = addOnce(info.Revisions, v.Revision)
		for _, c := range Checks() {
			if !c.AppliesTo(v.Revision, v.Transport) {
				continue
			}
			f := c.Side.Judge(v)
			if f.Outcome == finding.NotApplicable && f.Message == "" {
				f.Message = NotExercised
			}
			k := c.Side.Whose + "|" + c.ID + "|" + v.Revision + "|" + v.Transport
			prev, seen := agg[k]
			if !seen {
				order = append(order, k)
			}
			r := result(c, v, f)
			if !seen || worse(r.Status, prev.Status) {
				agg[k] = &r
			}
		}
	}
	if cut > 0 {
		info.Notes = append(info.Notes, fmt.Sprintf("%d frames were cut at the recording's body bound and judged as far as they parse", cut))
	}
	sort.Strings(info.Revisions)
	out := make([]reports.Result, 0, len(order))
	for _, k := range order {
		out = append(out, *agg[k])
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.ID != b.ID {
			return a.ID < b.ID
		}
		if a.Side != b.Side {
			return a.Side > b.Side // server first
		}
		if a.Version != b.Version {
			return a.Version < b.Version
		}
		return a.Transport < b.Transport
	})
	return out, info
}

// rank orders statuses by how much they say against the side: the worst verdict of a
// requirement over the conversations is its verdict, and a pass beats "not exercised".
var rank = map[reports.Status]int{reports.NA: 0, reports.Untestable: 1, reports.Pass: 2, reports.Warn: 3, reports.Fail: 4, reports.Error: 5}

func worse(a, b reports.Status) bool { return rank[a] > rank[b] }

func addOnce(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

var sharedValidator = schema.New()

// Check is one observed check: one requirement's rule for one party, judged on a View
// (package check: the fields every kind has).
type Check = check.Check[Observed]

// Observed is what only an observed check has: whose rule it judges, and its Judge.
type Observed struct {
	Whose string // Server or Client: the party whose rule it is
	// ShouldUntil: up to this revision the rule is a SHOULD (the catalogue's "SHOULD (24-11,
	// 25-03) → MUST (25-06, 25-11)").
	ShouldUntil string
	Judge       func(v *View) finding.Finding
}

// Kind makes Observed a check side.
func (Observed) Kind() check.Kind { return check.Observed }

// LevelAt is the check's level at revision: SHOULD up to ShouldUntil.
func (s Observed) LevelAt(level, revision string) string {
	if s.ShouldUntil != "" && revision <= s.ShouldUntil {
		return "SHOULD"
	}
	return level
}

// title begins with the ID, so --focus 'ID' selects the check; the party follows the level.
func title(c *Check) string {
	return fmt.Sprintf("%s [%s] %s: %s", c.ID, c.Level, c.Side.Whose, c.Summary)
}

// result turns a finding into the report row, its evidence the records the message cites.
func result(c *Check, v *View, f finding.Finding) reports.Result {
	e, _ := catalog.Lookup(c.ID)
	level := c.LevelAt(v.Revision)
	r := reports.Result{ID: c.ID, Title: title(c), Area: e.Area, Level: level, Version: v.Revision,
		Transport: v.Transport, Side: c.Side.Whose, Mode: reports.ModeObserved, Status: f.Outcome.Status(level),
		SpecURL: e.SpecURL(v.Revision), Message: f.Message}
	if f.Outcome == finding.Violation && f.Severe {
		r.Status = reports.Fail // a SHOULD check whose evidence breaks a MUST, as in a client run
	}
	if r.Status != reports.Pass && r.Status != reports.NA {
		r.Evidence = v.evidence(f.Message)
	}
	return r
}

// cited finds the "record N" a message names (N a record's Seq).
var cited = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`record (\d+)`) })

// maxEvidence bounds the records one result carries.
const maxEvidence = 12

func (v *View) evidence(msg string) []reports.Exchange {
	var out []reports.Exchange
	for _, m := range cited().FindAllStringSubmatch(msg, -1) {
		seq, _ := strconv.Atoi(m[1])
		r, ok := v.record(seq)
		if !ok || len(out) >= maxEvidence {
			continue
		}
		dir := record.Send // the client's frames are sent, the server's received, as in run's evidence
		if r.From == Server {
			dir = record.Recv
		}
		meta := r.Channel
		if r.Method != "" {
			meta = r.Method + " " + r.Path
		}
		if r.Status != 0 {
			meta = fmt.Sprintf("HTTP %d", r.Status)
		}
		if r.EventID != "" {
			meta += " id: " + r.EventID
		}
		at, _ := elapsed(v.start, r.At)
		out = append(out, reports.Exchange{Seq: r.Seq, AtMs: at.Milliseconds(), Direction: dir,
			Channel: r.Channel, Meta: strings.TrimSpace(meta), Body: transcript.ClipBody(r.Body)})
	}
	return out
}
