package sse

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"testing"
)

// BenchmarkReader parses a stream shaped like an MCP tool call over Streamable HTTP: a priming
// event, progress notifications, keep-alive comments and a response.
func BenchmarkReader(b *testing.B) {
	var stream bytes.Buffer
	stream.WriteString("id: s-0\nretry: 3000\ndata:\n\n")
	for i := 1; i <= 1000; i++ {
		fmt.Fprintf(&stream, "id: s-%d\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\","+
			"\"params\":{\"progressToken\":\"tok\",\"progress\":%d,\"total\":1000}}\r\n\r\n", i, i)
		if i%100 == 0 {
			stream.WriteString(": keep-alive\n\n")
		}
	}
	stream.WriteString("event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[]}}\n\n")
	input := stream.Bytes()

	b.SetBytes(int64(len(input)))
	b.ReportAllocs()
	for b.Loop() {
		r := NewReader(bytes.NewReader(input))
		n := 0
		for {
			_, err := r.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
		if n != 1002 {
			b.Fatalf("parsed %d events, want 1002", n)
		}
	}
}
