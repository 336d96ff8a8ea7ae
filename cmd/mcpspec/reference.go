package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/mcpspec/mcpspec/fixtures/reference"
)

// cmdReference runs the bundled reference server over stdio, or over HTTP with --http.
func cmdReference(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("reference", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	addr := fs.String("http", "", "serve Streamable HTTP at `ADDR`/mcp (and legacy HTTP+SSE at /sse) instead of stdio")
	sseAddr := fs.String("sse", "", "same as --http: the legacy HTTP+SSE endpoint /sse is served beside /mcp")
	mode := fs.String("http-responses", "auto", "how POSTed requests are answered: auto (SSE when a request asks for progress), json, sse, or calls (SSE only for a tools/call that asks for progress)")
	era := fs.String("era", reference.EraBoth, "protocol eras served: both (handshake revisions and 2026-07-28), handshake (no server/discover) or stateless (2026-07-28 only, no initialize)")
	authToken := fs.String("auth-token", "", "HTTP only: require authorization; `TOKEN` is a valid bearer token with every scope (the metadata is served at /.well-known/oauth-protected-resource/mcp)")
	authNarrow := fs.String("auth-token-narrow", "", "with --auth-token: a valid `TOKEN` that lacks the scope tools/call needs (403 insufficient_scope)")
	authForeign := fs.String("auth-token-foreign", "", "with --auth-token: a `TOKEN` issued for another resource, refused with 401")
	authExpired := fs.String("auth-token-expired", "", "with --auth-token: a `TOKEN` of this server's that has expired, refused with 401")
	authIssuer := fs.String("auth-issuer", "", "with --auth-token: the authorization server `URL` the protected resource metadata names (such as a `mcpspec reference-authserver`'s issuer; by default one where nothing listens)")
	allowRemote := fs.Bool("allow-remote", false, "let --http listen on an address that is not loopback (by default a bare :PORT means 127.0.0.1:PORT and any other host is refused)")
	ssePoll := fs.Bool("sse-poll", false, "in 2025-11-25 sessions, close the connection of a POST's SSE stream after its first message, with a retry field, without ending the stream (resumed with GET and Last-Event-ID)")
	sseAbort := fs.Bool("sse-abort", false, "drop the connection of a POST's SSE stream right after it carried the response, without ending the chunked body")
	logOnSetLevel := fs.Bool("log-on-set-level", false, "answer each logging/setLevel with a log message at warning, unasked, as servers that log on their own do (the log messages a run has without --log-tool)")
	sessions := fs.Int("sessions", 0, "HTTP only: initialize at most `N` Streamable HTTP sessions in the server's life (0: any number), refusing a further initialize with 400, as a server with one transport for its whole process does")
	initDelay := fs.Duration("init-delay", 0, "hold every answer to initialize back for `DURATION` (ping and the rest are served meanwhile; a cancellation of initialize is not honoured): a server slow to start")
	var faults, without listFlag
	fs.Var(&without, "without", "leave out the capability `NAME` (repeatable, or comma-separated): neither declared nor served; one of "+strings.Join(reference.Omittable, ", "))
	fs.Var(&faults, "fault", "switch on the fault `ID` (repeatable, or comma-separated); see 'mcpspec list'")
	if err := parseFlags(fs, args, "mcpspec reference [flags]   (stdio, or --http ADDR)", stdout); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErrorf("reference: unexpected argument %q", fs.Arg(0))
	}
	if err := checkGiven(fs); err != nil {
		return err
	}
	if *sessions < 0 {
		return usageErrorf("reference: --sessions %d: want 0 or more", *sessions)
	}
	if *initDelay < 0 {
		return usageErrorf("reference: --init-delay %s: want a duration of 0 or more", *initDelay)
	}
	if *addr != "" && *sseAddr != "" {
		return usageErrorf("reference: --http and --sse are the same flag (both paths are served): give one")
	}
	listen := *addr + *sseAddr
	if listen != "" {
		var err error
		if listen, err = loopbackAddr("reference", listen, *allowRemote); err != nil {
			return err
		}
	}
	opts := reference.Options{Faults: faults, Stderr: stderr, HTTPResponseMode: *mode, Era: *era,
		Auth:    reference.AuthOptions{Token: *authToken, Narrow: *authNarrow, Foreign: *authForeign, Expired: *authExpired, Issuer: *authIssuer},
		Without: without, SSEPoll: *ssePoll, InitDelay: *initDelay, SSEAbort: *sseAbort, LogOnSetLevel: *logOnSetLevel, Sessions: *sessions}
	if err := opts.Validate(); err != nil {
		return usageErrorf("%v", err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if listen == "" && *authToken != "" {
		return usageErrorf("reference: --auth-token needs --http or --sse: over stdio credentials come from the environment")
	}
	if listen == "" {
		return reference.ServeStdio(ctx, os.Stdin, os.Stdout, opts)
	}
	ln, err := net.Listen("tcp", reference.ListenAddress(listen, opts))
	if err != nil {
		return fmt.Errorf("reference: listen on %s: %w", listen, err)
	}
	fmt.Fprintf(stderr, "mcpspec reference: serving http://%s/mcp and http://%s/sse\n", ln.Addr(), ln.Addr())
	return reference.ServeHTTP(ctx, ln, opts)
}

// listFlag collects a repeatable flag whose values may also be comma-separated.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }

func (l *listFlag) Set(v string) error {
	if strings.Trim(v, " \t,") == "" {
		return fmt.Errorf("empty: give a value or leave the flag out (an unset variable?)")
	}
	for _, part := range strings.Split(v, ",") {
		if part = strings.TrimSpace(part); part != "" {
			*l = append(*l, part)
		}
	}
	return nil
}

// repeatFlag collects a repeatable flag verbatim.
type repeatFlag []string

func (r *repeatFlag) String() string { return strings.Join(*r, " ") }

func (r *repeatFlag) Set(v string) error { *r = append(*r, v); return nil }
