package main

import (
	"flag"
	"io"
	"os"
	"strings"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/mcpspec/mcpspec/reports"
	"github.com/mcpspec/mcpspec/suites/catalog"
)

// outputFlags are the selection and output flags `run` and `client` share, defined once so
// that every output option of one works for the other.
type outputFlags struct {
	fs                                           *flag.FlagSet
	labels, out, baseline, writeBase, transcript *string
	strict, noColor, github, verbose             *bool
}

// addOutputFlags defines the shared flags on fs; verbose says what -v shows.
func addOutputFlags(fs *flag.FlagSet, verbose string) *outputFlags {
	return &outputFlags{fs: fs,
		labels:     fs.String("label-filter", "", "run only checks matching the Ginkgo label `EXPR` (labels: ID, level, area:X, version:X, transport:X)"),
		out:        fs.String("out", "mcpspec-report", "write junit.xml, results.json, summary.md and report.html into `DIR`"),
		baseline:   fs.String("baseline", "", "YAML `FILE` of expected failures"),
		writeBase:  fs.String("write-baseline", "", "write the current failures and warnings as a baseline to `FILE`"),
		strict:     fs.Bool("strict", false, "warnings (broken SHOULDs) fail the run"),
		noColor:    fs.Bool("no-color", false, "no ANSI colours (also NO_COLOR; colours are only ever written to a terminal, or where CLICOLOR_FORCE is set)"),
		github:     fs.Bool("github", false, "print each failure and warning as a GitHub Actions annotation (::error title=ID::message) and append summary.md to $GITHUB_STEP_SUMMARY when set; on by default when GITHUB_ACTIONS=true (--github=false turns it off)"),
		transcript: fs.String("transcript", "", "write every session's whole wire transcript to `DIR`/transcript.jsonl (one JSON object a line; secrets redacted)"),
		verbose:    fs.Bool("v", false, "verbose: "+verbose),
	}
}

// apply puts the parsed flags into cfg; cmd names the subcommand in usage errors, stdout is
// where the console goes (colours only on a terminal).
func (o *outputFlags) apply(cmd string, cfg *runConfig, stdout io.Writer) error {
	if *o.labels != "" {
		if _, err := types.ParseLabelFilter(*o.labels); err != nil {
			return usageErrorf("%s: --label-filter: %v", cmd, strings.SplitN(err.Error(), "\n", 2)[0])
		}
	}
	if err := checkWritableFile(cmd, "write-baseline", *o.writeBase); err != nil {
		return err
	}
	cfg.labels, cfg.out, cfg.baseline, cfg.writeBase, cfg.transcriptDir = *o.labels, *o.out, *o.baseline, *o.writeBase, *o.transcript
	cfg.strict, cfg.verbose = *o.strict, *o.verbose
	cfg.color = useColor(*o.noColor, stdout)
	cfg.github = *o.github || (!given(o.fs, "github") && os.Getenv("GITHUB_ACTIONS") == "true")
	if *o.baseline != "" {
		var err error
		if cfg.base, err = reports.LoadBaseline(*o.baseline, catalog.Known); err != nil {
			return usageErrorf("%s: --baseline: %v", cmd, err)
		}
	}
	return nil
}
