package engine

import (
	"os"
	"os/signal"
	"syscall"

	"github.com/onsi/ginkgo/v2"

	"github.com/mcpspec/mcpspec/suites/conform"
)

// InterruptSignals end a run early: Ctrl-C, and what CI runners and timeouts send.
var InterruptSignals = []os.Signal{os.Interrupt, syscall.SIGTERM}

// interruptOnSignal makes intr's interruption interrupt runner: its servers are stopped (each
// in its own process group) and its unfinished checks recorded as interrupted, so the run still
// ends with complete results. sigs is the channel of the caller's WatchSignals, or nil: then the
// first SIGINT or SIGTERM interrupts intr until the returned function ends the watch.
//
// RunSpecs installs Ginkgo's own handler for the same signals, which would dump goroutines and
// skip specs whose results mcpspec already holds; a BeforeSuite node therefore takes the
// signals back once that handler is in place, and only then lets the runner start its checks
// (the runner must have been held with HoldStart).
func interruptOnSignal(runner *conform.Runner, intr *Interruption, sigs chan os.Signal) (stop func()) {
	stopSignals := func() {}
	if sigs == nil {
		sigs, stopSignals = WatchSignals(intr.Interrupt)
	}
	done := make(chan struct{})
	go func() {
		select {
		case <-intr.Done():
			runner.Interrupt(intr.Reason())
		case <-done:
		}
	}()
	ginkgo.BeforeSuite(func() {
		// Ignore, not Reset: between dropping Ginkgo's handler and taking the signals back, a
		// reset signal would have its default action and kill the run without its reports (seen
		// once under load); an ignored one is lost. So no server is started before the signals
		// are back: a signal lost here comes before the run began anything, and the run
		// started once a server exists always hears the next one (a SIGINT sent as soon as the
		// first server appeared went unheard under load while checks waited 60 s).
		signal.Ignore(InterruptSignals...)
		signal.Notify(sigs, InterruptSignals...)
		runner.ReleaseStart()
	})
	return func() {
		stopSignals()
		close(done)
	}
}

// WatchSignals calls interrupt with the name of the first SIGINT or SIGTERM, once; later ones
// are swallowed, so that the run can still stop its targets and write its reports. stop ends
// the watch; sigs is the channel the signals arrive on.
func WatchSignals(interrupt func(why string)) (sigs chan os.Signal, stop func()) {
	sigs = make(chan os.Signal, 1)
	signal.Notify(sigs, InterruptSignals...)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-sigs:
			interrupt(SignalName(s))
		case <-done:
		}
	}()
	return sigs, func() {
		signal.Stop(sigs)
		close(done)
	}
}

// SignalName is how a run's errors name the signal that interrupted it.
func SignalName(s os.Signal) string {
	switch s {
	case os.Interrupt:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return s.String()
}
