package stdio

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpspec/mcpspec/harness/jsonrpc"
	"github.com/mcpspec/mcpspec/harness/record"
	"github.com/mcpspec/mcpspec/harness/transcript"
	"github.com/mcpspec/mcpspec/harness/wire"
)

// Bounds for the process tests: long enough for a loaded CI machine, short enough to fail fast.
const (
	testTimeout  = 10 * time.Second       // any single wait for a message or an exit
	testGrace    = 200 * time.Millisecond // each step of Stop
	writeTimeout = 200 * time.Millisecond // how long a blocked write may take
)

func launch(t *testing.T, script string, opts Options) *Conn {
	t.Helper()
	if opts.StopGrace == 0 {
		opts.StopGrace = testGrace
	}
	c, err := Launch(Command{Argv: []string{"sh", "-c", script}}, opts)
	if err != nil {
		t.Fatalf("Launch: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func TestLaunchSendReceiveThroughCat(t *testing.T) {
	tr := transcript.New()
	c := launch(t, "exec cat", Options{Transcript: tr})
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()

	ping, err := jsonrpc.NewRequest(jsonrpc.StringID("p-1"), "ping", nil)
	if err != nil {
		t.Fatal(err)
	}
	reply, err := jsonrpc.NewResult(jsonrpc.NumberID(1), map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	for _, frame := range [][]byte{ping, reply} {
		d, err := c.Send(ctx, frame)
		if err != nil {
			t.Fatalf("Send: %v", err)
		}
		if !d.IsFinished() || d.CarriesReplies {
			t.Errorf("a stdio delivery should be complete and not carry replies: %+v", d)
		}
	}

	got, err := c.Inbox().Wait(ctx, 0, func(r wire.Received) bool { return r.Msg.Method == "ping" })
	if err != nil {
		t.Fatalf("waiting for the echoed ping: %v", err)
	}
	if got.Channel != "stdout" || got.Msg.ID != jsonrpc.StringID("p-1") || string(got.Msg.Raw) != string(ping) {
		t.Errorf("echoed %s on %q with id %s, want the ping on stdout", got.Msg.Raw, got.Channel, got.Msg.ID.Text())
	}
	if _, err := c.Inbox().Wait(ctx, got.Index+1, wire.RespondsTo(jsonrpc.NumberID(1))); err != nil {
		t.Fatalf("waiting for the echoed result: %v", err)
	}

	var sent, received int
	for _, e := range tr.Since(0) {
		switch {
		case e.Dir == record.Send && e.Channel == "stdin":
			sent++
		case e.Dir == record.Recv && e.Channel == "stdout":
			received++
		}
	}
	if sent != 2 || received != 2 {
		t.Errorf("transcript has %d sent and %d received stdio frames, want 2 and 2", sent, received)
	}
	if len(c.Violations()) != 0 {
		t.Errorf("clean echo produced violations: %+v", c.Violations())
	}

	// cat exits on EOF: the inbox must close with the exit as its cause.
	if err := c.CloseStdin(); err != nil {
		t.Fatalf("CloseStdin: %v", err)
	}
	_, err = c.Inbox().Wait(ctx, c.Inbox().Len(), func(wire.Received) bool { return true })
	if !errors.Is(err, wire.ErrClosed) {
		t.Fatalf("Wait after EOF = %v, want ErrClosed", err)
	}
	if !strings.Contains(err.Error(), "exit status 0") {
		t.Errorf("close cause %q does not say the server exited", err)
	}
	select {
	case <-c.Done():
	case <-ctx.Done():
		t.Fatal("Done not closed after cat exited")
	}
}

func TestLaunchRecordsStdoutViolations(t *testing.T) {
	c := launch(t, `echo "server starting"; printf '{"a":1}\r\n'; echo; echo '{"jsonrpc":"2.0","method":"done"}'; exec cat`, Options{})
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	if _, err := c.Inbox().Wait(ctx, 0, func(r wire.Received) bool { return r.Msg.Method == "done" }); err != nil {
		t.Fatalf("waiting for the last message: %v", err)
	}
	var kinds []string
	for _, v := range c.Violations() {
		kinds = append(kinds, v.Kind)
	}
	want := []string{NonJSONLine, CarriageReturn, BlankLine}
	if !equalStrings(kinds, want) {
		t.Errorf("violations %q, want %q", kinds, want)
	}
	if c.ViolationCount() != len(want) {
		t.Errorf("ViolationCount = %d, want %d", c.ViolationCount(), len(want))
	}
	if got := c.Inbox().Len(); got != 2 {
		t.Errorf("inbox holds %d messages, want the CRLF one and the last", got)
	}
}

func TestStopKillsProcessGroupIgnoringTerm(t *testing.T) {
	// The leader ignores SIGTERM (and so does its child, which inherits the disposition) and never
	// reads stdin, so only SIGKILL on the whole group ends them.
	c := launch(t, `trap "" TERM; sleep 300 & echo "{\"child\":$!}"; wait`, Options{})
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	r, err := c.Inbox().Wait(ctx, 0, func(wire.Received) bool { return true })
	if err != nil {
		t.Fatalf("waiting for the child's pid: %v", err)
	}
	var announced struct{ Child int }
	if err := json.Unmarshal(r.Msg.Raw, &announced); err != nil || announced.Child <= 0 {
		t.Fatalf("no child pid in %q: %v", r.Msg.Raw, err)
	}
	leader := c.Process().Pid()
	if pgid, err := syscall.Getpgid(announced.Child); err != nil || pgid != leader {
		t.Fatalf("child %d is in group %d (%v), want the leader's group %d", announced.Child, pgid, err, leader)
	}

	start := time.Now()
	if err := c.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	// Stop waits a grace period for EOF and one for SIGTERM before SIGKILL; allow generous slack.
	if took, limit := time.Since(start), 3*testGrace+5*time.Second; took > limit {
		t.Errorf("Stop took %s, want under %s", took, limit)
	}
	select {
	case <-c.Done():
	default:
		t.Fatal("the leader is still running after Stop")
	}
	if exit := c.Err(); exit == nil || !strings.Contains(exit.Error(), "killed") {
		t.Errorf("leader ended with %v, want it killed", exit)
	}
	for _, pid := range []int{leader, announced.Child} {
		if err := waitGone(pid, time.Now().Add(testTimeout)); err != nil {
			t.Error(err)
		}
	}
}

// waitGone waits until pid no longer runs. The child is not ours, so there is nothing to wait on
// but the kernel's word: poll until the deadline. A zombie is dead (it only awaits reaping by an
// init that may never come in a container).
func waitGone(pid int, deadline time.Time) error {
	const pollEvery = 5 * time.Millisecond
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	for {
		if !running(pid) {
			return nil
		}
		if time.Now().After(deadline) {
			return errors.New("process " + strconv.Itoa(pid) + " survived Stop")
		}
		<-tick.C
	}
}

func running(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false // gone between the two looks
	}
	// The state follows the command name, which is in parentheses and may contain spaces.
	rest := stat[strings.LastIndexByte(string(stat), ')')+1:]
	fields := strings.Fields(string(rest))
	return len(fields) == 0 || fields[0] != "Z"
}

func TestSendToProcessThatNeverReadsFailsWithinTimeout(t *testing.T) {
	c := launch(t, "exec sleep 300", Options{WriteTimeout: writeTimeout})
	frame := []byte(`{"jsonrpc":"2.0","method":"x","params":{"pad":"` + strings.Repeat("a", 1<<20) + `"}}`)
	start := time.Now()
	_, err := c.Send(context.Background(), frame)
	took := time.Since(start)
	if err == nil {
		t.Fatal("a 1 MiB write to a process that never reads succeeded")
	}
	if !strings.Contains(err.Error(), "does not read") {
		t.Errorf("error %q does not say the server does not read", err)
	}
	if limit := writeTimeout + 5*time.Second; took > limit {
		t.Errorf("Send blocked %s, want about %s", took, writeTimeout)
	}
	if took < writeTimeout/2 {
		t.Errorf("Send failed after %s, before the write timeout %s", took, writeTimeout)
	}
}

func TestSendHonoursContextDeadline(t *testing.T) {
	c := launch(t, "exec sleep 300", Options{WriteTimeout: time.Hour})
	const ctxTimeout = 100 * time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), ctxTimeout)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := c.Send(ctx, []byte(strings.Repeat("b", 1<<20)))
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("the write succeeded")
		}
	case <-time.After(testTimeout):
		t.Fatal("Send ignored the context's deadline")
	}
}

func TestStderrTailKeepsOnlyTheEnd(t *testing.T) {
	c := launch(t, `head -c 40000 /dev/zero | tr '\0' x >&2; printf TAIL-END >&2`, Options{})
	select {
	case <-c.Done():
	case <-time.After(testTimeout):
		t.Fatal("the process did not exit")
	}
	tail := c.Diagnostics()
	if len(tail) != StderrLimit {
		t.Errorf("stderr tail is %d bytes, want the limit %d", len(tail), StderrLimit)
	}
	if !strings.HasSuffix(tail, "xxxTAIL-END") {
		t.Errorf("stderr tail ends %q, want the last bytes written", tail[max(0, len(tail)-20):])
	}
}

func TestStartErrors(t *testing.T) {
	if _, err := Start(Command{}, true); err == nil {
		t.Error("Start with an empty command succeeded")
	}
	if _, err := Launch(Command{Argv: []string{"/nonexistent/mcpspec-server"}}, Options{}); err == nil {
		t.Error("Launch of a missing binary succeeded")
	}
}

func TestStartWithoutPipes(t *testing.T) {
	p, err := Start(Command{Argv: []string{"sh", "-c", `echo "$MCPSPEC_TEST_VAR in $PWD" >&2`}, Env: []string{"MCPSPEC_TEST_VAR=hello"}, Dir: os.TempDir()}, false)
	if err != nil {
		t.Fatal(err)
	}
	if p.Stdin != nil || p.Stdout != nil {
		t.Error("Start without pipes connected stdin or stdout")
	}
	select {
	case <-p.Done():
	case <-time.After(testTimeout):
		p.Stop(testGrace)
		t.Fatal("the process did not exit")
	}
	if got := p.StderrTail(); !strings.HasPrefix(got, "hello in ") {
		t.Errorf("stderr %q does not show the extra environment", got)
	}
	p.Stop(testGrace) // stopping an exited process is harmless
}

func TestSendAfterExitFails(t *testing.T) {
	c := launch(t, "exit 3", Options{})
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	_, err := c.Inbox().Wait(ctx, 0, func(wire.Received) bool { return true })
	if !errors.Is(err, wire.ErrClosed) || !strings.Contains(err.Error(), "exit status 3") {
		t.Fatalf("Wait on a server that exited = %v, want ErrClosed naming exit status 3", err)
	}
	if _, err := c.Send(ctx, []byte(`{"jsonrpc":"2.0","method":"x"}`)); err == nil {
		t.Error("Send to an exited server succeeded")
	}
}

// A server that sends more than a session keeps: the transcript says so, once, where it began.
func TestLaunchNotesTheInboxBounds(t *testing.T) {
	note := `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}`
	script := fmt.Sprintf(`i=0; while [ $i -lt %d ]; do echo '%s'; i=$((i+1)); done; echo '{"jsonrpc":"2.0","method":"done"}'; exec cat`, wire.MaxKeptMessages+10, note)
	c := launch(t, script, Options{})
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	if _, err := c.Inbox().Wait(ctx, 0, func(r wire.Received) bool { return r.Msg.Method == "done" }); err != nil {
		t.Fatalf("waiting for the last message: %v", err)
	}
	notes := 0
	for _, e := range c.Transcript().Since(0) {
		if strings.Contains(e.Body, "messages are dropped") {
			notes++
		}
	}
	if notes != 1 {
		t.Errorf("%d notes of dropped messages in the transcript, want 1", notes)
	}
}

// A server that answers a request and then floods notifications (more than a session keeps)
// before the check comes to read: the answer is still there, the notifications went instead.
func TestFloodAfterAnAnswerKeepsIt(t *testing.T) {
	note := `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}`
	script := fmt.Sprintf(`read -r l; echo '{"jsonrpc":"2.0","id":7,"result":{}}'; i=0; while [ $i -lt %d ]; do echo '%s'; i=$((i+1)); done; echo '{"jsonrpc":"2.0","method":"done"}'; exec cat`, 2*wire.MaxKeptMessages, note)
	c := launch(t, script, Options{})
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	from := c.Inbox().Len()
	if _, err := c.Send(ctx, []byte(`{"jsonrpc":"2.0","id":7,"method":"ping"}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Inbox().Wait(ctx, from, func(r wire.Received) bool { return r.Msg.Method == "done" }); err != nil {
		t.Fatalf("waiting for the end of the flood: %v", err)
	}
	if c.Inbox().Dropped() == 0 {
		t.Fatal("nothing was dropped: the flood proves nothing")
	}
	if _, err := c.Inbox().Wait(ctx, from, wire.RespondsTo(jsonrpc.NumberID(7))); err != nil {
		t.Errorf("the answer that came before the flood: %v", err)
	}
}

// TestStderrTailCatchesUp: what a server wrote to stderr before a later stdout line is in the
// tail once that line has been read, however far behind the stderr copy is (a busy machine).
func TestStderrTailCatchesUp(t *testing.T) {
	for i := range 20 {
		p, err := Start(Command{Argv: []string{"sh", "-c", "echo 'last words " + strconv.Itoa(i) + "' >&2; echo done; cat >/dev/null"}}, true)
		if err != nil {
			t.Fatal(err)
		}
		line := make([]byte, 5)
		if _, err := p.Stdout.Read(line); err != nil || string(line) != "done\n" {
			t.Fatalf("stdout %q, %v", line, err)
		}
		if tail := p.StderrTail(); !strings.Contains(tail, "last words "+strconv.Itoa(i)) {
			t.Errorf("run %d: stderr tail %q lacks what the server wrote before its stdout line", i, tail)
		}
		p.Stop(testGrace)
	}
}
