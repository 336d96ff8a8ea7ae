package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"syscall"

	"github.com/mcpspec/mcpspec/fixtures/jsonrpcserver"
)

// cmdJSONRPCServer runs the bundled plain JSON-RPC 2.0 server (no MCP): the target of the
// JSON-RPC profile's self-test and of `mcpspec run --jsonrpc` without a target.
func cmdJSONRPCServer(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("jsonrpc-server", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	addr := fs.String("http", "", "answer JSON-RPC POSTed to `ADDR` (any path) instead of stdio")
	allowRemote := fs.Bool("allow-remote", false, "let --http listen on an address that is not loopback (by default a bare :PORT means 127.0.0.1:PORT and any other host is refused)")
	var faults listFlag
	fs.Var(&faults, "fault", "switch on the fault `ID` (repeatable, or comma-separated): one per check of the JSON-RPC profile")
	if err := parseFlags(fs, args, "mcpspec jsonrpc-server [flags]   (stdio, or --http ADDR)", stdout); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErrorf("jsonrpc-server: unexpected argument %q", fs.Arg(0))
	}
	opts := jsonrpcserver.Options{Faults: faults}
	if err := opts.Validate(); err != nil {
		return usageErrorf("%v", err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *addr == "" {
		return jsonrpcserver.ServeStdio(ctx, os.Stdin, os.Stdout, opts)
	}
	listen, err := loopbackAddr("jsonrpc-server", *addr, *allowRemote)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return fmt.Errorf("jsonrpc-server: listen on %s: %w", *addr, err)
	}
	fmt.Fprintf(stderr, "mcpspec jsonrpc-server: serving http://%s/\n", ln.Addr())
	return jsonrpcserver.ServeHTTP(ctx, ln, opts)
}
