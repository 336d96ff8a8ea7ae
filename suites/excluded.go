package suites

import "github.com/mcpspec/mcpspec/suites/conform"

// Requirements mcpspec deliberately does not turn into checks, with the reason. Client
// obligations are excluded by rule in conform.Exclusion.
func init() {
	for id, reason := range map[string]string{
		"BATCH-ANY-ORDER":            "a tolerance, not a duty: the harness matches batch responses by id and never asserts their order",
		"BATCH-CONCURRENT":           "a tolerance: no check depends on the order in which batch elements are processed",
		"BATCH-STDIO-2503":           "descriptive; BATCH-RESPOND-ARRAY checks that a batch on one stdio line is answered by one array line",
		"STDIO-STDERR":               "a permission: stderr is kept as evidence and never judged",
		"STDIO-SINGLE-MESSAGE":       "descriptive; BATCH-REMOVED checks that arrays are refused from 2025-06-18 on",
		"PROG-FLOAT":                 "a tolerance: progress values are compared as numbers, fractions included",
		"PROG-OPTIONAL":              "a permission: a tool without progress makes the progress checks untestable, never failed",
		"JRPC-SERVER-ERROR-RANGE":    "a definition of a code range, with nothing a server can break",
		"JRPC-INTERNAL-ERROR":        "needs an internal failure the harness cannot provoke in a foreign server",
		"MSG-RESULT-XOR-ERROR":       "the same rule as JRPC-RESULT-XOR-ERROR, which checks it",
		"MSG-RESP-SAME-ID":           "the same rule as JRPC-ID-ECHO, which checks it",
		"MSG-ERROR-MIN":              "the same rule as JRPC-ERROR-OBJECT, which checks it",
		"MSG-ERROR-CODE-INT":         "the same rule as JRPC-ERROR-CODE-INT, which checks it",
		"MSG-NOTIF-NO-RESPONSE":      "the same rule as JRPC-NOTIF-NO-REPLY, which checks it",
		"LIFE-STDIO-SERVER-SHUTDOWN": "a permission: a server closing stdout after its responses is a clean shutdown",
		"META26-NO-UNDECLARED-CAP":   "the union of MRTR-CAP-GATED (no input requests of an undeclared kind) and LOG26-OPT-IN (no logging without a log level), which check it",
		"SSE-DEPRECATED":             "advice on which transport to adopt; whether an implementation is new is not observable, and the report shows which transports answer",
		"HTTP26-LEGACY-NO-HEADER":    "a permission (MAY) of dual-era servers, used only in era detection",
		"VER26-DUAL-ERA":             "a permission (MAY); the runner detects each era on its own and checks the revisions a server serves",
		"TOOL-RESOURCE-LINK":         "a permission: a tool may return resource links; their shape is judged by TOOL-CALL-RESULT's schema validation",
		"TOOL26-MRTR":                "a permission: a tool call may answer with an InputRequiredResult; the MRTR- checks judge that result when it comes",
		"RES-INTERNAL":               "needs an internal failure of resources/read that the harness cannot provoke in a foreign server",
		"PROMPT-INTERNAL":            "needs an internal failure of prompts/get that the harness cannot provoke in a foreign server",
		"PROMPT-SECURITY":            "whether inputs and outputs are safe from injection cannot be decided from outside; PROMPT-VALIDATE-ARGS checks the observable part",
		"RES-HTTPS-SCHEME":           "whether the client can fetch an https:// resource itself is not observable from the server's answers",
		"RES26-MULTI-CONTENTS":       "a permission: the resource checks accept any number of contents in a read",
		"PROMPT26-MRTR":              "a permission: an InputRequiredResult to prompts/get is judged by the MRTR checks",
		"MSG-REQ-ID-TYPE":            "binds the server only in requests it sends; mcpspec declares no client capabilities, so a server has none to send (a ping aside, which nothing prompts), and at 2026-07-28 servers send no requests",
		"MSG-REQ-ID-NOT-NULL":        "binds the server only in requests it sends, and a server has none to send mcpspec (see MSG-REQ-ID-TYPE); a null id from the client is JRPC-INVALID-REQUEST's matter",
		"MSG-REQ-ID-UNIQUE":          "binds the server only in requests it sends, and a server has none to send mcpspec (see MSG-REQ-ID-TYPE)",
		"LOG-DEFAULT":                "a permission: before logging/setLevel the server may log what it likes, and no check counts such messages against it",
		"LOG-NO-SECRETS":             "whether a log message holds a credential, personal data or an internal detail depends on what only the server knows; no outside probe can tell",
		"LOG26-DEPRECATED":           "binds new implementations, and from outside mcpspec cannot tell a new implementation from one that is migrating; logging is still part of 2026-07-28",
		"COMP-SECURITY":              "rate limits, access control and disclosure depend on the server's data and policy, invisible from outside; rejecting invalid input is COMP-INVALID-REF",
		"MSG-RESULT-OBJECT":          "every revision's schema makes a response's result an object, and MSG-JSONRPC validates each response it draws (the opening, a probe, a list, an error) against it at every revision; MSG-RESULT-FIELD also names it at 2026-07-28",
		"PROG-TOKEN-UNIQUE":          "binds whoever chooses the token: at 2026-07-28 only the client does, and in the handshake revisions a server chooses one only in a request it sends, which mcpspec never provokes (see MSG-REQ-ID-TYPE)",
		"ELICIT-MODES":               "binds elicitation requests a server initiates at 2025-11-25, which mcpspec never provokes: it declares no elicitation there, so any such request is LIFE-OPERATION-NEGOTIATED's failure; at 2026-07-28 MRTR-CAP-GATED judges the modes of input requests",
		"ELICIT-FORM-MODE-FIELD":     "binds elicitation requests a server initiates at 2025-11-25, which mcpspec never provokes (see ELICIT-MODES); at 2026-07-28 MRTR-VALUE-TYPES validates input requests against ElicitRequest",
		"ELICIT-URL-REQUIRED-ERROR":  "the error may only come from a request that needs URL-mode elicitation, which only the server knows of and mcpspec cannot provoke at 2025-11-25; the code is retired at 2026-07-28",
		"ELICIT-COMPLETE-NOTIF":      "follows a URL-mode elicitation request from the server, which mcpspec never provokes (see ELICIT-MODES)",
		"SRVREQ-CAP-GATED":           "the rule LIFE-OPERATION-NEGOTIATED checks: no sampling, roots or elicitation request to a client that declared none (a warning before 2025-06-18, a failure from it on)",
		"PING-SERVER-INITIATED":      "advice to ping now and then, with no interval: a run that sees no ping proves nothing, and a ping the server does send is validated against the schema by MSG-JSONRPC",
		"LIFE-TIMEOUT-CANCEL":        "binds the sender of a request that times out; a server sends mcpspec no request to time out, as mcpspec declares no client capability at the handshake revisions (see MSG-REQ-ID-TYPE)",
		"COMP-SORTED":                "relevance order and fuzzy matching are the server's judgement: no order of suggestions can be shown wrong from outside",
		"AUTH-STDIO":                 "over stdio there is no challenge, status or metadata to observe: how a server gets its credentials from the environment happens before and outside the protocol",
		"HTTP-AUTH-RECOMMENDED":      "whether authentication is proper for a deployment is not visible from outside (a local server may rightly run without it); the AUTH- checks judge servers that do require it",
	} {
		conform.Exclude(id, reason)
	}
}
