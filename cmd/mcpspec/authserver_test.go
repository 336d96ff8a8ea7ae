package main

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpspec/mcpspec/fixtures/refauthserver"
	"github.com/mcpspec/mcpspec/reports"
)

// startRefAuthServer serves the reference authorization server with faults in process and
// returns its issuer.
func startRefAuthServer(t *testing.T, faults ...string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	issuer := "http://" + ln.Addr().String()
	h, err := refauthserver.Handler(issuer, faults)
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return issuer
}

func mainRun(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := Main(args, &out, &errb)
	return code, out.String(), errb.String()
}

// TestAuthServerReferencePasses: the reference authorization server passes every AS check at
// every revision, the run is marked as an authorization server's, and no code, token or
// client secret it minted reaches a report.
func TestAuthServerReferencePasses(t *testing.T) {
	issuer := startRefAuthServer(t)
	out := t.TempDir()
	code, stdout, stderr := mainRun("authserver", "--out", out, "--resource", "http://127.0.0.1:9/mcp", issuer)
	if code != reports.ExitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	run := assertReports(t, out)
	if run.Target.Kind != reports.KindAuthServer || len(run.Results) != 48 {
		t.Errorf("kind %q, %d results; want %q, 48", run.Target.Kind, len(run.Results), reports.KindAuthServer)
	}
	for _, r := range run.Results {
		if r.Status != reports.Pass {
			t.Errorf("%s at %s: %s: %s", r.ID, r.Version, r.Status, r.Message)
		}
	}
	for _, name := range reportFiles {
		b, err := os.ReadFile(filepath.Join(out, name))
		if err != nil {
			t.Fatal(err)
		}
		for _, minted := range []string{"mcpspec-code-", "mcpspec-rt-", "eyJhbGciOiJFUzI1NiIs"} {
			if bytes.Contains(b, []byte(minted)) {
				t.Errorf("%s holds a secret beginning %q", name, minted)
			}
		}
	}
}

// TestAuthServerFaultFails: a fault of the reference fails the run (exit 1) on its check.
func TestAuthServerFaultFails(t *testing.T) {
	issuer := startRefAuthServer(t, refauthserver.FaultCodeSingleUse)
	out := t.TempDir()
	code, stdout, _ := mainRun("authserver", "--out", out, "--focus", "^AS-CODE-", issuer)
	if code != reports.ExitFailures || !strings.Contains(stdout, "AS-CODE-SINGLE-USE") {
		t.Errorf("exit %d, want %d naming AS-CODE-SINGLE-USE:\n%s", code, reports.ExitFailures, stdout)
	}
}

// TestAuthServerUnreachable: an issuer where nothing listens ends the run at once with exit 3,
// the reports still written.
func TestAuthServerUnreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	issuer := "http://" + ln.Addr().String()
	ln.Close()
	out := t.TempDir()
	code, _, stderr := mainRun("authserver", "--out", out, issuer)
	if code != reports.ExitHarness || !strings.Contains(stderr, "cannot be reached") {
		t.Errorf("exit %d, want %d; stderr %s", code, reports.ExitHarness, stderr)
	}
	assertReports(t, out)
}

// TestAuthServerUsage: bad input exits 2 with one line, sending nothing anywhere.
func TestAuthServerUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"authserver"}, "want one argument"},
		{[]string{"authserver", "http://127.0.0.1:1", "http://127.0.0.1:2"}, "want one argument"},
		{[]string{"authserver", "https://auth.example.com"}, "not on loopback: add --allow-remote"},
		{[]string{"authserver", "ftp://127.0.0.1"}, "want an http:// or https:// URL"},
		{[]string{"authserver", "--resource", "nope", "http://127.0.0.1:1"}, "--resource"},
		{[]string{"authserver", "--label-filter", "((", "http://127.0.0.1:1"}, "--label-filter"},
		{[]string{"authserver", "--timeout-request", "0s", "http://127.0.0.1:1"}, "must be positive"},
		{[]string{"authserver", "--client-secret", "s", "http://127.0.0.1:1"}, "go with --client-id"},
		{[]string{"authserver", "--client-id", "c", "http://127.0.0.1:1"}, "needs --redirect-uri"},
		{[]string{"authserver", "--versions", "2024-11-05", "http://127.0.0.1:1"}, "begin at 2025-03-26"},
		{[]string{"reference-authserver", "--fault", "NOPE"}, "unknown fault"},
		{[]string{"reference-authserver", "--listen", "10.1.2.3:80"}, "not loopback"},
		{[]string{"run", "--stdio", "x", "--authserver"}, "--authserver needs --url"},
	} {
		args := c.args
		if args[0] != "reference-authserver" {
			// Should a case wrongly start a run, its reports land in the test's directory.
			args = append([]string{args[0], "--out", filepath.Join(t.TempDir(), "out")}, args[1:]...)
		}
		code, _, stderr := mainRun(args...)
		if code != reports.ExitUsage || !strings.Contains(stderr, c.want) || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and one line with %q", c.args, code, stderr, c.want)
		}
	}
}

// TestRunFollowsAuthServer: run --authserver against the reference server in auth mode, whose
// metadata names a reference authorization server, adds the AS results to the run's, with
// tokens asked for the server's resource (AS-RESOURCE-AUDIENCE passes).
func TestRunFollowsAuthServer(t *testing.T) {
	t.Parallel()
	issuer := startRefAuthServer(t)
	const token = "cli-authserver-token"
	d := newRunDir(t)
	out := t.TempDir()
	addr := fmt.Sprintf("127.0.0.1:%d", loopbackPort(t))
	server := fmt.Sprintf("%s reference --http %s --auth-token %s --auth-issuer %s", d.mcpspec, addr, token, issuer)
	r := runBinary(t, referenceRunTimeout, d.mcpspec, "run", "--http-cmd", server, "--url", "http://"+addr+"/mcp",
		"--header", "Authorization: Bearer "+token, "--authserver",
		"--versions", "2025-11-25", "--focus", "^(AS-|AUTH-PRM)", "--out", out)
	if r.code != reports.ExitOK {
		t.Errorf("exit code %d, want 0\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	run := assertReports(t, out)
	as := 0
	for _, res := range run.Results {
		if strings.HasPrefix(res.ID, "AS-") {
			as++
		}
		if res.Status != reports.Pass {
			t.Errorf("%s %s: %s: %s", res.ID, res.Version, res.Status, res.Message)
		}
	}
	if as != 12 {
		t.Errorf("%d AS results, want 12 (every AS check of 2025-11-25)", as)
	}
	assertNoLeftovers(t, d)
}

// TestAuthServerInterruptedExits3: SIGINT while the authorization server holds a request
// unanswered ends the run at once (not at --timeout-request), exit 3, the reports written.
func TestAuthServerInterruptedExits3(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	arrived, done := make(chan struct{}, 1), make(chan struct{})
	srv := &http.Server{Handler: http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
		select {
		case arrived <- struct{}{}:
		default:
		}
		<-done
	})}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { close(done); _ = srv.Close() })
	out := t.TempDir()
	cmd := exec.Command(bins.mcpspec, "authserver", "--out", out, "--timeout-request", "10m", "http://"+ln.Addr().String())
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.WaitDelay = pipeGrace
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
	select {
	case <-arrived:
	case err := <-exited:
		t.Fatalf("mcpspec exited before its first request: %v\n%s", err, stderr.String())
	case <-time.After(serverAppearTimeout):
		t.Fatalf("no request reached the authorization server within %s", serverAppearTimeout)
	}
	interruptAndAwaitExit(t, cmd, exited, syscall.SIGINT, &stdout, &stderr)
	assertReports(t, out)
	if !strings.Contains(stderr.String(), "interrupted") {
		t.Errorf("stderr does not say the run was interrupted:\n%s", stderr.String())
	}
}

// TestListMarksAuthServerChecks: `mcpspec list` counts every AS row as implemented, with its
// fault in the reference authorization server and its per-revision level.
func TestListMarksAuthServerChecks(t *testing.T) {
	entries, err := listEntries()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		if e.Area != "as" {
			continue
		}
		n++
		if !e.Implemented || !e.HasFault || !e.AuthServer {
			t.Errorf("%s: implemented %v, fault %v, authServer %v", e.ID, e.Implemented, e.HasFault, e.AuthServer)
		}
		if e.ID == "AS-PKCE-S256" && e.Level != "MUST (SHOULD at 2025-03-26, SHOULD at 2025-06-18)" {
			t.Errorf("AS-PKCE-S256 level %q", e.Level)
		}
	}
	if n != len(refauthserver.Faults()) {
		t.Errorf("%d AS rows, %d faults", n, len(refauthserver.Faults()))
	}
}
