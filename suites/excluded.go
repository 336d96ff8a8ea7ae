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
		"MSG-REQ-ID-TYPE":            "binds the server only in requests it sends; mcpspec declares no client capabilities, so a server has none to send (a ping aside, which nothing prompts), and at 2026-07-28 servers send no requests",
		"MSG-REQ-ID-NOT-NULL":        "binds the server only in requests it sends, and a server has none to send mcpspec (see MSG-REQ-ID-TYPE); a null id from the client is JRPC-INVALID-REQUEST's matter",
		"MSG-REQ-ID-UNIQUE":          "binds the server only in requests it sends, and a server has none to send mcpspec (see MSG-REQ-ID-TYPE)",
		"LOG-DEFAULT":                "a permission: before logging/setLevel the server may log what it likes, and no check counts such messages against it",
		"LOG-NO-SECRETS":             "whether a log message holds a credential, personal data or an internal detail depends on what only the server knows; no outside probe can tell",
		"LOG26-DEPRECATED":           "binds new implementations, and from outside mcpspec cannot tell a new implementation from one that is migrating; logging is still part of 2026-07-28",
		"COMP-SECURITY":              "rate limits, access control and disclosure depend on the server's data and policy, invisible from outside; rejecting invalid input is COMP-INVALID-REF",
		"COMP-SORTED":                "relevance order and fuzzy matching are the server's judgement: no order of suggestions can be shown wrong from outside",
	} {
		conform.Exclude(id, reason)
	}
}
