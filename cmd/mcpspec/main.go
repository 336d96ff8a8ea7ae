// Command mcpspec checks that a Model Context Protocol server speaks the specification: it
// launches or connects to the server, speaks raw JSON-RPC to it at every revision it supports,
// and reports per requirement × revision × transport.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"slices"

	"github.com/mcpspec/mcpspec/harness/reaper"
	"github.com/mcpspec/mcpspec/reports"
)

// softMemoryLimit is the Go runtime's soft memory limit for run, client and matrix: a bound the
// collector works to keep the heap under, not a cap that fails the run.
const softMemoryLimit = 192 << 20

// runGCPercent is run's GOGC under softMemoryLimit (see main).
const runGCPercent = 300

// version is mcpspec's own version, reported in every result file.
const version = "0.1.0"

const usage = `mcpspec — conformance suite for Model Context Protocol servers and clients

Usage:
  mcpspec run [flags]          run the suite (no target: the bundled reference server, stdio and HTTP)
  mcpspec list [--json]        the requirement catalogue and what is implemented
  mcpspec reference [flags]    run the bundled reference server (stdio, or --http ADDR)
  mcpspec jsonrpc-server [flags]  run the bundled plain JSON-RPC 2.0 server (stdio, or --http ADDR)
  mcpspec diff [--json] OLD NEW  compare two results.json files; exit 1 on a regression
  mcpspec matrix --config FILE [--out DIR]  many targets × revisions → one compatibility matrix
  mcpspec matrix --merge DIR... [--out DIR]  the same matrix from runs made elsewhere (CI jobs)
  mcpspec client --cmd CMD [--stdio|--sse]  test an MCP client: it is launched against mcpspec's probe server
  mcpspec reference-client [--sse] URL|SERVER  the bundled reference client (--fault ID breaks one requirement)
  mcpspec authserver [flags] ISSUER-URL  test an OAuth authorization server (metadata, PKCE, codes, registration)
  mcpspec reference-authserver [--listen ADDR]  the bundled reference authorization server (--fault ID breaks one requirement)
  mcpspec proxy [--out DIR] -- SERVER…  relay a real host's session with a server (stdio, or --listen/--upstream HTTP), record and judge it
  mcpspec judge [--out DIR] FILE...  judge both sides of recorded traffic (recording, transcript, HAR, stdio capture)
  mcpspec version              print the version

Run 'mcpspec COMMAND --help' for the flags of a command.

Exit codes: 0 conformant, 1 unexpected failures or stale baseline entries, 2 bad usage or
configuration, 3 harness or infrastructure error, 4 nothing ran.
`

// usageError is bad input from the user: exit 2 with a one-line reason.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usageErrorf(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// errHelp: the command printed its usage because --help asked for it; Main exits 0.
var errHelp = errors.New("help shown")

// parseFlags parses a command's flags. On -h or --help it prints usageLine and the flags to
// stdout and returns errHelp; any other parse error is a usage error naming the command.
func parseFlags(fs *flag.FlagSet, args []string, usageLine string, stdout io.Writer) error {
	err := fs.Parse(args)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprintln(stdout, "Usage: "+usageLine)
		fs.SetOutput(stdout)
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
		return errHelp
	}
	return usageErrorf("%s: %v", fs.Name(), err)
}

func main() {
	// A run's targets may start processes that leave their process group (setsid) and would
	// outlive every cleanup: as a child subreaper, mcpspec inherits them and ends them at exit.
	reaps := len(os.Args) > 1 && slices.Contains([]string{"run", "client", "matrix", "proxy"}, os.Args[1])
	if reaps {
		reaper.Become()
		// A target answering with tens of megabytes, or flooding notifications, makes garbage
		// faster than the collector's default pace frees it; a soft limit makes it collect
		// sooner instead of growing (GOMEMLIMIT, when set, decides instead).
		if os.Getenv("GOMEMLIMIT") == "" {
			debug.SetMemoryLimit(softMemoryLimit)
			// Under that limit a run collects less often than the default pace: against the
			// bundled reference 8 collections instead of 26, for ~35 MB more peak memory
			// (issue 28: a 2-core machine's run is CPU-bound). GOGC, when set, decides instead.
			if os.Args[1] == "run" && os.Getenv("GOGC") == "" {
				debug.SetGCPercent(runGCPercent)
			}
		}
	}
	stopProfile := startCPUProfile(os.Stderr)
	code := Main(os.Args[1:], os.Stdout, os.Stderr)
	stopProfile()
	if reaps {
		reaper.EndDescendants()
	}
	os.Exit(code)
}

// Main runs the command line and returns the exit code.
func Main(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return reports.ExitUsage
	}
	switch args[0] {
	case "run", "client", "authserver", "matrix", "diff", "list", "judge":
		// Their console shows target text: fence it from CI runners' command parsing. (The
		// servers and probe-stdio speak JSON-RPC on stdout, which must pass as it is.)
		fout, ferr := newFence(stdout), newFence(stderr)
		defer fout.Flush()
		defer ferr.Flush()
		stdout, stderr = fout, ferr
	}
	var err error
	code := reports.ExitOK
	switch args[0] {
	case "run":
		code, err = cmdRun(args[1:], stdout, stderr)
	case "list":
		err = cmdList(args[1:], stdout)
	case "diff":
		code, err = cmdDiff(args[1:], stdout)
	case "matrix":
		code, err = cmdMatrix(args[1:], stdout, stderr)
	case "reference":
		err = cmdReference(args[1:], stdout, stderr)
	case "jsonrpc-server":
		err = cmdJSONRPCServer(args[1:], stdout, stderr)
	case "client":
		code, err = cmdClient(args[1:], stdout, stderr)
	case "judge":
		code, err = cmdJudge(args[1:], stdout, stderr)
	case "reference-client":
		code, err = cmdReferenceClient(args[1:], stdout, stderr)
	case "authserver":
		code, err = cmdAuthServer(args[1:], stdout, stderr)
	case "reference-authserver":
		err = cmdReferenceAuthServer(args[1:], stdout, stderr)
	case "proxy":
		code, err = cmdProxy(args[1:], stdout, stderr)
	case "probe-stdio":
		err = cmdProbeStdio(args[1:], stdout, stderr)
	case "version", "--version":
		fmt.Fprintln(stdout, "mcpspec", version)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
	default:
		err = usageErrorf("unknown command %q (want run, list, diff, matrix, reference, jsonrpc-server, client, reference-client, authserver, reference-authserver, proxy, judge or version)", args[0])
	}
	if err == nil {
		return code
	}
	if errors.Is(err, errHelp) {
		return reports.ExitOK
	}
	var ue *usageError
	if errors.As(err, &ue) {
		fmt.Fprintln(stderr, "mcpspec:", ue.msg)
		return reports.ExitUsage
	}
	fmt.Fprintln(stderr, "mcpspec:", err)
	if code == reports.ExitOK {
		code = reports.ExitHarness
	}
	return code
}
