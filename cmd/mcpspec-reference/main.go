// Command mcpspec-reference is the bundled reference server over stdio, as `mcpspec reference`
// serves it without flags, in a binary of its own. `mcpspec run` starts it for each stdio
// connection of its default target when it lies beside mcpspec and is the same build
// (--digest): a run starts the stdio server over a hundred times, and mcpspec, which also
// links the JSON-schema compiler, Ginkgo and every check, spends ~13 ms of CPU initialising
// those packages at each start, where this binary needs ~2 ms. Without it, mcpspec starts
// itself. `make build` builds both.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/mcpspec/mcpspec/fixtures/reference"
)

func main() {
	switch {
	case len(os.Args) == 2 && os.Args[1] == "--digest":
		fmt.Println(reference.SourceDigest())
		return
	case len(os.Args) > 1:
		fmt.Fprintln(os.Stderr, "usage: mcpspec-reference   (the reference server over stdio; --digest prints what build it is)")
		os.Exit(2)
	}
	// The options of `mcpspec reference` with every flag at its default.
	opts := reference.Options{Stderr: os.Stderr, HTTPResponseMode: "auto", Era: reference.EraBoth}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := reference.ServeStdio(ctx, os.Stdin, os.Stdout, opts)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "mcpspec:", err)
		os.Exit(3)
	}
}
