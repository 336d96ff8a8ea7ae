package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/mcpspec/mcpspec/fixtures/refclient"
	"github.com/mcpspec/mcpspec/reports"
)

// cmdReferenceClient runs the bundled reference client against URL (Streamable HTTP) or a stdio
// server it launches: exit 0 when it followed the contract to the end, 1 when the server made
// it stop (an unsupported protocol version, an error), 2 on bad usage.
func cmdReferenceClient(args []string, stdout, stderr io.Writer) (int, error) {
	fs := flag.NewFlagSet("reference-client", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	timeout := fs.Duration("timeout", 60*time.Second, "bound on the whole run")
	sse := fs.Bool("sse", false, "URL is the SSE endpoint of the legacy HTTP+SSE transport (2024-11-05)")
	secretsLog := fs.String("secrets-log", "", "append every OAuth secret the client handles to `FILE` and write it to stderr (for the secrets test: never in real use)")
	handshake := fs.Bool("handshake-only", false, "speak only the handshake revisions, as a client older than 2026-07-28: never ask server/discover")
	noPaging := fs.Bool("no-paging", false, "list the first page of tools only, never following nextCursor")
	pipeline := fs.Bool("pipeline", false, "over stdio, write notifications/initialized right behind initialize, before reading the InitializeResult")
	authEager := fs.Bool("auth-eager", false, "in the auth/* scenarios, discover and authorize from the well-known URIs before the first request, as a client that never waits for a challenge")
	chatty := fs.Duration("chatty", 0, "hostile mode: after the scenario, ping the server every `INTERVAL` until --timeout or a signal ends the client (tests mcpspec client's launch bound)")
	oversize := fs.Int("oversize", 0, "hostile mode: after the scenario, send one ping padded to `BYTES` (tests the evidence bounds)")
	var faults listFlag
	var names []string
	for _, f := range refclient.Faults() {
		names = append(names, f.ID)
	}
	fs.Var(&faults, "fault", "switch on the fault `ID` (repeatable, or comma-separated): "+strings.Join(names, ", "))
	if err := parseFlags(fs, args, "mcpspec reference-client [flags] [--sse] URL | SERVER [ARGS…]", stdout); err != nil {
		if errors.Is(err, errHelp) {
			return reports.ExitOK, err
		}
		return reports.ExitUsage, err
	}
	if err := checkGiven(fs); err != nil {
		return reports.ExitUsage, err
	}
	if fs.NArg() == 0 {
		return reports.ExitUsage, usageErrorf("reference-client: want a Streamable HTTP URL or the command of a stdio server")
	}
	if *timeout <= 0 {
		return reports.ExitUsage, usageErrorf("reference-client: --timeout must be positive, got %s", *timeout)
	}
	if *sse && (fs.NArg() != 1 || !strings.HasPrefix(fs.Arg(0), "http")) {
		return reports.ExitUsage, usageErrorf("reference-client: --sse wants one URL, the SSE endpoint")
	}
	if *chatty < 0 || *oversize < 0 {
		return reports.ExitUsage, usageErrorf("reference-client: --chatty and --oversize must not be negative")
	}
	opts := refclient.Options{Faults: faults, SSE: *sse, SecretsLog: *secretsLog, Stderr: stderr, AuthEager: *authEager, Chatty: *chatty, Oversize: *oversize,
		Handshake: *handshake, NoPaging: *noPaging, Pipeline: *pipeline}
	if err := opts.Validate(); err != nil {
		return reports.ExitUsage, usageErrorf("%v", err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	if err := refclient.Run(ctx, fs.Args(), opts, stderr); err != nil {
		fmt.Fprintln(stderr, "mcpspec reference-client:", err)
		return reports.ExitFailures, nil
	}
	return reports.ExitOK, nil
}
