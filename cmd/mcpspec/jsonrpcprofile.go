package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/harness/stdio"
	"github.com/mcpspec/mcpspec/harness/wire"
)

// useJSONRPCProfile turns a run into the JSON-RPC profile (--jsonrpc): its one version is
// harness.RevJSONRPC, which only the checks of JSON-RPC 2.0 itself apply at, on sessions with no
// handshake. Without a target it runs against the bundled plain JSON-RPC server.
func useJSONRPCProfile(fs *flag.FlagSet, cfg *serverRun) error {
	var clash error
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "sse":
			clash = usageErrorf("run: --jsonrpc cannot go with --sse: the JSON-RPC profile speaks stdio or HTTP POST only")
		case "versions":
			clash = usageErrorf("run: --jsonrpc cannot go with --versions: the JSON-RPC profile has one version, %s", harness.RevJSONRPC)
		}
	})
	if clash != nil {
		return clash
	}
	cfg.plan.Revisions = []string{harness.RevJSONRPC}
	if len(cfg.plan.Targets) > 0 {
		return nil
	}
	targets, err := jsonrpcServerTargets()
	if err != nil {
		return err
	}
	cfg.plan.Targets, cfg.bundled = targets, true
	return nil
}

// jsonrpcServerTargets run the bundled plain JSON-RPC server (this very binary) over stdio and
// over HTTP on a free loopback port.
func jsonrpcServerTargets() ([]harness.Target, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("find the mcpspec binary to launch the JSON-RPC server: %w", err)
	}
	port, err := freeLoopbackPort()
	if err != nil {
		return nil, err
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	return []harness.Target{
		{Transport: wire.Stdio, Command: stdio.Command{Argv: []string{self, "jsonrpc-server"}}},
		{Transport: wire.HTTP, URL: "http://" + addr + "/rpc", Command: stdio.Command{Argv: []string{self, "jsonrpc-server", "--http", addr}}},
	}, nil
}
