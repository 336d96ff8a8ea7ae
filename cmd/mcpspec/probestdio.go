package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/mcpspec/mcpspec/harness/probe"
)

// cmdProbeStdio is the stdio probe server a client under test launches (through the script
// `mcpspec client --stdio` gives it): it serves one scenario on stdin/stdout and reports every
// record to the parent mcpspec over loopback. It is not meant to be run by hand.
func cmdProbeStdio(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("probe-stdio", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	report := fs.String("report", "", "loopback `ADDR` of the parent mcpspec's collector")
	token := fs.String("token", "", "the collector's `TOKEN`")
	scenario := fs.String("scenario", probe.ScenarioTools, "the scenario `NAME` to serve")
	revision := fs.String("revision", "", "the `REVISION` to answer initialize with")
	wait := fs.Duration("answer-wait", 10*time.Second, "bound on the client's answer to a request of the probe's")
	state := fs.String("state", "", "`DIR` shared by every probe launched in the run (the subscriptions scenario)")
	if err := parseFlags(fs, args, "mcpspec probe-stdio --report ADDR --token TOKEN --scenario NAME --revision REV", stdout); err != nil {
		return err
	}
	if err := checkGiven(fs); err != nil {
		return err
	}
	if *report == "" || *token == "" || *revision == "" {
		return usageErrorf("probe-stdio: --report, --token and --revision are required (it is launched by mcpspec client --stdio)")
	}
	script := probe.Script{Scenario: *scenario, Revision: *revision, AnswerWait: *wait, StateDir: *state}
	if err := script.Validate(); err != nil {
		return usageErrorf("probe-stdio: %v", err)
	}
	rep, err := probe.DialReporter(*report, *token, 5*time.Second)
	if err != nil {
		return err
	}
	defer rep.Close()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	rec := probe.NewRecorder(rep.Send)
	if err := probe.ServeStdio(ctx, script, os.Stdin, stdout, rec); err != nil {
		fmt.Fprintln(stderr, "mcpspec probe:", err)
		return err
	}
	return nil
}
