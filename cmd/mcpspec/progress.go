package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/mcpspec/mcpspec/reports"
)

// progressInterval is how often at most the progress line is rewritten: often enough to look
// alive, seldom enough that a fast run does not spend its time redrawing.
const progressInterval = 100 * time.Millisecond

// progress is the console's one line while a run goes on, rewritten in place: checks done of the
// total, and failures so far (as the baseline and --strict will count them). It is only used on
// a terminal; CI logs get nothing per check, only the summary at the end.
type progress struct {
	w      io.Writer
	base   *reports.Baseline
	strict bool

	mu     sync.Mutex
	total  int
	done   int
	failed int
	last   time.Time
	shown  bool
}

// setTotal gives the number of checks planned; nothing is drawn before it is known.
func (p *progress) setTotal(n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.total = n
	p.draw(true)
}

// result counts one recorded result. It is called from the checks' goroutines.
func (p *progress) result(res reports.Result) {
	status := res.Status
	if p.base != nil {
		status = p.base.Apply([]reports.Result{res})[0].Status
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done++
	if status == reports.Fail || status == reports.Error || status == reports.Stale || (p.strict && status == reports.Warn) {
		p.failed++
	}
	p.draw(p.done >= p.total)
}

// draw rewrites the line unless it was drawn less than progressInterval ago (force: draw anyway).
// Called with p.mu held.
func (p *progress) draw(force bool) {
	if p.total == 0 || (!force && time.Since(p.last) < progressInterval) {
		return
	}
	p.last = time.Now()
	p.shown = true
	failed := "no failure"
	switch {
	case p.failed == 1:
		failed = "1 failure"
	case p.failed > 1:
		failed = fmt.Sprintf("%d failures", p.failed)
	}
	// \r returns to the line's start and \x1b[K erases it, so a shorter line leaves no tail.
	fmt.Fprintf(p.w, "\r\x1b[Kmcpspec: %d/%d checks, %s so far", min(p.done, p.total), p.total, failed)
}

// clear erases the line, so the summary starts on a clean one.
func (p *progress) clear() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.shown {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.shown = false
	}
	p.total = 0 // nothing more is drawn
}

// isTerminal reports whether w is a terminal, where a line may be rewritten in place.
func isTerminal(w io.Writer) bool {
	if fw, ok := w.(*fence); ok {
		w = fw.w // the console's fence changes its text, not what it is
	}
	f, ok := w.(*os.File)
	if !ok || os.Getenv("TERM") == "dumb" {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0 && st.Mode()&os.ModeDevice != 0 && f.Name() != os.DevNull
}

// newProgress is the progress line of a run whose console is stdout, or nil: with -v the
// console shows each check instead, and off a terminal (CI logs) nothing per check.
func newProgress(cfg *runConfig, stdout io.Writer) *progress {
	if cfg.verbose || !isTerminal(stdout) {
		return nil
	}
	return &progress{w: stdout, base: cfg.base, strict: cfg.strict}
}
