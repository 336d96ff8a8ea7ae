package main

import (
	"os"

	"github.com/mcpspec/mcpspec/suites/engine"
)

// watchSignals calls interrupt with the name of the first SIGINT or SIGTERM, once; later ones
// are swallowed, so that the run can still stop its targets and write its reports. (`run`'s
// engine watches them itself, since it must take them back from Ginkgo.)
func watchSignals(interrupt func(why string)) (sigs chan os.Signal, stop func()) {
	return engine.WatchSignals(interrupt)
}

func signalName(s os.Signal) string { return engine.SignalName(s) }
