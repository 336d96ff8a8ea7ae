package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/harness/recording"
	"github.com/mcpspec/mcpspec/reports"
	"github.com/mcpspec/mcpspec/suites/observed"
)

const judgeUsageLine = "mcpspec judge [--out DIR] [--revision R] [--format F] FILE…"

// defaultMaxFrames bounds the frames a judge keeps in memory over all its files: a recording
// of a long session may hold millions. 100000 small frames take about 125 MB and 5 s.
const defaultMaxFrames = 100000

// judgeGCPercent is the garbage collector's goal while judging, unless GOGC says otherwise:
// judging 1M ping pairs (100000 frames kept) peaks at 126 MB with it, 160 MB at the default 100,
// for some 15% more CPU.
const judgeGCPercent = 50

// cmdJudge runs `mcpspec judge FILE…`: the observed checks over recorded traffic, both sides,
// and the four reports as run writes them.
func cmdJudge(args []string, stdout, stderr io.Writer) (int, error) {
	fs := flag.NewFlagSet("judge", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	out := fs.String("out", "mcpspec-report", "write junit.xml, results.json, summary.md and report.html into `DIR`")
	revision := fs.String("revision", "", "judge at `REVISION` instead of the one the pair negotiated ("+strings.Join(harness.Revisions, ", ")+")")
	format := fs.String("format", "", "read every FILE as `FORMAT`: "+strings.Join(recording.Formats, ", ")+" (default: detected from the first line)")
	maxFrames := fs.Int("max-frames", defaultMaxFrames, "keep at most `N` frames over all files; those past it are skipped and said (0: no bound)")
	grace := fs.Duration("cancel-grace", observed.DefaultCancelGrace, "a response to a cancelled request within `DURATION` of the cancellation counts as already in flight")
	replyBound := fs.Duration("reply-bound", observed.DefaultReplyBound, "a request unanswered while the conversation goes on for `DURATION` is a violation")
	strict := fs.Bool("strict", false, "warnings (broken SHOULDs) fail the run")
	noColor := fs.Bool("no-color", false, "no ANSI colours (also NO_COLOR)")
	verbose := fs.Bool("v", false, "verbose: in the summary every message in full, the untestable checks and the counts by area")
	onlyOnce(fs, "out", "revision", "format")
	if err := parseFlags(fs, args, judgeUsageLine, stdout); err != nil {
		return reports.ExitUsage, err
	}
	if err := checkGiven(fs); err != nil {
		return reports.ExitUsage, err
	}
	files := fs.Args()
	switch {
	case len(files) == 0:
		return reports.ExitUsage, usageErrorf("judge: no FILE: give a recording, a transcript, a HAR file or a stdio capture")
	case *revision != "" && !harness.IsKnownRevision(*revision):
		return reports.ExitUsage, usageErrorf("judge: --revision: unknown revision %q (known: %s)", *revision, strings.Join(harness.Revisions, ", "))
	case *format != "" && !contains(recording.Formats, *format):
		return reports.ExitUsage, usageErrorf("judge: --format: unknown format %q (want one of %s)", *format, strings.Join(recording.Formats, ", "))
	case *maxFrames < 0 || *grace <= 0 || *replyBound <= 0:
		return reports.ExitUsage, usageErrorf("judge: --max-frames must not be negative, --cancel-grace and --reply-bound must be positive")
	}
	if os.Getenv("GOGC") == "" {
		// What a judge keeps lives to the end and its checks churn garbage besides: at the
		// default GOGC the heap grows to twice what is kept. A tighter goal costs a little CPU
		// and cuts the peak of judging a long session (the proxy's, at its end) by a third.
		defer debug.SetGCPercent(debug.SetGCPercent(judgeGCPercent))
	}
	started := time.Now()
	var convs [][]recording.Record
	var kinds []string
	skipped, left := 0, *maxFrames
	for _, f := range files {
		bound := left
		if *maxFrames > 0 && left <= 0 {
			bound = 1 // the bound is spent: read the file for its errors, keep none of it
		}
		l, err := recording.Load(f, *format, bound)
		if err != nil {
			return reports.ExitUsage, usageErrorf("judge: %s: %s", f, oneLineErr(err))
		}
		kinds = append(kinds, fmt.Sprintf("%s (%s)", f, l.Format))
		skipped += l.Skipped
		for _, c := range l.Conversations {
			if *maxFrames > 0 && left <= 0 {
				skipped += len(c)
				continue
			}
			convs = append(convs, c)
			left -= len(c)
		}
	}
	var split [][]recording.Record
	for _, c := range convs {
		split = append(split, observed.Split(c)...)
	}
	results, info := observed.JudgeConversations(split, observed.Options{Revision: *revision, CancelGrace: *grace, ReplyBound: *replyBound, Skipped: skipped})
	desc := "recorded traffic: " + strings.Join(kinds, ", ")
	if len(info.Notes) > 0 {
		desc += " — " + strings.Join(info.Notes, "; ")
	}
	run := &reports.Run{
		SchemaVersion: reports.SchemaVersion,
		Tool:          reports.Tool{Name: "mcpspec", Version: version},
		Target:        reports.Target{Kind: reports.KindRecording, Description: desc, Transports: info.Transports, ServerInfo: info.ServerInfo},
		StartedAt:     started.UTC(),
		Revisions:     info.Revisions,
		Strict:        *strict,
		Results:       results,
	}
	for _, n := range info.Notes {
		fmt.Fprintln(stderr, "mcpspec: judge:", n)
	}
	run.DurationMs = time.Since(started).Milliseconds()
	cfg := &runConfig{out: *out, strict: *strict, verbose: *verbose, color: useColor(*noColor, stdout)}
	code, err := finish(cfg, run, stdout, stderr, nil)
	if code == reports.ExitNothingRan && len(results) == 0 {
		fmt.Fprintf(stderr, "mcpspec: judge: nothing judged: %d frames, no conversation with a revision (give --revision)\n", info.Frames)
	}
	return code, err
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// oneLineErr keeps a usage error to one line.
func oneLineErr(err error) string { return strings.ReplaceAll(err.Error(), "\n", " ") }
