package recording

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcpspec/mcpspec/harness/record"
	"github.com/mcpspec/mcpspec/harness/transcript"
)

var (
	answersRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(` \(answers #(\d+)\)$`) })
	notKeptRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(\d+) entries not kept \(transcript limit\)`) })
	resumesRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(` \(resumes the stream of #(\d+)\)$`) })
	statusRe  = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^HTTP (\d{3})(?: (.*?))?(?:; Mcp-Session-Id: (\S+))?( \(stream[^)]*\))?$`)
	})
)

// ReadTranscript reads a transcript archive (mcpspec run --transcript), keeping at most max
// frames: a stdio connection, or a legacy SSE one, is one conversation; the frames of every
// Streamable HTTP connection come as one, in time order, since connections may share an MCP
// session (observed.Split tells the sessions apart). Records are numbered anew over the file, and exchanges made unique.
// The transcript says of HTTP what the harness wrote in its notes: the protocol headers of each
// request, the status, content type and session of each response, each event's id and type.
func ReadTranscript(r io.Reader, max int) (convs [][]Record, skipped int, err error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), MaxLine)
	sessions := map[string]*transcriptSession{}
	var order []string
	n, kept := 0, 0
	for sc.Scan() {
		n++
		b := sc.Bytes()
		if len(strings.TrimSpace(string(b))) == 0 {
			continue
		}
		var l transcript.Line
		if err := json.Unmarshal(b, &l); err != nil {
			return nil, skipped, fmt.Errorf("transcript line %d: %w", n, err)
		}
		if l.Dir != record.Send && l.Dir != record.Recv && l.Dir != record.Note {
			return nil, skipped, fmt.Errorf("transcript line %d: dir %q is none of send, recv, note", n, l.Dir)
		}
		k := l.Transport + "\x00" + l.Session
		s := sessions[k]
		if s == nil {
			s = &transcriptSession{streams: map[string]int{}, base: len(sessions) << 20}
			sessions[k] = s
			order = append(order, k)
		}
		if l.Dir == record.Note {
			if m := notKeptRe().FindStringSubmatch(l.Body); m != nil {
				n, _ := strconv.Atoi(m[1])
				skipped += n // the transcript's own bound left these frames out
			}
			continue
		}
		if max > 0 && kept >= max {
			skipped++
			continue
		}
		if rec, ok := s.record(l); ok {
			kept++
			rec.Seq = kept
			if rec.Exchange != 0 {
				rec.Exchange += s.base
			}
			cutBody(&rec)
			s.recs = append(s.recs, rec)
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, skipped, fmt.Errorf("transcript line %d: %w", n+1, ErrTooLong)
		}
		return nil, skipped, fmt.Errorf("reading the transcript: %w", err)
	}
	var web []Record
	for _, k := range order {
		recs := sessions[k].recs
		switch {
		case len(recs) == 0:
		case recs[0].Transport != HTTP:
			// A stdio process, or a legacy SSE stream (its session is the connection).
			convs = append(convs, recs)
		default:
			web = append(web, recs...)
		}
	}
	if len(web) > 0 {
		sort.SliceStable(web, func(i, j int) bool { return web[i].At.Before(web[j].At) })
		for i := range web {
			web[i].Seq = i + 1 // in the order they crossed the wire
		}
		convs = append(convs, web)
	}
	return convs, skipped, nil
}

type transcriptSession struct {
	recs    []Record
	streams map[string]int // SSE channel prefix (POST, GET) → the exchange of its latest stream
	resume  int            // the latest GET that named Last-Event-ID
	base    int            // added to the session's exchanges to keep them apart from others'
}

func (s *transcriptSession) record(l transcript.Line) (Record, bool) {
	at, _ := time.Parse(time.RFC3339Nano, l.At)
	rec := Record{Seq: l.Seq, At: at, Body: l.Body}
	switch l.Transport {
	case "stdio":
		rec.Transport = Stdio
		switch {
		case l.Dir == record.Send && l.Channel == record.ChanStdin:
			rec.From, rec.Channel = FromClient, ChanStdin
		case l.Dir == record.Recv && l.Channel == record.ChanStdout:
			rec.From, rec.Channel = FromServer, ChanStdout
		case l.Dir == record.Recv && l.Channel == record.ChanStderr:
			rec.From, rec.Channel = FromServer, ChanStderr
		default:
			return rec, false
		}
		return rec, true
	case "sse":
		rec.Transport = LegacySSE
	default:
		rec.Transport = HTTP
	}
	switch {
	case l.Dir == record.Send:
		rec.From, rec.Channel, rec.Method, rec.Exchange = FromClient, ChanRequest, l.Channel, l.Seq
		rec.Path, rec.Header = requestMeta(l.Meta)
		if _, ok := rec.Header["Last-Event-ID"]; ok && l.Channel == "GET" {
			s.resume = l.Seq
		}
		if l.Channel == "GET" && rec.Transport == LegacySSE {
			s.streams["SSE"] = l.Seq
		}
	case l.Channel == "HTTP":
		rec.From, rec.Channel = FromServer, ChanResponse
		meta := l.Meta
		if m := answersRe().FindStringSubmatch(meta); m != nil {
			rec.Exchange, _ = strconv.Atoi(m[1])
			meta = strings.TrimSuffix(meta, m[0])
		} else if m := resumesRe().FindStringSubmatch(meta); m != nil {
			rec.Exchange = s.resume
			meta = strings.TrimSuffix(meta, m[0])
		} else if rec.Transport == LegacySSE {
			rec.Exchange = s.streams["SSE"]
		}
		m := statusRe().FindStringSubmatch(meta)
		if m == nil {
			return rec, false // no response: the exchange failed below HTTP
		}
		rec.Status, _ = strconv.Atoi(m[1])
		rec.Header = map[string]string{}
		if m[2] != "" {
			rec.Header["Content-Type"] = m[2]
		}
		if m[3] != "" {
			rec.Header["Mcp-Session-Id"] = m[3]
		}
		if m[4] != "" {
			rec.Body = ""
			s.streams[s.methodOf(rec.Exchange)] = rec.Exchange
		}
	default: // an SSE event: POST-SSE, GET-SSE, POST-SSE-RESUMED, SSE (legacy)
		rec.From, rec.Channel = FromServer, ChanEvent
		ch := l.Channel
		switch {
		case strings.HasSuffix(ch, "-RESUMED"):
			rec.Exchange = s.resume
		case rec.Transport == LegacySSE:
			rec.Exchange = s.streams["SSE"]
		default:
			rec.Exchange = s.streams[strings.TrimSuffix(ch, "-SSE")]
		}
		for _, part := range strings.Split(l.Meta, "; ") {
			switch k, v, _ := strings.Cut(part, ": "); k {
			case "id":
				rec.EventID = v
			case "event":
				if v != "message" {
					rec.Event = v
				}
			}
		}
	}
	return rec, true
}

// methodOf is the HTTP method of the request that opened an exchange.
func (s *transcriptSession) methodOf(exchange int) string {
	for i := len(s.recs) - 1; i >= 0; i-- {
		if r := s.recs[i]; r.Exchange == exchange+s.base && r.Channel == ChanRequest {
			if r.Transport == LegacySSE {
				return "SSE"
			}
			return r.Method
		}
	}
	return ""
}

// requestMeta reads the harness's note of a request: "PATH; Name: value; …".
func requestMeta(meta string) (string, map[string]string) {
	parts := strings.Split(meta, "; ")
	h := map[string]string{}
	for _, p := range parts[1:] {
		if k, v, ok := strings.Cut(p, ": "); ok {
			h[k] = v
		}
	}
	return parts[0], h
}
