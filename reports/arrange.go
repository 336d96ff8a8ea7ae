package reports

import (
	"cmp"
	"slices"
	"strings"
)

// listOrder is the order in which the human-readable reports list results: what breaks a build
// or needs a look first, then what did not apply, then passes.
var listOrder = []Status{Fail, Error, Stale, Warn, Untestable, Expected, NA, Pass}

// rank is a status's place in listOrder.
func (s Status) rank() int {
	if i := slices.Index(listOrder, s); i >= 0 {
		return i
	}
	return len(listOrder)
}

// noHandshakeMarker begins the na message of every check against a transport whose server has no
// MCP handshake at any revision (see suites/conform/handshake.go).
const noHandshakeMarker = "the server has no MCP handshake"

// NotServed is a revision over a transport that the server does not serve (Version "" when it
// serves none: no MCP handshake at all). It makes many checks na for one reason, and the reports
// show it as one line instead of a row per check.
type NotServed struct {
	Version   string
	Transport string
	Answer    string // what the server answered, from the first such check's message
	Checks    int    // how many checks it made na
	First     Result // the first such check, whose evidence holds the answer
}

// notServedKey returns the revision ("" for every revision) a result's na stands for when it
// says the server does not serve its revision or has no handshake at all, and what the server
// answered; ok is false for any other result.
func notServedKey(r Result) (version, answer string, ok bool) {
	if r.Status != NA {
		return "", "", false
	}
	if strings.HasPrefix(r.Message, noHandshakeMarker) {
		return "", r.Message, true
	}
	i := strings.Index(r.Message, notServedMarker)
	if i < 0 {
		return "", "", false
	}
	answer = strings.TrimSpace(r.Message[i+len(notServedMarker):])
	answer = strings.TrimPrefix(answer, r.Version)
	answer = strings.TrimSpace(strings.TrimPrefix(answer, ":"))
	// Shown after "it answered": "initialize was answered without a result: …" reads
	// "initialize without a result: …", and a message's own "it answered" is not repeated.
	answer = strings.TrimPrefix(answer, "it answered ")
	if method, rest, found := strings.Cut(answer, " was answered "); found && !strings.Contains(method, " ") {
		answer = method + " " + rest
	}
	return r.Version, answer, true
}

// arrange splits results for people to read: the revisions and transports the server does not
// serve, one entry each (by transport, then revision), and every other result in listOrder, then
// by area, requirement, revision and transport.
func arrange(results []Result) (notServed []NotServed, rows []Result) {
	index := map[[2]string]int{}
	for _, r := range results {
		version, answer, ok := notServedKey(r)
		if !ok {
			rows = append(rows, r)
			continue
		}
		k := [2]string{r.Transport, version}
		i, seen := index[k]
		if !seen {
			i = len(notServed)
			index[k] = i
			notServed = append(notServed, NotServed{Version: version, Transport: r.Transport, Answer: answer, First: r})
		}
		notServed[i].Checks++
	}
	slices.SortStableFunc(notServed, func(a, b NotServed) int {
		return cmp.Or(cmp.Compare(a.Transport, b.Transport), cmp.Compare(a.Version, b.Version))
	})
	slices.SortStableFunc(rows, compareForListing)
	return notServed, rows
}

// compareForListing orders results by listOrder, then area, requirement, revision and transport.
func compareForListing(a, b Result) int {
	return cmp.Or(cmp.Compare(a.Status.rank(), b.Status.rank()), cmp.Compare(a.Area, b.Area),
		resultKey(a).compare(resultKey(b)))
}

// revisionLabel names a NotServed's revision for people.
func (n NotServed) revisionLabel() string {
	if n.Version == "" {
		return "every revision"
	}
	return n.Version
}

// areaCount is the count per status of one area's results.
type areaCount struct {
	Area   string
	Counts map[Status]int
}

// countByArea counts results per area and status, areas in alphabetical order.
func countByArea(results []Result) []areaCount {
	byArea := map[string]map[Status]int{}
	for _, r := range results {
		if byArea[r.Area] == nil {
			byArea[r.Area] = map[Status]int{}
		}
		byArea[r.Area][r.Status]++
	}
	out := make([]areaCount, 0, len(byArea))
	for area, counts := range byArea {
		out = append(out, areaCount{area, counts})
	}
	slices.SortFunc(out, func(a, b areaCount) int { return cmp.Compare(a.Area, b.Area) })
	return out
}
