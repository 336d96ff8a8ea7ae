package record

// EventKind names one thing the probe did or observed that is not a message on the wire: a
// note record carries an Event of a kind, and the checks read its fields. Its Body is the same
// in words, evidence for a person only: no check parses it.
type EventKind string

// The kinds of event, with the Event fields each sets.
const (
	// Sessions and streams (Streamable HTTP, HTTP+SSE).
	EvSessionAssigned EventKind = "session-assigned" // Session: the id the probe gave the client
	EvSessionExpired  EventKind = "session-expired"  // Session: the id the probe ended (answered 404)
	EvUnknownSession  EventKind = "unknown-session"  // Session: a request's id the probe does not know
	EvStreamCut       EventKind = "stream-cut"       // EventID, RetryMs: a stream closed before its response
	EvNoResume        EventKind = "no-resume"        // EventID: a Last-Event-ID the probe has no stream after
	EvEndpoint        EventKind = "endpoint"         // URL: the endpoint event of HTTP+SSE
	EvNoSSEStream     EventKind = "no-sse-stream"    // the probe had a message to send and no stream open

	// Requests the probe sends or answers.
	EvUnanswered    EventKind = "unanswered"     // Method, RequestID: the client did not answer the probe in time
	EvHeld          EventKind = "held"           // RequestID: held past the client's timeout
	EvCancelled     EventKind = "cancelled"      // RequestID: named by the client's notifications/cancelled
	EvAnsweredLate  EventKind = "answered-late"  // RequestID or TaskID: answered after the wait, uncancelled
	EvStreamClosed  EventKind = "stream-closed"  // RequestID: the client closed a held request's POST stream before its answer
	EvTaskCreated   EventKind = "task-created"   // TaskID, RequestID: the tools/call made a task
	EvTaskCancelled EventKind = "task-cancelled" // TaskID: cancelled by tasks/cancel
	// The tasks extension (taskx.go); EvTaskCreated there sets PollMs too.
	EvTaskPolled    EventKind = "task-polled"    // TaskID, PollMs, SinceMs, Status, Keys (the inputRequests asked)
	EvTaskUpdated   EventKind = "task-updated"   // TaskID, Keys: the inputResponses' keys of a tasks/update
	EvInputRequired EventKind = "input-required" // RequestState: the probe answered a call input-required
	EvEmptyCursor   EventKind = "empty-cursor"   // the probe sent nextCursor ""
	EvCursorIssued  EventKind = "cursor-issued"  // Cursor: a nextCursor the probe sent
	EvUnknownCursor EventKind = "unknown-cursor" // Cursor (the client's), Page (the one it answered with): a cursor the probe never issued
	EvLastPage      EventKind = "last-page"      // the probe served a list's last page

	// Subscriptions (2026-07-28) and the stdio connection.
	EvSubscribed    EventKind = "subscribed"     // SubscriptionID: the listen request's id
	EvForeignChange EventKind = "foreign-change" // SubscriptionID: a change sent for another subscription
	EvOwnChange     EventKind = "own-change"     // SubscriptionID: a change sent for the client's
	EvHangup        EventKind = "hangup"         // the probe ended the connection
	EvRelaunch      EventKind = "relaunch"       // the client launched the probe again

	// The authorization server and the gated MCP endpoint.
	EvChallenge     EventKind = "challenge"      // Status, Challenge, Error, Expired: a refusal for want of authorization
	EvTokenAccepted EventKind = "token-accepted" // Token: the endpoint served a request with it
	EvTokenIssued   EventKind = "token-issued"   // Token, Grant, Resource, Scope, Issuer
	EvCodeIssued    EventKind = "code-issued"    // Issuer: the iss of the authorization response ("" none)
	EvMigrated      EventKind = "migrated"       // Issuer: the protected resource metadata names it from now on
	EvCrossAS       EventKind = "cross-as"       // ClientID, Issuer (presented at), RegisteredAt
	EvCIMD          EventKind = "cimd"           // ClientID, CIMD, RedirectURIs: what the server did with a URL client_id
	EvCIMDGrants    EventKind = "cimd-grants"    // GrantTypes: those of the document fetched
	EvAssertion     EventKind = "assertion"      // Verified: whether a client_assertion verified

	// DPoP (RFC 9449; auth/dpop, auth/dpop-nonce).
	EvDPoPBound   EventKind = "dpop-bound"   // Token, JKT: the token endpoint bound a token to a proof's key
	EvDPoPProof   EventKind = "dpop-proof"   // JTI, At: a request carried a proof, at the probe's clock (unix seconds)
	EvDPoPRefused EventKind = "dpop-refused" // the token endpoint refused a proof (why: the words)
	EvDPoPNonce   EventKind = "dpop-nonce"   // Server, Nonce: a server refused a proof for want of its nonce

	// Workload identity and enterprise-managed authorization (jwt-bearer, token exchange).
	EvJWTBearer       EventKind = "jwt-bearer"       // Verified or Refusal, JWT: what the token endpoint made of a jwt-bearer request
	EvExchangeSubject EventKind = "exchange-subject" // JWT: which JWT a token exchange's subject_token was
	EvTokenExchange   EventKind = "token-exchange"   // Verified: the IdP issued an ID-JAG (else it refused)

	// The recording itself.
	EvDropped EventKind = "dropped" // Count: records not kept
)

// The servers that ask a DPoP nonce (Event.Server).
const (
	DPoPAuthorizationServer = "token endpoint"
	DPoPResourceServer      = "resource"
)

// What the authorization server did with a Client ID Metadata Document URL (Event.CIMD).
const (
	CIMDFetched    = "fetched"     // fetched, and it names itself and the redirect URI
	CIMDMismatch   = "mismatch"    // fetched, but it names another client_id or not the redirect URI
	CIMDUnfetched  = "unfetchable" // the fetch failed
	CIMDNotFetched = "not-fetched" // off loopback: taken as it is, never fetched
)

// Event is what a note record says, as data. Only the fields its Kind names are set.
type Event struct {
	Kind EventKind `json:"kind"`
	// RequestID is a JSON-RPC id as compact JSON (`4`, `"a"`).
	RequestID      string `json:"requestId,omitempty"`
	Method         string `json:"method,omitempty"`
	Session        string `json:"session,omitempty"`
	EventID        string `json:"eventId,omitempty"`
	RetryMs        int    `json:"retryMs,omitempty"`
	URL            string `json:"url,omitempty"`
	TaskID         string `json:"taskId,omitempty"`
	RequestState   string `json:"requestState,omitempty"`
	Cursor         string `json:"cursor,omitempty"`
	Page           int    `json:"page,omitempty"`
	SubscriptionID string `json:"subscriptionId,omitempty"`
	Count          int    `json:"count,omitempty"`
	// The tasks extension: a task's pollIntervalMs as the probe gave it; the milliseconds from
	// the probe's last word on the task (its creation or a tasks/get answer) to this tasks/get,
	// a bound the client's wait cannot exceed; the status answered; inputRequests or
	// inputResponses keys.
	PollMs     int      `json:"pollMs,omitempty"`
	SinceMs    int64    `json:"sinceMs,omitempty"`
	TaskStatus string   `json:"taskStatus,omitempty"`
	Keys       []string `json:"keys,omitempty"`

	// Status and Challenge are the HTTP status and WWW-Authenticate of a refusal; Error its
	// error code (invalid_token, insufficient_scope; "" for a request without a token); Expired
	// that the token was refused as expired.
	Status    int    `json:"status,omitempty"`
	Challenge string `json:"challenge,omitempty"`
	Error     string `json:"error,omitempty"`
	Expired   bool   `json:"expired,omitempty"`
	// Token is an access token's label (what Credential.Label shows where a request carried it).
	Token        string   `json:"token,omitempty"`
	Grant        string   `json:"grant,omitempty"`
	Resource     string   `json:"resource,omitempty"`
	Scope        string   `json:"scope,omitempty"`
	Issuer       string   `json:"issuer,omitempty"`
	RegisteredAt string   `json:"registeredAt,omitempty"`
	ClientID     string   `json:"clientId,omitempty"`
	CIMD         string   `json:"cimd,omitempty"`
	RedirectURIs []string `json:"redirectUris,omitempty"`
	GrantTypes   []string `json:"grantTypes,omitempty"`
	Verified     bool     `json:"verified,omitempty"`
	// JWT is which JWT a request carried (a context field's name, JWTIssuedIDJAG, JWTForeign, ""
	// none); Refusal why a jwt-bearer request was not taken (JWTBearer*).
	JWT     string `json:"jwt,omitempty"`
	Refusal string `json:"refusal,omitempty"`
	// DPoP: the thumbprint of a token's key, a proof's jti and when it came, the server that
	// asked a nonce and the nonce.
	JKT    string `json:"jkt,omitempty"`
	JTI    string `json:"jti,omitempty"`
	At     int64  `json:"at,omitempty"`
	Server string `json:"server,omitempty"`
	Nonce  string `json:"nonce,omitempty"`
}

// Where a request carried a credential (Credential.In).
const (
	InHeader = "header"
	InQuery  = "query"
	InForm   = "form"
)

// The kinds of secret the authorization server labels (Credential.Kind).
const (
	SecretAccessToken  = "access_token"      // one the probe issued
	SecretRefreshToken = "refresh_token"     // a refresh_token parameter (issued or not)
	SecretUnknownToken = "unknown-token"     // a bearer token the probe never issued
	SecretCode         = "code"              // an authorization code
	SecretClientSecret = "client_secret"     // a client secret
	SecretVerifier     = "code_verifier"     // a PKCE code verifier
	SecretAssertion    = "client_assertion"  // a private_key_jwt assertion
	SecretBasic        = "basic-credentials" // a Basic Authorization header's credentials
	SecretOther        = "credentials"       // an Authorization header of another scheme
)

// Credential is a secret a recorded request carried, as the probe knows it: never its value.
// The record's text shows Label where the secret stood.
type Credential struct {
	In    string `json:"in"`   // InHeader, InQuery, InForm
	Name  string `json:"name"` // the header or parameter
	Kind  string `json:"kind"` // Secret*
	Label string `json:"label"`
	// Of a code verifier: whether it has RFC 7636's syntax, and the S256 challenge it yields
	// (public: it travelled in the authorization request).
	VerifierOK bool   `json:"verifierOk,omitempty"`
	S256       string `json:"s256,omitempty"`
	// Of an access token in a DPoP scenario: its ath, the base64url SHA-256 a proof of its use
	// must carry.
	ATH string `json:"ath,omitempty"`
}

// Is reports whether the record is a note of kind k.
func (r Record) Is(k EventKind) bool { return r.Dir == Note && r.Event != nil && r.Event.Kind == k }

// Cred returns the credential the request carried in the header or parameter name, if any.
func (r Record) Cred(in, name string) (Credential, bool) {
	for _, c := range r.Creds {
		if c.In == in && c.Name == name {
			return c, true
		}
	}
	return Credential{}, false
}
