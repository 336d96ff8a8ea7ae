package harness

import (
	"context"
	"fmt"
	"net/http"
	"sync"

	"github.com/mcpspec/mcpspec/harness/record"
	"github.com/mcpspec/mcpspec/harness/redirect"
	"github.com/mcpspec/mcpspec/harness/streamhttp"
	"github.com/mcpspec/mcpspec/harness/transcript"
	"github.com/mcpspec/mcpspec/harness/wire"
)

// A run over Streamable HTTP opens a hundred sessions or so. Against a server mcpspec did not
// launch (--url), each is ended with an HTTP DELETE once the run is over, as a client that no
// longer needs a session SHOULD: server-everything keeps every session it is never told to end
// (after ten runs it held 317 MB, 219 MB when each run ended its sessions). A server
// mcpspec launched is stopped instead. The DELETEs come after every check, so no verdict
// depends on how a server takes them; they are bounded by the shutdown timeout (on an
// interrupt too), and the transcript shows them as a session of their own, sessionEndName.

// sessionEndName names the DELETEs' transcript in the archive.
const sessionEndName = "session-ends"

// sessionEndWorkers bounds the DELETEs under way at once.
const sessionEndWorkers = 8

// endsSessions says whether the launcher ends its connections' sessions: a Streamable HTTP
// server it did not launch.
func (l *Launcher) endsSessions() bool {
	return l.target.Transport == wire.HTTP && len(l.target.Command.Argv) == 0
}

// noteEnding remembers what ends the sessions the server issued to c, if the launcher ends
// sessions. The caller holds l.mu.
func (l *Launcher) noteEnding(c wire.Conn) {
	hc, ok := c.(*streamhttp.Conn)
	if !ok || !l.endsSessions() {
		return
	}
	l.endings = append(l.endings, hc.Endings()...)
}

// endSessions sends the DELETE of every session in endings (once per session id), at most
// sessionEndWorkers at once, until they are answered or the shutdown timeout has passed.
func (l *Launcher) endSessions(endings []*streamhttp.Ending) {
	seen := map[string]bool{}
	var todo []*streamhttp.Ending
	for _, e := range endings {
		if !seen[e.Session] {
			seen[e.Session] = true
			todo = append(todo, e)
		}
	}
	if len(todo) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), l.env.Timeouts.Shutdown)
	defer cancel()
	transport := &http.Transport{MaxIdleConnsPerHost: sessionEndWorkers, DisableCompression: true}
	defer transport.CloseIdleConnections()
	client := &http.Client{Transport: transport, CheckRedirect: redirect.SameOrigin}
	tr := transcript.New()
	jobs := make(chan *streamhttp.Ending)
	var wg sync.WaitGroup
	for range min(sessionEndWorkers, len(todo)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for e := range jobs {
				seq := tr.Add(record.Send, http.MethodDelete, streamhttp.HeaderSession+": "+e.Session, nil)
				status, err := e.End(ctx, client)
				if err != nil {
					tr.Add(record.Recv, "HTTP", fmt.Sprintf("no response (answers #%d)", seq), []byte(err.Error()))
					continue
				}
				tr.Add(record.Recv, "HTTP", fmt.Sprintf("HTTP %d (answers #%d)", status, seq), nil)
			}
		}()
	}
feed:
	for _, e := range todo {
		select {
		case jobs <- e:
		case <-ctx.Done():
			break feed
		}
	}
	close(jobs)
	wg.Wait()
	if l.env.Archive != nil {
		l.env.Archive.Write(l.target.Transport, sessionEndName, tr.Since(0))
	}
}
