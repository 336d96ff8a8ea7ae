package clientsuite

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/mcpspec/mcpspec/fixtures/refclient"
	"github.com/mcpspec/mcpspec/harness/probe"
	"github.com/mcpspec/mcpspec/harness/record"
)

// The JWT bearer extensions on the wire, in process: the reference client runs against the
// probe in each scenario, clean and with each of its faults (the variants too, which the
// binary's self-test does not run), and the checks judge the recording: the clean client
// passes them all, each fault breaks its own check and no other (the others may lose their
// evidence: untestable).

// inProcessRunTimeout bounds one run of the reference client; a run ends as soon as the client
// does, well under a second on an idle machine.
const inProcessRunTimeout = 60 * time.Second

// runReference runs the reference client with faults against the probe serving scenario at
// revision, and returns the recording's view.
func runReference(t *testing.T, scenario, revision string, faults ...string) *View {
	t.Helper()
	rec := probe.NewRecorder(nil)
	srv, err := probe.StartHTTP(probe.Script{Scenario: scenario, Revision: revision, AnswerWait: 10 * time.Second}, rec)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	c := map[string]any{"scenario": scenario, "name": scenario, "protocolVersion": revision}
	for k, v := range srv.AuthContext() {
		c[k] = v
	}
	b, _ := json.Marshal(c)
	t.Setenv("MCP_CONFORMANCE_SCENARIO", scenario)
	t.Setenv("MCP_CONFORMANCE_CONTEXT", string(b))
	ctx, cancel := context.WithTimeout(context.Background(), inProcessRunTimeout)
	defer cancel()
	// A fault may stop the client's authorization: its error is the fault's doing.
	_ = refclient.Run(ctx, []string{srv.URL()}, refclient.Options{Faults: faults}, io.Discard)
	return NewView(scenario, revision, "http", revision, rec.Records(), nil)
}

func TestJWTBearerExtensionsInProcess(t *testing.T) {
	wif := []string{"WIF-CLIENT-GRANT", "WIF-CLIENT-ASSERTION", "WIF-CLIENT-RESOURCE", "AUTH-CLIENT-BEARER-HEADER"}
	ema := []string{"EMA-CLIENT-TOKEN-EXCHANGE", "EMA-CLIENT-EXCHANGE-TARGET", "EMA-CLIENT-JWT-BEARER", "AUTH-CLIENT-BEARER-HEADER"}
	cases := []struct {
		scenario, fault, breaks, says string
		checks                        []string
	}{
		{probe.AuthWIFJWTBearer, "", "", "", wif},
		{probe.AuthWIFJWTBearer, refclient.FaultWIFGrant, "WIF-CLIENT-GRANT", "carries no assertion", wif},
		{probe.AuthWIFJWTBearer, refclient.FaultWIFGrantAuthorize, "WIF-CLIENT-GRANT", "authorization request", wif},
		{probe.AuthWIFJWTBearer, refclient.FaultWIFAssertion, "WIF-CLIENT-ASSERTION", "wrong_audience_jwt", wif},
		{probe.AuthWIFJWTBearer, refclient.FaultWIFAssertionExpired, "WIF-CLIENT-ASSERTION", "expired", wif},
		{probe.AuthWIFJWTBearer, refclient.FaultWIFResource, "WIF-CLIENT-RESOURCE", `resource ""`, wif},
		{probe.AuthWIFJWTBearer, refclient.FaultAuthBearer, "AUTH-CLIENT-BEARER-HEADER", "query string", wif},
		{probe.AuthEnterpriseManaged, "", "", "", ema},
		{probe.AuthCrossAppAccess, "", "", "", ema},
		{probe.AuthEnterpriseManaged, refclient.FaultEMAExchange, "EMA-CLIENT-TOKEN-EXCHANGE", "requested_token_type", ema},
		{probe.AuthEnterpriseManaged, refclient.FaultEMATarget, "EMA-CLIENT-EXCHANGE-TARGET", "audience", ema},
		{probe.AuthEnterpriseManaged, refclient.FaultEMAJWTBearer, "EMA-CLIENT-JWT-BEARER", "not the ID-JAG", ema},
		{probe.AuthCrossAppAccess, refclient.FaultAuthBearer, "AUTH-CLIENT-BEARER-HEADER", "query string", ema},
	}
	for _, tc := range cases {
		for _, rev := range []string{"2025-06-18", "2026-07-28"} {
			t.Run(tc.scenario+"/"+tc.fault+"/"+rev, func(t *testing.T) {
				var faults []string
				if tc.fault != "" {
					faults = []string{tc.fault}
				}
				v := runReference(t, tc.scenario, rev, faults...)
				for _, id := range tc.checks {
					c, ok := Lookup(id)
					if !ok {
						t.Fatalf("%s is not registered", id)
					}
					if !c.Side.Judges(tc.scenario) {
						t.Fatalf("%s does not judge %s", id, tc.scenario)
					}
					f := c.Side.Judge(v)
					switch {
					case id == tc.breaks:
						if f.Outcome != Violation || !strings.Contains(f.Message, tc.says) {
							t.Errorf("%s: %v %s, want a violation saying %q", id, f.Outcome, f.Message, tc.says)
						}
					case tc.fault == "" && f.Outcome != Pass:
						t.Errorf("%s: %v %s, want pass", id, f.Outcome, f.Message)
					case f.Outcome != Pass && f.Outcome != Untestable:
						t.Errorf("the fault %s also made %s %v: %s", tc.fault, id, f.Outcome, f.Message)
					}
				}
			})
		}
	}
}

// A client that does not use the extensions (it runs the authorization code flow, as a client
// with a user does) is not judged by them: na, as a server that does not declare an extension.
func TestJWTBearerExtensionsNotUsed(t *testing.T) {
	recs := []record.Record{
		{Seq: 1, Dir: record.Recv, Channel: record.ChanPOST, Path: probe.Path, Header: map[string]string{"Host": "127.0.0.1:1"}, Body: `{"jsonrpc":"2.0","id":1,"method":"initialize"}`},
		{Seq: 2, Dir: record.Note, Event: &record.Event{Kind: record.EvChallenge, Status: 401, Challenge: "Bearer"}},
		{Seq: 3, Dir: record.Recv, Channel: probe.ChanOAuth, Method: "GET", Path: "/authorize", Query: "response_type=code&client_id=x"},
		{Seq: 4, Dir: record.Recv, Channel: probe.ChanOAuth, Method: "POST", Path: "/token", Header: map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, Body: "grant_type=authorization_code&code=c"},
	}
	for scenario, ids := range map[string][]string{
		probe.AuthWIFJWTBearer:      {"WIF-CLIENT-GRANT", "WIF-CLIENT-ASSERTION", "WIF-CLIENT-RESOURCE"},
		probe.AuthEnterpriseManaged: {"EMA-CLIENT-TOKEN-EXCHANGE", "EMA-CLIENT-EXCHANGE-TARGET", "EMA-CLIENT-JWT-BEARER"},
	} {
		v := NewView(scenario, "2025-11-25", "http", "2025-11-25", recs, nil)
		for _, id := range ids {
			c, _ := Lookup(id)
			if f := c.Side.Judge(v); f.Outcome != NotApplicable || !strings.Contains(f.Message, "does not use the extension") || !strings.Contains(f.Message, "record 3") {
				t.Errorf("%s: %v %s, want na naming the authorization request", id, f.Outcome, f.Message)
			}
		}
	}
}
