package recording

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/mcpspec/mcpspec/harness/sse"
)

// har is the part of a HAR 1.2 document a judge reads.
type har struct {
	Log *struct {
		Entries []harEntry `json:"entries"`
	} `json:"log"`
}

type harEntry struct {
	Started string  `json:"startedDateTime"`
	Time    float64 `json:"time"`
	Request struct {
		Method   string      `json:"method"`
		URL      string      `json:"url"`
		Headers  []harHeader `json:"headers"`
		PostData *struct {
			Text string `json:"text"`
		} `json:"postData"`
	} `json:"request"`
	Response struct {
		Status  int         `json:"status"`
		Headers []harHeader `json:"headers"`
		Content struct {
			MimeType string `json:"mimeType"`
			Text     string `json:"text"`
			Encoding string `json:"encoding"`
		} `json:"content"`
	} `json:"response"`
}

type harHeader struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// ReadHAR reads the HTTP exchanges of a HAR 1.2 file (a browser's or an HTTP proxy's export)
// as records: each entry a request, its response and, when the response is an SSE stream, one
// record an event of response.content.text. A HAR holds no time for each event: they follow
// their response head, in their order, untimed, so only the order within one stream is certain.
func ReadHAR(r io.Reader, max int) (recs []Record, skipped int, err error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, 0, fmt.Errorf("reading the HAR file: %w", err)
	}
	if len(b) > MaxHARBytes {
		return nil, 0, fmt.Errorf("HAR file over %d bytes", MaxHARBytes)
	}
	var doc har
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, 0, fmt.Errorf("HAR file: %w", err)
	}
	if doc.Log == nil {
		return nil, 0, errors.New("HAR file: no log object")
	}
	entries := doc.Log.Entries
	starts := make([]time.Time, len(entries))
	for i, e := range entries {
		if starts[i], err = time.Parse(time.RFC3339Nano, e.Started); err != nil {
			return nil, 0, fmt.Errorf("HAR entry %d: startedDateTime: %w", i+1, err)
		}
	}
	idx := make([]int, len(entries))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return starts[idx[a]].Before(starts[idx[b]]) })
	transport := HTTP
	add := func(rec Record) {
		if max > 0 && len(recs) >= max {
			skipped++
			return
		}
		rec.Seq = len(recs) + 1
		cutBody(&rec)
		recs = append(recs, rec)
	}
	for n, i := range idx {
		e := entries[i]
		ex := n + 1
		path := e.Request.URL
		if u, err := url.Parse(e.Request.URL); err == nil {
			path = u.RequestURI()
		}
		req := Record{At: starts[i], From: FromClient, Channel: ChanRequest, Exchange: ex, Method: e.Request.Method, Path: path, Header: joinHeaders(e.Request.Headers)}
		if e.Request.PostData != nil {
			req.Body = e.Request.PostData.Text
		}
		add(req)
		body := e.Response.Content.Text
		if e.Response.Content.Encoding == "base64" {
			d, err := base64.StdEncoding.DecodeString(body)
			if err != nil {
				return nil, 0, fmt.Errorf("HAR entry %d: response content: %w", i+1, err)
			}
			body = string(d)
		}
		resp := Record{At: starts[i], From: FromServer, Channel: ChanResponse, Exchange: ex, Status: e.Response.Status, Header: joinHeaders(e.Response.Headers)}
		ct := e.Response.Content.MimeType
		if h, ok := resp.Header["Content-Type"]; ok {
			ct = h
		}
		if mt, _, _ := mime.ParseMediaType(ct); mt != "text/event-stream" {
			resp.Body = body
			add(resp)
			continue
		}
		add(resp)
		rd := sse.NewReader(strings.NewReader(body), sse.WithMaxEventSize(MaxBody))
		for {
			ev, err := rd.Next()
			if err != nil {
				break // the end of the stream as recorded
			}
			typ := ev.Type
			if typ == "message" {
				typ = ""
			}
			if typ == "endpoint" {
				transport = LegacySSE
			}
			// A HAR times no event: At stays zero, and no rule about time judges it.
			add(Record{From: FromServer, Channel: ChanEvent, Exchange: ex, EventID: ev.ID, Event: typ, Body: ev.Data})
		}
	}
	for i := range recs {
		recs[i].Transport = transport
	}
	return recs, skipped, nil
}

func joinHeaders(hs []harHeader) map[string]string {
	if len(hs) == 0 {
		return nil
	}
	out := map[string]string{}
	for _, h := range hs {
		if strings.HasPrefix(h.Name, ":") {
			continue // HTTP/2 pseudo-headers
		}
		k := canonical(h.Name)
		if v, ok := out[k]; ok {
			out[k] = v + ", " + h.Value
		} else {
			out[k] = h.Value
		}
	}
	return out
}

// canonical spells a header name as Go's net/http does, so that a HAR's lower-case HTTP/2
// names read like a recording's.
func canonical(name string) string {
	parts := strings.Split(strings.ToLower(name), "-")
	for i, p := range parts {
		if p != "" {
			parts[i] = strings.ToUpper(p[:1]) + p[1:]
		}
	}
	return strings.Join(parts, "-")
}
