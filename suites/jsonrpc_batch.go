package suites

import (
	"fmt"
	"strings"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/harness/jsonrpc"
	"github.com/mcpspec/mcpspec/harness/wire"
	"github.com/mcpspec/mcpspec/suites/conform"
)

// Checks of JSON-RPC 2.0 §6 batches: part of MCP at 2025-03-26 only, refused from 2025-06-18 on.

func init() {
	conform.Register(
		conform.Check{ID: "BATCH-SUPPORT-2503", Level: "MUST", Revisions: conform.AllCatalogued, Transports: allTransports,
			Summary: "a batch of requests is answered with one response per request, matched by id, even with 100 requests",
			Side:    conform.Server{JSONRPC: true, Run: checkBatchSupport}},
		conform.Check{ID: "BATCH-EMPTY", Level: "MUST", Revisions: conform.AllCatalogued, Transports: allTransports,
			Summary: "an empty batch gets one -32600 error with a null id, not an array",
			Side:    conform.Server{JSONRPC: true, Run: checkBatchEmpty}},
		conform.Check{ID: "BATCH-INVALID-JSON", Level: "MUST", Revisions: conform.AllCatalogued, Transports: allTransports,
			Summary: "a batch that is not valid JSON gets one -32700 error with a null id, not an array",
			Side:    conform.Server{JSONRPC: true, Run: checkBatchInvalidJSON}},
		conform.Check{ID: "BATCH-INVALID-ONE", Level: "SHOULD", Revisions: conform.AllCatalogued, Transports: allTransports,
			Summary: "a batch of one invalid element gets an array holding one -32600 error with a null id",
			Side:    conform.Server{JSONRPC: true, Run: checkBatchInvalid(1)}},
		conform.Check{ID: "BATCH-INVALID-MANY", Level: "SHOULD", Revisions: conform.AllCatalogued, Transports: allTransports,
			Summary: "a batch of three invalid elements gets an array of three -32600 errors with null ids",
			Side:    conform.Server{JSONRPC: true, Run: checkBatchInvalid(3)}},
		conform.Check{ID: "BATCH-RESPOND-ARRAY", Level: "SHOULD", Revisions: conform.AllCatalogued, Transports: stdioOnly,
			Summary:     "the responses to a batch come back together as one array",
			LevelReason: "JSON-RPC's lower-case 'should'. Over HTTP an SSE stream may carry them one by one (2025-03-26 allows it), so the check runs over stdio; BATCH-HTTP-2503 covers HTTP.",
			Side:        conform.Server{JSONRPC: true, Run: checkBatchRespondArray}},
		conform.Check{ID: "BATCH-NO-NOTIF-RESPONSES", Level: "SHOULD", Revisions: conform.AllCatalogued, Transports: allTransports,
			Summary: "notifications inside a batch get no response; the requests beside them do",
			Side:    conform.Server{JSONRPC: true, Run: checkBatchNoNotificationResponses}},
		conform.Check{ID: "BATCH-ALL-NOTIFICATIONS", Level: "MUST", Revisions: conform.AllCatalogued, Transports: allTransports,
			Summary: "a batch of only notifications is answered with nothing at all, never an empty array",
			Side:    conform.Server{JSONRPC: true, Run: checkBatchAllNotifications}},
		conform.Check{ID: "BATCH-MIXED", Level: "SHOULD", Revisions: conform.AllCatalogued, Transports: allTransports,
			Summary:     "a batch mixing a request, an invalid element, an unknown method and a notification gets exactly the three right responses",
			LevelReason: "JSON-RPC §6 says a response SHOULD exist for each request; §7's example fixes their shape.",
			Side:        conform.Server{JSONRPC: true, Run: checkBatchMixed}},
		conform.Check{ID: "BATCH-HTTP-2503", Level: "MUST", Revisions: conform.AllCatalogued, Transports: httpOnly,
			Summary: "a POSTed batch of requests gets every response (JSON array or SSE); a POSTed batch of notifications gets 202 with no body",
			Side:    conform.Server{Run: checkBatchHTTP}},
		conform.Check{ID: "BATCH-REMOVED", Level: "SHOULD",
			Revisions: conform.AllCatalogued, Transports: allTransports,
			Summary:     "from 2025-06-18 on a batch is rejected unprocessed: one -32600 error with a null id, or HTTP 400",
			LevelReason: "2025-06-18 removed batching without saying how to refuse one; mcpspec expects a -32600 error with a null id or an HTTP 400 and warns otherwise (processing it included), but a server that dies on it fails.",
			Side:        conform.Server{Run: checkBatchRemoved}},
	)
}

// largeBatch is how many requests the large-batch probe carries.
const largeBatch = 100

// batchReply is everything that came back for a batch.
type batchReply struct {
	msgs     []wire.Received // every message after the batch was sent, sentinel answer excluded
	delivery *wire.Delivery
}

// elements are the response objects received, whether in arrays or alone.
func (b batchReply) elements() []jsonrpc.Message {
	var out []jsonrpc.Message
	for _, r := range b.msgs {
		for _, m := range flatten(r.Msg) {
			if m.Kind == jsonrpc.Response || m.Kind == jsonrpc.Invalid {
				out = append(out, m)
			}
		}
	}
	return out
}

func (b batchReply) describe() string {
	if len(b.msgs) == 0 {
		return "nothing"
	}
	var parts []string
	for _, r := range b.msgs {
		parts = append(parts, clip(string(r.Msg.Raw), 300))
	}
	return strings.Join(parts, " | ")
}

// sendBatch sends frame, waits for the responses to ids (bounded), then proves the rest is
// silence with a sentinel ping. A server that does not answer the sentinel crashed or hung.
func sendBatch(t *conform.T, frame []byte, ids ...jsonrpc.ID) (batchReply, *conform.Finding) {
	from := t.S.Mark()
	d, err := t.S.Send(t.Ctx, frame)
	if err != nil {
		f := conform.Crashed("sending the batch: %v", err)
		return batchReply{}, &f
	}
	if len(ids) > 0 {
		want := map[jsonrpc.ID]bool{}
		for _, id := range ids {
			want[id] = true
		}
		seen := map[jsonrpc.ID]bool{}
		// Judged below from what did come; this only waits until everything asked is in.
		_, _ = awaitProbe(t, d, from, func(r wire.Received) bool {
			for _, m := range flatten(r.Msg) {
				if m.Kind == jsonrpc.Response && want[m.ID] {
					seen[m.ID] = true
				}
			}
			return len(seen) == len(want)
		})
	}
	if err := d.Finished(t.Ctx); err != nil {
		f := conform.Violated("the batch's HTTP response did not complete: %v", err)
		return batchReply{}, &f
	}
	msgs, err := t.S.Quiet(t.Ctx, from)
	msgs = replies(msgs)
	if err != nil {
		f := conform.Crashed("after the batch the server stopped serving: %v", err)
		return batchReply{msgs: msgs, delivery: d}, &f
	}
	rep := batchReply{msgs: msgs, delivery: d}
	noteUnanswered(t, rep, ids)
	return rep, nil
}

// noteUnanswered records each of the batch's requests that got no response, now that the
// server has answered what was sent after the batch: they were left unanswered, which breaks
// a MUST whatever the check (conform.RuleReplyRequired). A batch refused with an HTTP error
// status was answered by the transport.
func noteUnanswered(t *conform.T, rep batchReply, ids []jsonrpc.ID) {
	if d := rep.delivery; d != nil && d.Status >= 400 {
		return
	}
	answered := map[jsonrpc.ID]bool{}
	for _, m := range rep.elements() {
		if m.Kind == jsonrpc.Response && m.HasID {
			answered[m.ID] = true
		}
	}
	for _, id := range ids {
		if !answered[id] {
			t.S.NoteUnanswered(id, "the batch holding it was answered without a response to it, though a request sent after it was answered")
		}
	}
}

// batchNotifications are two notifications every server knows: a batch of them has nothing to
// answer, and a server has no reason to refuse them.
func batchNotifications(t *conform.T) [][]byte {
	return [][]byte{
		rawNotification("notifications/initialized", nil),
		rawNotification("notifications/cancelled", map[string]any{"requestId": jsonrpc.StringID("mcpspec:never-sent:" + strings.Trim(t.S.NextID().Text(), `"`)).JSON(), "reason": "mcpspec"}),
	}
}

// pingBatch builds n ping requests (server/discover at 2026-07-28) with fresh ids.
func pingBatch(t *conform.T, n int) ([][]byte, []jsonrpc.ID) {
	var frames [][]byte
	var ids []jsonrpc.ID
	for i := 0; i < n; i++ {
		id := t.S.NextID()
		if i%2 == 1 {
			id = t.S.NextNumberID() // mix string and number ids
		}
		ids = append(ids, id)
		frames = append(frames, probeRequest(t.S, id))
	}
	return frames, ids
}

// answeredOnce checks that every id got exactly one answer (see answers), and nothing else
// came back.
func answeredOnce(s *harness.Session, got []jsonrpc.Message, ids []jsonrpc.ID) error {
	want := map[jsonrpc.ID]int{}
	for _, id := range ids {
		want[id] = 0
	}
	for _, m := range got {
		if _, asked := want[m.ID]; !asked || m.Kind != jsonrpc.Response {
			return fmt.Errorf("a response that answers nothing that was asked: %s", show(m))
		}
		if !answers(s, m) {
			return fmt.Errorf("request %s failed: %s", m.ID.Text(), show(m))
		}
		want[m.ID]++
	}
	for _, id := range ids {
		if want[id] != 1 {
			return fmt.Errorf("request %s got %d responses, want 1", id.Text(), want[id])
		}
	}
	return nil
}

func checkBatchSupport(t *conform.T) conform.Finding {
	// A pair with look-alike ids ("n" and n) and a list request beside a ping.
	n := t.S.NextNumberID()
	alike := jsonrpc.StringID(string(n))
	listID := t.S.NextID()
	frame := jsonrpc.BatchOf(rawRequest(n, "ping", nil), rawRequest(alike, "ping", nil), rawRequest(listID, listMethod(t.S), nil))
	rep, f := sendBatch(t, frame, n, alike, listID)
	if f != nil {
		return *f
	}
	if err := answeredOnce(t.S, rep.elements(), []jsonrpc.ID{n, alike, listID}); err != nil {
		return conform.Violated("batch of three requests: %v; received: %s", err, rep.describe())
	}
	frames, ids := pingBatch(t, largeBatch)
	rep, f = sendBatch(t, jsonrpc.BatchOf(frames...), ids...)
	if f != nil {
		return *f
	}
	if err := answeredOnce(t.S, rep.elements(), ids); err != nil {
		return conform.Violated("batch of %d pings: %v", largeBatch, err)
	}
	return conform.Passed("")
}

// singleNullError judges a reply that must be one error object (not an array) with code and a
// null (or absent) id.
func singleNullError(rep batchReply, code int64) error {
	if len(rep.msgs) != 1 {
		return fmt.Errorf("want exactly one reply, got %d: %s", len(rep.msgs), rep.describe())
	}
	m := rep.msgs[0].Msg
	if m.Kind == jsonrpc.Batch {
		return fmt.Errorf("want a single error object, got an array: %s", show(m))
	}
	if ok, why := expectError(m, code); !ok {
		return fmt.Errorf("%s", why)
	}
	if m.HasID && !m.ID.IsNull() {
		return fmt.Errorf("the error's id is %s, want null: %s", m.ID.Text(), show(m))
	}
	return nil
}

func checkBatchEmpty(t *conform.T) conform.Finding {
	rep, f := sendBatch(t, []byte("[]"))
	if f != nil {
		return *f
	}
	if err := singleNullError(rep, codeInvalidRequest); err != nil {
		return conform.Violated("[]: %v", err)
	}
	return conform.Passed("")
}

func checkBatchInvalidJSON(t *conform.T) conform.Finding {
	const frame = `[{"jsonrpc":"2.0","method":"sum","params":[1,2,4],"id":"1"},{"jsonrpc":"2.0","method"]`
	rep, f := sendBatch(t, []byte(frame))
	if f != nil {
		return *f
	}
	if err := singleNullError(rep, codeParseError); err != nil {
		return conform.Violated("a batch that is not valid JSON: %v", err)
	}
	return conform.Passed("")
}

func checkBatchInvalid(n int) func(t *conform.T) conform.Finding {
	return func(t *conform.T) conform.Finding {
		var elems []string
		for i := 1; i <= n; i++ {
			elems = append(elems, fmt.Sprint(i))
		}
		frame := "[" + strings.Join(elems, ",") + "]"
		rep, f := sendBatch(t, []byte(frame))
		if f != nil {
			return *f
		}
		if len(rep.msgs) != 1 || rep.msgs[0].Msg.Kind != jsonrpc.Batch {
			return conform.Violated("%s: want one array of %d errors, got %s", frame, n, rep.describe())
		}
		got := rep.msgs[0].Msg.Elems
		if len(got) != n {
			return conform.Violated("%s: want %d errors in the array, got %d: %s", frame, n, len(got), rep.describe())
		}
		for _, m := range got {
			if ok, why := expectError(m, codeInvalidRequest); !ok {
				return conform.Violated("%s: %s", frame, why)
			}
			if m.HasID && !m.ID.IsNull() {
				return conform.Violated("%s: an error with id %s, want null", frame, m.ID.Text())
			}
		}
		return conform.Passed("")
	}
}

func checkBatchRespondArray(t *conform.T) conform.Finding {
	frames, ids := pingBatch(t, 2)
	rep, f := sendBatch(t, jsonrpc.BatchOf(frames...), ids...)
	if f != nil {
		return *f
	}
	if len(rep.msgs) != 1 || rep.msgs[0].Msg.Kind != jsonrpc.Batch {
		return conform.Violated("want the two responses in one array, got %d message(s): %s", len(rep.msgs), rep.describe())
	}
	if err := answeredOnce(t.S, rep.elements(), ids); err != nil {
		return conform.Violated("%v", err)
	}
	return conform.Passed("")
}

func checkBatchNoNotificationResponses(t *conform.T) conform.Finding {
	a, b := t.S.NextID(), t.S.NextNumberID()
	frame := jsonrpc.BatchOf(rawRequest(a, "ping", nil), batchNotifications(t)[1], rawRequest(b, "ping", nil))
	rep, f := sendBatch(t, frame, a, b)
	if f != nil {
		return *f
	}
	if err := answeredOnce(t.S, rep.elements(), []jsonrpc.ID{a, b}); err != nil {
		return conform.Violated("[request, notification, request]: %v; received: %s", err, rep.describe())
	}
	return conform.Passed("")
}

func checkBatchAllNotifications(t *conform.T) conform.Finding {
	rep, f := sendBatch(t, jsonrpc.BatchOf(batchNotifications(t)...))
	if f != nil {
		return *f
	}
	var answered []wire.Received
	for _, r := range rep.msgs {
		if !rejectedOverHTTP(r) {
			answered = append(answered, r)
		}
	}
	if len(answered) > 0 {
		return conform.Violated("a batch of notifications was answered: %s", batchReply{msgs: answered}.describe())
	}
	if d := rep.delivery; d != nil && d.Status < 400 && len(strings.TrimSpace(string(d.Body))) > 0 {
		return conform.Violated("a batch of notifications was answered with the body %q", clip(string(d.Body), 200))
	}
	return conform.Passed("")
}

func checkBatchMixed(t *conform.T) conform.Finding {
	a, b := t.S.NextID(), t.S.NextID()
	frame := jsonrpc.BatchOf(rawRequest(a, "ping", nil), []byte(`{"foo":"boo"}`), rawRequest(b, "foo.get", map[string]any{"name": "myself"}), batchNotifications(t)[1])
	rep, f := sendBatch(t, frame, a, b)
	if f != nil {
		return *f
	}
	got := rep.elements()
	var okA, errB, errNull int
	for _, m := range got {
		switch {
		case m.ID == a && answers(t.S, m):
			okA++
		case m.ID == b:
			if ok, _ := expectError(m, codeMethodNotFound); ok {
				errB++
			}
		case !m.HasID || m.ID.IsNull():
			if ok, _ := expectError(m, codeInvalidRequest); ok {
				errNull++
			}
		}
	}
	if len(got) != 3 || okA != 1 || errB != 1 || errNull != 1 {
		return conform.Violated("want exactly: a result for %s, -32600 with a null id, -32601 for %s; received: %s", a.Text(), b.Text(), rep.describe())
	}
	return conform.Passed("")
}

func checkBatchHTTP(t *conform.T) conform.Finding {
	frames, ids := pingBatch(t, 2)
	rep, f := sendBatch(t, jsonrpc.BatchOf(frames...), ids...)
	if f != nil {
		return *f
	}
	d := rep.delivery
	if d.Status != 200 {
		return conform.Violated("a POSTed batch of requests got HTTP %d, want 200", d.Status)
	}
	if err := answeredOnce(t.S, rep.elements(), ids); err != nil {
		return conform.Violated("a POSTed batch of requests: %v", err)
	}
	notes := jsonrpc.BatchOf(batchNotifications(t)...)
	rep, f = sendBatch(t, notes)
	if f != nil {
		return *f
	}
	if d := rep.delivery; d.Status != 202 || len(d.Body) > 0 {
		return conform.Violated("a POSTed batch of notifications got HTTP %d with a %d-byte body, want 202 with none", d.Status, len(d.Body))
	}
	return conform.Passed("")
}

func checkBatchRemoved(t *conform.T) conform.Finding {
	frames, ids := pingBatch(t, 2)
	rep, f := sendBatch(t, jsonrpc.BatchOf(frames...))
	if f != nil {
		return *f
	}
	for _, m := range rep.elements() {
		for _, id := range ids {
			if m.ID == id {
				return conform.Violated("a batch was processed at %s, where batching no longer exists: %s", t.Revision, rep.describe())
			}
		}
	}
	if d := rep.delivery; d != nil && d.Status == 400 {
		return conform.Passed("rejected with HTTP 400")
	}
	if err := singleNullError(rep, codeInvalidRequest); err != nil {
		status := ""
		if d := rep.delivery; d != nil && d.Status != 0 {
			status = fmt.Sprintf(" (HTTP %d)", d.Status)
		}
		return conform.Violated("a batch at %s was not rejected as expected%s: %v", t.Revision, status, err)
	}
	return conform.Passed("")
}
