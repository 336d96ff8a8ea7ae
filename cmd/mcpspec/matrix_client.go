package main

// Client targets of `mcpspec matrix`: a `client:` entry is run by `mcpspec client` once per
// transport it lists, and its runs are put together as one target whose columns are revision ×
// transport, as a server's are.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcpspec/mcpspec/harness/wire"
	"github.com/mcpspec/mcpspec/reports"
)

// clientTransportNames are the transports a client target may list, in the order they run.
var clientTransportNames = []string{wire.HTTP, wire.Stdio}

// clientTransports are the transports a client target runs over: its list, or Streamable HTTP
// alone (the transport of `mcpspec client` without --stdio).
func (t matrixTarget) clientTransports() []string {
	if len(t.Transports) == 0 {
		return []string{wire.HTTP}
	}
	return t.Transports
}

// checkClient checks a client target: what a server target would take is refused rather than
// ignored, and the `mcpspec client` flags of every run are parsed now, so a bad entry stops the
// matrix with exit 2 before anything runs.
func (t matrixTarget) checkClient(dir string) error {
	switch {
	case t.Client == "":
		return errors.New("transports is for client targets (client: CMD); a server's transports are its stdio, url and sse entries")
	case t.Stdio != "" || t.URL != "" || t.SSE != "" || t.HTTPCmd != "":
		return errors.New("client goes without stdio, url, sse and httpCmd: a client target is launched by mcpspec, which plays the server")
	case t.SlowTool != "" || t.SlowToolArgs != nil:
		return errors.New("slowTool and slowToolArgs are for server targets")
	case t.Transports != nil && len(t.Transports) == 0:
		return errors.New("transports is empty: list http, stdio or both, or leave it out for http")
	}
	seen := map[string]bool{}
	for _, tr := range t.Transports {
		if !slices.Contains(clientTransportNames, tr) {
			return fmt.Errorf("transports: %q is not a client transport (want %s)", tr, strings.Join(clientTransportNames, ", "))
		}
		if seen[tr] {
			return fmt.Errorf("transports: %s listed twice", tr)
		}
		seen[tr] = true
	}
	if err := checkRevisions(t.Revisions); err != nil {
		return err
	}
	if err := checkMatrixArgs(t.Args); err != nil {
		return err
	}
	for _, tr := range t.clientTransports() {
		args, err := t.clientArgs(tr)(&matrixConfig{Revisions: t.Revisions}, dir, os.DevNull, 0)
		if err != nil {
			return err
		}
		if _, err := parseClient(args[1:], io.Discard); err != nil {
			if errors.Is(err, errHelp) {
				err = errors.New("args: --help")
			}
			return fmt.Errorf("as mcpspec client over %s: %s", tr, strings.TrimPrefix(err.Error(), "client: "))
		}
	}
	return nil
}

// clientArgs returns the function giving the `mcpspec client` arguments of the target's run over
// transport, writing its reports into out.
func (t matrixTarget) clientArgs(transport string) func(cfg *matrixConfig, dir, out string, port int) ([]string, error) {
	return func(cfg *matrixConfig, dir, out string, port int) ([]string, error) {
		args := []string{"client", "--out", out, "--no-color", "--name", t.Name}
		var firstErr error
		add := func(flag, v string) {
			if v == "" {
				return
			}
			x, err := expandTarget(v, dir, port)
			if err != nil && firstErr == nil {
				firstErr = err
			}
			args = append(args, flag, x)
		}
		add("--cmd", t.Client)
		if transport == wire.Stdio {
			args = append(args, "--stdio")
		}
		add("--cwd", t.Cwd)
		if t.Baseline != "" {
			add("--baseline", t.Baseline)
			args[len(args)-1] = resolvePath(dir, args[len(args)-1])
		}
		for _, k := range sortedKeys(t.Env) {
			add("--env", k+"="+t.Env[k])
		}
		revs := t.Revisions
		if len(revs) == 0 {
			revs = cfg.Revisions
		}
		if len(revs) > 0 {
			args = append(args, "--versions", strings.Join(revs, ","))
		}
		for _, a := range t.Args {
			x, err := expandTarget(a, dir, port)
			if err != nil && firstErr == nil {
				firstErr = err
			}
			args = append(args, x)
		}
		return args, firstErr
	}
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// runClientTarget runs the client over each of its transports. With one transport its reports are
// the target's, as a server's; with more, each run reports into a directory of its own under the
// target's (OUT/NAME/http, OUT/NAME/stdio, each with its console.log) and the target's reports
// are of the runs put together.
func runClientTarget(ctx context.Context, self string, cfg *matrixConfig, t matrixTarget, dir, out string) targetOutcome {
	transports := t.clientTransports()
	targetOut := filepath.Join(out, t.Name)
	if len(transports) == 1 {
		o := runSubprocess(ctx, self, cfg, t, dir, targetOut, t.Name+"/", "client", t.clientArgs(transports[0]))
		if o.run != nil {
			o.target.Description = o.run.Target.Description // as a merge of its results.json says it
		}
		return o
	}
	mt := reports.MatrixTarget{Name: t.Name, Description: t.describe(), ExitCode: -1}
	if err := os.RemoveAll(targetOut); err != nil {
		mt.Error = fmt.Sprintf("clear %s: %v", targetOut, err)
		return targetOutcome{target: mt}
	}
	var parts []transportRun
	for _, tr := range transports {
		o := runSubprocess(ctx, self, cfg, t, dir, filepath.Join(targetOut, tr), t.Name+"/"+tr+"/", "client", t.clientArgs(tr))
		parts = append(parts, transportRun{transport: tr, outcome: o})
	}
	return combineTransportRuns(mt, parts, targetOut, t.Name+"/")
}

// transportRun is one transport's run of a target.
type transportRun struct {
	transport string
	outcome   targetOutcome
}

// combineTransportRuns puts a target's runs over several transports together as one target, and
// writes the combined reports into targetOut. A transport whose run gave no results is named in
// the target's error, as a server's transport that produced nothing is.
func combineTransportRuns(mt reports.MatrixTarget, parts []transportRun, targetOut, reportPrefix string) targetOutcome {
	var runs []*reports.Run
	var why []string
	for _, p := range parts {
		if p.outcome.run == nil {
			why = append(why, p.transport+": "+p.outcome.target.Error)
			continue
		}
		runs = append(runs, p.outcome.run)
		if e := p.outcome.target.Error; e != "" {
			why = append(why, p.transport+": "+e)
		}
	}
	mt.Error = strings.Join(why, "; ")
	if len(runs) == 0 {
		mt.ExitCode = reports.ExitHarness
		return targetOutcome{target: mt}
	}
	run := combineRuns(mt.Name, runs)
	mt.Description = run.Target.Description
	mt.ExitCode = runExitCode(run)
	if len(runs) < len(parts) {
		mt.ExitCode = reports.ExitHarness
	}
	if err := reports.WriteAll(targetOut, run); err != nil {
		mt.Error = strings.TrimPrefix(mt.Error+"; ", "; ") + fmt.Sprintf("write the combined reports: %v", err)
		return targetOutcome{target: mt, run: run}
	}
	mt.Report = reportPrefix + reports.HTMLFile
	return targetOutcome{target: mt, run: run}
}

// combineRuns is one run made of runs of one target over different transports: their results
// side by side, their harness errors each marked with its transport.
func combineRuns(name string, runs []*reports.Run) *reports.Run {
	first := runs[0]
	out := &reports.Run{SchemaVersion: first.SchemaVersion, Tool: first.Tool, StartedAt: first.StartedAt,
		Revisions: first.Revisions, Target: reports.Target{Name: name, Kind: first.Target.Kind}}
	var descs []string
	for _, r := range runs {
		descs = append(descs, r.Target.Description)
		for _, tr := range r.Target.Transports {
			if !slices.Contains(out.Target.Transports, tr) {
				out.Target.Transports = append(out.Target.Transports, tr)
			}
		}
		if out.Target.ServerInfo == nil {
			out.Target.ServerInfo = r.Target.ServerInfo
		}
		if r.StartedAt.Before(out.StartedAt) {
			out.StartedAt = r.StartedAt
		}
		out.DurationMs += r.DurationMs
		out.Strict = out.Strict || r.Strict
		out.Results = append(out.Results, r.Results...)
		for _, e := range r.Errors {
			out.Errors = append(out.Errors, strings.Join(r.Target.Transports, ", ")+": "+e)
		}
	}
	out.Target.Description = strings.Join(descs, "; ")
	out.Summarize()
	return out
}
