package harness

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcpspec/mcpspec/harness/jsonrpc"
	"github.com/mcpspec/mcpspec/harness/schema"
	"github.com/mcpspec/mcpspec/harness/stdio"
	"github.com/mcpspec/mcpspec/harness/streamhttp"
	"github.com/mcpspec/mcpspec/harness/wire"
)

// ClientInfo is how the harness introduces itself.
var ClientInfo = map[string]any{"name": "mcpspec", "version": "0.1.0"}

// Session is a connection at one protocol revision: after initialize (Open) or raw (Attach).
type Session struct {
	Conn      wire.Conn
	Requested string // the revision asked for
	env       *Env

	mu          sync.Mutex
	negotiated  string
	initialized bool
	init        jsonrpc.Message
	schemaErrs  []SchemaViolation
	owner       string
	methods     map[jsonrpc.ID]string     // method of each request the harness sent, by id
	timeouts    int                       // waits that ran out: the server may be hanging
	sentinels   map[jsonrpc.ID]bool       // ids of the sentinel pings sent so far
	tokens      map[jsonrpc.ID]jsonrpc.ID // progress token → the request that carried it
	unanswered  []Unanswered              // requests whose wait for a response gave up
	stateless   bool                      // the stateless era: _meta on every request, no ping
	plain       bool                      // JSON-RPC profile: no MCP at all (RevJSONRPC)
	initTook    time.Duration             // from sending initialize to its answer (Open)
}

// InitTook is how long the server took to answer the session's initialize, counted from when
// it was sent (over stdio the server's start included); 0 for a session not opened by Open or
// whose initialize was not answered.
func (s *Session) InitTook() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.initTook
}

// SentinelMethod is the sentinel of a plain JSON-RPC session (the JSON-RPC profile): a method no
// server serves, so any answer, an error included, shows the server read on.
const SentinelMethod = "mcpspec/sentinel"

// JSONRPCOnly reports whether the session is plain JSON-RPC 2.0 (the JSON-RPC profile): no
// handshake, no MCP method known to be served.
func (s *Session) JSONRPCOnly() bool { return s.plain }

// Sentinel sends a ping whose only purpose is to be answered after everything sent before it;
// its answer is never counted as a reply to anything else (see Quiet). A plain JSON-RPC session
// sends a request for SentinelMethod instead, whose error answer serves as well.
func (s *Session) Sentinel(ctx context.Context) (jsonrpc.ID, *wire.Delivery, error) {
	id := s.NextID()
	s.mu.Lock()
	if s.sentinels == nil {
		s.sentinels = map[jsonrpc.ID]bool{}
	}
	s.sentinels[id] = true
	s.mu.Unlock()
	// The stateless revision has no ping; server/discover is served by every such server.
	method := "ping"
	switch {
	case s.Stateless():
		method = "server/discover"
	case s.plain:
		method = SentinelMethod
	}
	frame, err := jsonrpc.NewRequest(id, method, s.withMeta(nil))
	if err != nil {
		return id, nil, err
	}
	s.Sent(id, method)
	d, err := s.Conn.Send(ctx, frame)
	return id, d, err
}

// Responsive reports whether the server still answers on this session: a sentinel sent now is
// answered within the request timeout. A session whose check found a violation stays in use
// only if it is; the sentinel's id names the session's current owner, so a late reply to it is
// never taken for someone else's.
func (s *Session) Responsive(ctx context.Context) bool {
	from := s.Mark()
	id, d, err := s.Sentinel(ctx)
	if err != nil {
		return false
	}
	_, err = s.AwaitReply(ctx, d, from, id)
	return err == nil
}

// IsSentinelAnswer reports whether m answers one of the session's sentinel pings.
func (s *Session) IsSentinelAnswer(m jsonrpc.Message) bool {
	if m.Kind != jsonrpc.Response {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sentinels[m.ID]
}

// Timeouts counts the waits on this session that ran out of time.
func (s *Session) Timeouts() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.timeouts
}

// SchemaViolation is an inbound message that does not validate against the negotiated
// revision's schema.
type SchemaViolation struct {
	Index int // inbox position
	Err   error
	Raw   string
}

// Attach wraps a connection without initializing it; every inbound message is validated
// against the requested revision until a negotiation says otherwise. At RevJSONRPC the session
// is plain JSON-RPC (JSONRPCOnly) and validated against no MCP schema.
func Attach(conn wire.Conn, env *Env, revision string) *Session {
	s := &Session{Conn: conn, Requested: revision, env: env, owner: "session", plain: revision == RevJSONRPC}
	conn.Inbox().OnPut(s.validate)
	return s
}

// ErrNoResponse means a request got no response within the request timeout.
var ErrNoResponse = errors.New("no response")

// InitError is a server's answer to initialize that is not a usable result.
type InitError struct {
	Response jsonrpc.Message
	Status   int    // HTTP status, when the answer was an HTTP error
	Body     []byte // its body
}

func (e *InitError) Error() string {
	if e.Status != 0 && len(e.Response.Raw) == 0 {
		return fmt.Sprintf("initialize was answered with HTTP %d and no JSON-RPC response: %s", e.Status, clip(string(e.Body), 300))
	}
	return fmt.Sprintf("initialize was answered without a result: %s", clip(string(e.Response.Raw), 300))
}

// accessRefused is the error of an opening refused with HTTP 401 or 403: the server requires a
// token the run does not send, or forbids what the run sends (a token short of a scope, a
// header such as Origin it does not allow). That is no answer to judge (a run without its token
// reported the checks that open sessions of their own as MUST failures, and the revision as not
// served), but a run that cannot test: every check needs the opening.
func accessRefused(what string, d *wire.Delivery) *InfraError {
	err := fmt.Errorf("%s", clip(string(d.Body), 200))
	if c := d.Header.Get("WWW-Authenticate"); c != "" {
		err = errors.New("WWW-Authenticate: " + clip(c, 200))
	}
	if d.Status == http.StatusUnauthorized {
		return &InfraError{What: what + ` got HTTP 401: the server requires authorization; give the run a token it takes, --header "Authorization: Bearer TOKEN"`, Err: err}
	}
	return &InfraError{What: what + " got HTTP 403: the server forbids this run's requests (a token short of a scope, or a header it does not allow)", Err: err}
}

// refusesAccess says whether an HTTP status refuses the client rather than answers the request.
func refusesAccess(status int) bool {
	return status == http.StatusUnauthorized || status == http.StatusForbidden
}

// Open attaches to conn and runs the handshake: initialize at revision, then
// notifications/initialized. A target that never answers is an InfraError with its stderr.
func Open(ctx context.Context, conn wire.Conn, env *Env, revision, owner string) (*Session, error) {
	return OpenDeclaring(ctx, conn, env, revision, owner, nil)
}

// OpenDeclaring is Open with the client capabilities caps declared at initialize (nil: none),
// for a session in which the server may send requests of its own.
func OpenDeclaring(ctx context.Context, conn wire.Conn, env *Env, revision, owner string, caps map[string]any) (*Session, error) {
	s := Attach(conn, env, revision)
	s.SetOwner(owner)
	ctx, cancel := context.WithTimeout(ctx, env.Timeouts.Startup)
	defer cancel()
	id := s.NextID()
	params := InitializeParams(revision)
	if caps != nil {
		params["capabilities"] = caps
	}
	frame, err := jsonrpc.NewRequest(id, "initialize", params)
	if err != nil {
		return s, err
	}
	s.Sent(id, "initialize")
	from := conn.Inbox().Len()
	sentAt := time.Now()
	d, err := conn.Send(ctx, frame)
	if err != nil {
		return s, &InfraError{What: fmt.Sprintf("sending initialize (%s)", revision), Err: err, Stderr: conn.Diagnostics(), StderrNow: conn.Diagnostics}
	}
	r, err := s.waitFor(stopAtOversizedLine(ctx, conn, env.Timeouts.Quiet), d, from, wire.RespondsTo(id), env.Timeouts.Startup)
	resp, _ := wire.FindResponse(r.Msg, id)
	if err != nil {
		if d.Ready(ctx) == nil && d.Status >= 500 {
			return s, &InfraError{What: fmt.Sprintf("initialize (%s) was answered with HTTP %d", revision, d.Status), Err: fmt.Errorf("%s", clip(string(d.Body), 300)), Stderr: conn.Diagnostics(), StderrNow: conn.Diagnostics}
		}
		if d.Ready(ctx) == nil && refusesAccess(d.Status) {
			return s, accessRefused(fmt.Sprintf("initialize (%s)", revision), d)
		}
		// Refused with an HTTP error (over Streamable HTTP, or the POST of legacy SSE): the
		// server answered, it does not take this initialize.
		if d.Ready(ctx) == nil && d.Status >= 400 {
			return s, &InitError{Response: resp, Status: d.Status, Body: d.Body}
		}
		// A stdout line over the framing limit is read past, not parsed: the server may well
		// have answered, in a line mcpspec refuses to hold. Say so rather than "no answer".
		if v, ok := oversizedLine(conn); ok {
			return s, &InfraError{What: fmt.Sprintf("the server's answer to initialize (%s) was not read", revision),
				Err: fmt.Errorf("%s: the line was skipped", v), Stderr: conn.Diagnostics(), StderrNow: conn.Diagnostics}
		}
		return s, &InfraError{What: fmt.Sprintf("the server did not answer initialize (%s)", revision), Err: err, Stderr: conn.Diagnostics(), StderrNow: conn.Diagnostics}
	}
	s.mu.Lock()
	s.initTook = r.At.Sub(sentAt)
	s.mu.Unlock()
	if hc, ok := conn.(*streamhttp.Conn); ok && d.Ready(ctx) == nil {
		hc.SetSession(d.Header.Get(streamhttp.HeaderSession))
	}
	if err := s.Adopt(resp); err != nil {
		return s, err
	}
	nd, err := s.Notify(ctx, "notifications/initialized", nil)
	if err != nil {
		return s, &InfraError{What: "sending notifications/initialized", Err: err, Stderr: conn.Diagnostics(), StderrNow: conn.Diagnostics}
	}
	// Over HTTP, let its 202 arrive now: the next POST must not overtake it, and its answer
	// belongs to the handshake's evidence, not to the next check's.
	if nd.CarriesReplies {
		_ = nd.Finished(ctx)
	}
	return s, nil
}

// InitializeParams are the harness's initialize params at revision: no client capabilities, so
// the server has no reason to send requests of its own.
func InitializeParams(revision string) map[string]any {
	return map[string]any{"protocolVersion": revision, "capabilities": map[string]any{}, "clientInfo": ClientInfo}
}

// Adopt takes an initialize response as this session's: the negotiated revision, and over HTTP the
// session id and protocol-version header for later requests.
func (s *Session) Adopt(resp jsonrpc.Message) error {
	obj, ok := resp.ResultObject()
	if !ok {
		return &InitError{Response: resp}
	}
	var version string
	_ = json.Unmarshal(obj["protocolVersion"], &version)
	s.mu.Lock()
	s.init, s.negotiated, s.initialized = resp, version, true
	s.mu.Unlock()
	if hc, ok := s.Conn.(*streamhttp.Conn); ok {
		if version >= Rev20250618 && IsKnownRevision(version) {
			hc.SetProtocolVersion(version)
		}
	}
	return nil
}

// Negotiated is the revision the server answered with ("" before initialize).
func (s *Session) Negotiated() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.negotiated
}

// Revision is the revision messages are judged by: the negotiated one, else the requested one.
func (s *Session) Revision() string {
	if n := s.Negotiated(); IsKnownRevision(n) {
		return n
	}
	return s.Requested
}

// InitResponse is the server's initialize response.
func (s *Session) InitResponse() jsonrpc.Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.init
}

// InitResult returns the members of the initialize result.
func (s *Session) InitResult() map[string]json.RawMessage {
	obj, _ := s.InitResponse().ResultObject()
	return obj
}

// HasCapability reports whether the server declared capability name (e.g. "tools").
func (s *Session) HasCapability(name string) bool {
	var caps map[string]json.RawMessage
	_ = json.Unmarshal(s.InitResult()["capabilities"], &caps)
	_, ok := caps[name]
	return ok
}

// ServerInfo returns serverInfo as the server sent it.
func (s *Session) ServerInfo() map[string]any {
	var info map[string]any
	_ = json.Unmarshal(s.InitResult()["serverInfo"], &info)
	return info
}

// SetOwner names the check now using the session; new ids carry the name.
func (s *Session) SetOwner(owner string) {
	s.mu.Lock()
	s.owner = owner
	s.mu.Unlock()
}

func (s *Session) currentOwner() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.owner
}

// Env returns the run environment.
func (s *Session) Env() *Env { return s.env }

// NextID returns a fresh string id owned by the current check.
func (s *Session) NextID() jsonrpc.ID { return s.env.IDs.String(s.currentOwner()) }

// NextNumberID returns a fresh integer id owned by the current check.
func (s *Session) NextNumberID() jsonrpc.ID { return s.env.IDs.Number(s.currentOwner()) }

// Request sends a request with a fresh id and waits for its response, bounded by the request
// timeout.
func (s *Session) Request(ctx context.Context, method string, params any) (jsonrpc.Message, error) {
	return s.RequestWithID(ctx, s.NextID(), method, params)
}

// RequestWithID is Request with a chosen id.
func (s *Session) RequestWithID(ctx context.Context, id jsonrpc.ID, method string, params any) (jsonrpc.Message, error) {
	frame, err := jsonrpc.NewRequest(id, method, s.withMeta(params))
	if err != nil {
		return jsonrpc.Message{}, err
	}
	s.Sent(id, method)
	return s.Exchange(ctx, id, frame)
}

// Exchange sends any frame and waits for the response with id.
func (s *Session) Exchange(ctx context.Context, id jsonrpc.ID, frame []byte) (jsonrpc.Message, error) {
	from := s.Conn.Inbox().Len()
	d, err := s.Conn.Send(ctx, frame)
	if err != nil {
		return jsonrpc.Message{}, err
	}
	return s.AwaitReply(ctx, d, from, id)
}

// AwaitReply is Await that also gives up as soon as the delivery that should carry the reply
// (an HTTP response) has ended without it.
func (s *Session) AwaitReply(ctx context.Context, d *wire.Delivery, from int, id jsonrpc.ID) (jsonrpc.Message, error) {
	r, err := s.WaitFor(ctx, d, from, wire.RespondsTo(id))
	return s.reply(ctx, d, id, r, err)
}

// AwaitReplyBy is AwaitReply for a caller with its own measure of how long the server may take:
// the wait ends at deadline, whether or not the server has said anything yet (where AwaitReply
// would give a first answer the startup timeout), and its error names the wait as lasting from
// start to deadline. A deadline already past still takes a reply that has arrived.
func (s *Session) AwaitReplyBy(ctx context.Context, d *wire.Delivery, from int, id jsonrpc.ID, start, deadline time.Time) (jsonrpc.Message, error) {
	r, err := s.waitUntil(ctx, d, from, wire.RespondsTo(id), deadline, deadline.Sub(start).Round(time.Millisecond))
	return s.reply(ctx, d, id, r, err)
}

// reply is the end of AwaitReply: the response to id in r, or the wait's error, noted as the
// request left unanswered where the server had its chance.
func (s *Session) reply(ctx context.Context, d *wire.Delivery, id jsonrpc.ID, r wire.Received, err error) (jsonrpc.Message, error) {
	if err != nil {
		err = fmt.Errorf("%w to id %s: %v", ErrNoResponse, id.Text(), err)
		// A wait the caller's own context ended proves nothing about the server, and an HTTP
		// error status is the transport's answer to the request.
		if ctx.Err() == nil && (d == nil || d.Status < 400) {
			s.NoteUnanswered(id, err.Error())
		}
		return jsonrpc.Message{}, err
	}
	resp, _ := wire.FindResponse(r.Msg, id)
	return resp, nil
}

// errDeliveryEnded: the HTTP response that should have carried the reply ended without it.
var errDeliveryEnded = errors.New("the HTTP response ended without it")

// WaitFor waits, bounded by the request timeout, for a message matching match from inbox
// position from. With a delivery that carries replies, it stops once that delivery has ended.
func (s *Session) WaitFor(ctx context.Context, d *wire.Delivery, from int, match func(wire.Received) bool) (wire.Received, error) {
	return s.waitFor(ctx, d, from, match, s.env.Timeouts.Request)
}

func (s *Session) waitFor(ctx context.Context, d *wire.Delivery, from int, match func(wire.Received) bool, limit time.Duration) (wire.Received, error) {
	// Until a server has said anything at all it may still be starting (a fresh process in a
	// check of its own): its first answer gets the startup timeout.
	if s.Conn.Inbox().Len() == 0 && limit < s.env.Timeouts.Startup {
		limit = s.env.Timeouts.Startup
	}
	return s.waitUntil(ctx, d, from, match, time.Now().Add(limit), limit)
}

// waitUntil is waitFor ending at deadline; limit is how long the wait is said to have lasted.
func (s *Session) waitUntil(ctx context.Context, d *wire.Delivery, from int, match func(wire.Received) bool, deadline time.Time, limit time.Duration) (wire.Received, error) {
	ctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	waitCtx := ctx
	// A POST whose reply would come on another stream (legacy SSE) but that was refused with an
	// HTTP error will never be answered there: stop at the refusal.
	refusable := d != nil && !d.CarriesReplies && d.FinishedChan() != nil
	if d != nil && (d.CarriesReplies || refusable) {
		var stop context.CancelCauseFunc
		waitCtx, stop = context.WithCancelCause(ctx)
		defer stop(nil)
		go func() {
			select {
			case <-d.FinishedChan():
				if d.CarriesReplies || d.Status >= 400 {
					stop(errDeliveryEnded)
				}
			case <-waitCtx.Done():
			}
		}()
	}
	r, err := s.Conn.Inbox().Wait(waitCtx, from, match)
	if err == nil {
		return r, nil
	}
	switch {
	case errors.Is(context.Cause(waitCtx), errDeliveryEnded):
		if d.Err != nil {
			return r, fmt.Errorf("%w (%v)", errDeliveryEnded, d.Err)
		}
		if loc := d.Header.Get("Location"); d.Status/100 == 3 && loc != "" {
			return r, fmt.Errorf("%w (HTTP %d, a redirect to %q, which mcpspec follows only within the origin it was given)", errDeliveryEnded, d.Status, loc)
		}
		return r, fmt.Errorf("%w (HTTP %d)", errDeliveryEnded, d.Status)
	case errors.Is(err, context.DeadlineExceeded):
		s.mu.Lock()
		s.timeouts++
		s.mu.Unlock()
		return r, fmt.Errorf("nothing within %s", limit)
	}
	return r, err
}

// Await waits, from inbox position from, for the response with id.
func (s *Session) Await(ctx context.Context, from int, id jsonrpc.ID) (jsonrpc.Message, error) {
	ctx, cancel := context.WithTimeout(ctx, s.env.Timeouts.Request)
	defer cancel()
	r, err := s.Conn.Inbox().Wait(ctx, from, wire.RespondsTo(id))
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return jsonrpc.Message{}, fmt.Errorf("%w to id %s within %s", ErrNoResponse, id.Text(), s.env.Timeouts.Request)
		}
		return jsonrpc.Message{}, err
	}
	resp, _ := wire.FindResponse(r.Msg, id)
	return resp, nil
}

// Notify sends a notification.
func (s *Session) Notify(ctx context.Context, method string, params any) (*wire.Delivery, error) {
	frame, err := jsonrpc.NewNotification(method, params)
	if err != nil {
		return nil, err
	}
	return s.Conn.Send(ctx, frame)
}

// Send writes raw bytes: a message, a batch, broken JSON.
func (s *Session) Send(ctx context.Context, frame []byte) (*wire.Delivery, error) {
	return s.Conn.Send(ctx, frame)
}

// Mark is the inbox position to pass to Quiet or Since after sending something.
func (s *Session) Mark() int { return s.Conn.Inbox().Len() }

// Quiet proves silence: it sends a sentinel ping and waits for its answer (so everything sent
// before it has been read and, on one ordered connection, answered), then listens for the quiet
// window, or until no stream that could carry a message is open (wire.Drainer). It returns every message received since from except the sentinel's answer.
func (s *Session) Quiet(ctx context.Context, from int) ([]wire.Received, error) {
	id, d, err := s.Sentinel(ctx)
	if err == nil {
		_, err = s.AwaitReply(ctx, d, from, id)
	}
	if err != nil {
		return s.withoutSentinels(s.Conn.Inbox().Since(from)), fmt.Errorf("sentinel ping: %w", err)
	}
	timer := time.NewTimer(s.env.Timeouts.Quiet)
	defer timer.Stop()
	quietFrom := time.Now()
	defer func() { s.env.Stats.QuietNanos.Add(int64(time.Since(quietFrom))) }()
	// Over Streamable HTTP every message comes on a response stream the harness opened: once
	// all of them have ended the silence is proven, and the window need not run out.
	var drained <-chan struct{}
	if dr, ok := s.Conn.(wire.Drainer); ok {
		drained = dr.Drained()
	}
	select {
	case <-timer.C:
	case <-drained:
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-s.Conn.Done():
	}
	return s.withoutSentinels(s.Conn.Inbox().Since(from)), nil
}

func (s *Session) withoutSentinels(in []wire.Received) []wire.Received {
	var out []wire.Received
	for _, r := range in {
		if !s.IsSentinelAnswer(r.Msg) {
			out = append(out, r)
		}
	}
	return out
}

// Sent records that a request with id and method was sent, so its result is validated against
// the method's result schema (a response's own schema accepts any result object).
func (s *Session) Sent(id jsonrpc.ID, method string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.methods == nil {
		s.methods = map[jsonrpc.ID]string{}
	}
	s.methods[id] = method
}

// Unanswered is a request whose wait for a response gave up: the request timeout ran out, or
// the HTTP response that should have carried the reply ended without it.
type Unanswered struct {
	ID     jsonrpc.ID
	Method string // "" when the harness did not record it
	Why    string
}

// NoteUnanswered records that the request id was left unanswered, for callers that wait for a
// response by other means than AwaitReply (a batch's requests, say).
func (s *Session) NoteUnanswered(id jsonrpc.ID, why string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.unanswered = append(s.unanswered, Unanswered{ID: id, Method: s.methods[id], Why: why})
}

// UnansweredCount is how many requests have been left unanswered so far: a mark for
// UnansweredSince.
func (s *Session) UnansweredCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.unanswered)
}

// UnansweredSince returns the requests left unanswered after mark (an UnansweredCount).
func (s *Session) UnansweredSince(mark int) []Unanswered {
	s.mu.Lock()
	defer s.mu.Unlock()
	if mark >= len(s.unanswered) {
		return nil
	}
	return append([]Unanswered(nil), s.unanswered[mark:]...)
}

// NoteProgressToken records that the request id carried the progress token, so that a
// progress notification can be traced to the request it belongs to.
func (s *Session) NoteProgressToken(token, id jsonrpc.ID) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tokens == nil {
		s.tokens = map[jsonrpc.ID]jsonrpc.ID{}
	}
	s.tokens[token] = id
}

// ProgressRequest is the request that carried token, if the harness sent it on this session.
func (s *Session) ProgressRequest(token jsonrpc.ID) (jsonrpc.ID, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	id, ok := s.tokens[token]
	return id, ok
}

// resultDefinitions names the schema definition of each method's result.
var resultDefinitions = map[string]string{
	"initialize":               "InitializeResult",
	"server/discover":          "DiscoverResult",
	"subscriptions/listen":     "SubscriptionsListenResult",
	"ping":                     "EmptyResult",
	"logging/setLevel":         "EmptyResult",
	"tools/list":               "ListToolsResult",
	"tools/call":               "CallToolResult",
	"resources/list":           "ListResourcesResult",
	"resources/templates/list": "ListResourceTemplatesResult",
	"resources/read":           "ReadResourceResult",
	"prompts/list":             "ListPromptsResult",
	"prompts/get":              "GetPromptResult",
	"completion/complete":      "CompleteResult",
}

// SchemaViolations returns the inbound messages from inbox position from on that did not
// validate against the session's revision.
func (s *Session) SchemaViolations(from int) []SchemaViolation {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []SchemaViolation
	for _, v := range s.schemaErrs {
		if v.Index >= from {
			out = append(out, v)
		}
	}
	return out
}

// validate checks one inbound message against the session's revision. Replies to unreadable
// requests are exempt: JSON-RPC requires their id to be null, which the MCP schemas forbid (a
// known tension in the spec), and JRPC-ID-NULL-ON-UNREADABLE judges them instead.
func (s *Session) validate(r wire.Received) {
	if s.plain {
		return // no MCP schema binds a plain JSON-RPC server
	}
	rev := s.Revision()
	msgs := []jsonrpc.Message{r.Msg}
	if r.Msg.Kind == jsonrpc.Batch {
		msgs = r.Msg.Elems
	}
	for _, m := range msgs {
		if m.Kind == jsonrpc.Invalid || unreadableReply(m) {
			continue
		}
		err := s.env.Validator.MessageOfShape(rev, m.Raw, messageShape(m))
		if err == nil {
			err = s.validateContent(rev, m)
		}
		if err != nil {
			s.mu.Lock()
			s.schemaErrs = append(s.schemaErrs, SchemaViolation{Index: r.Index, Err: err, Raw: clip(string(m.Raw), 500)})
			s.mu.Unlock()
			s.Conn.Transcript().Notef("schema (%s): %v", rev, err)
		}
	}
}

// validateContent judges what the generic message schema lets through: a result against its
// method's result definition, a notification or request against the server's own message types.
func (s *Session) validateContent(rev string, m jsonrpc.Message) error {
	var def string
	raw := m.Raw
	switch m.Kind {
	case jsonrpc.Response:
		if !m.HasResult {
			return nil
		}
		s.mu.Lock()
		method := s.methods[m.ID]
		s.mu.Unlock()
		def, raw = resultDefinitions[method], m.Result
	case jsonrpc.Notification:
		def = "ServerNotification"
	case jsonrpc.Request:
		def = "ServerRequest"
	}
	if def == "" {
		return nil
	}
	err := s.env.Validator.Definition(rev, def, raw)
	if err != nil && errors.Is(err, schema.ErrUnknownDefinition) {
		return nil
	}
	return err
}

// messageShape is what the message schema sees of m but for its id's value: the id's JSON type
// and every member as sent (schema.Validator.MessageOfShape). "" when m is no plain object of
// the JSON-RPC members with a string or integer id (or none), which is then validated alone.
func messageShape(m jsonrpc.Message) string {
	if m.Problem != "" || m.HasOther || m.Kind == jsonrpc.Batch || len(m.Raw) > schema.MaxRemembered {
		return "" // a large message would be copied only to be forgotten (a 15 MB answer)
	}
	var b strings.Builder
	b.Grow(len(m.Raw) + 32)
	switch {
	case !m.HasID:
		b.WriteString("-")
	case m.ID.IsString():
		b.WriteString("s")
	case isIntegerLiteral(string(m.ID)):
		b.WriteString("i")
	default:
		return "" // null, or a number with a fraction or exponent
	}
	// Each member as tag, length and bytes, so that no two messages share a shape by accident.
	part := func(tag string, has bool, v string) {
		if has {
			b.WriteString(tag)
			b.WriteString(strconv.Itoa(len(v)))
			b.WriteByte(':')
			b.WriteString(v)
		}
	}
	part("v", m.HasVersion, string(m.Version))
	part("m", m.HasMethod, m.Method)
	part("p", m.Params != nil, string(m.Params))
	part("r", m.HasResult, string(m.Result))
	part("e", m.HasError, string(m.Error))
	return b.String()
}

// isIntegerLiteral reports whether s is a JSON number written as an integer: -?[0-9]+.
func isIntegerLiteral(s string) bool {
	s = strings.TrimPrefix(s, "-")
	if s == "" {
		return false
	}
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func unreadableReply(m jsonrpc.Message) bool {
	if m.Kind != jsonrpc.Response || !m.HasError || (m.HasID && !m.ID.IsNull()) {
		return false
	}
	e, _ := m.ErrorObject()
	return e.CodeInt == -32700 || e.CodeInt == -32600
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// oversizer is a connection that says when the target wrote a line over its framing limit
// (stdio).
type oversizer interface{ Oversized() <-chan struct{} }

// stopAtOversizedLine is ctx, ended once conn has read a line over its framing limit and then
// nothing more for grace (the quiet window: a line written right behind it is read by then).
// During the handshake that line is most likely the answer, which will never be read, and
// waiting for the startup timeout would only blame the server for silence.
func stopAtOversizedLine(ctx context.Context, conn wire.Conn, grace time.Duration) context.Context {
	o, ok := conn.(oversizer)
	if !ok {
		return ctx
	}
	ctx, stop := context.WithCancel(ctx)
	go func() {
		defer stop()
		select {
		case <-o.Oversized():
		case <-ctx.Done():
			return
		}
		for n := conn.Inbox().Len(); ; n = conn.Inbox().Len() {
			t := time.NewTimer(grace)
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
				return
			}
			if conn.Inbox().Len() == n {
				return // nothing came behind the line
			}
		}
	}()
	return ctx
}

// oversizedLine describes the first line conn read over its framing limit, if there was one.
func oversizedLine(conn wire.Conn) (string, bool) {
	o, ok := conn.(oversizer)
	if !ok {
		return "", false
	}
	select {
	case <-o.Oversized():
	default:
		return "", false
	}
	for _, v := range conn.Violations() {
		if v.Kind == stdio.OversizedLine {
			return v.Detail, true
		}
	}
	return "a stdout line over the framing limit", true
}
