package main

import (
	"fmt"
	"io"
	"os"
	"runtime/pprof"
)

// cpuProfileEnv names a file that receives a CPU profile of this mcpspec process (any command):
// for measuring where a run's own CPU goes (`go tool pprof bin/mcpspec FILE`; docs/usage.md). It
// is no flag: it serves mcpspec's developers, and a flag would be in every command's --help.
// The servers a run starts are other processes and are not in it.
const cpuProfileEnv = "MCPSPEC_CPUPROFILE"

// startCPUProfile starts the profile when cpuProfileEnv asks for one and returns what stops it;
// a profile that cannot be written is reported on stderr and the command runs without it.
func startCPUProfile(stderr io.Writer) (stop func()) {
	path := os.Getenv(cpuProfileEnv)
	if path == "" {
		return func() {}
	}
	// The servers a run starts (`mcpspec reference` among them) inherit the environment: each
	// would truncate the file at its start and write its own profile over this one.
	os.Unsetenv(cpuProfileEnv)
	f, err := os.Create(path)
	if err != nil {
		fmt.Fprintf(stderr, "mcpspec: %s: %v\n", cpuProfileEnv, err)
		return func() {}
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		fmt.Fprintf(stderr, "mcpspec: %s: %v\n", cpuProfileEnv, err)
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			fmt.Fprintf(stderr, "mcpspec: %s: %v\n", cpuProfileEnv, err)
		}
	}
}
