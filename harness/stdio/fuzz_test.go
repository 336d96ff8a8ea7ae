package stdio

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"testing"
	"testing/iotest"
)

// FuzzFramer checks the framer on any stdout: it never panics or loops, a message frame is
// always valid JSON, and every non-blank input line shows up in some frame's Message or Raw.
// The seed corpus in testdata/fuzz/FuzzFramer holds realistic and broken MCP server output.
func FuzzFramer(f *testing.F) {
	f.Add([]byte("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n"), uint16(0))
	f.Add([]byte("\xef\xbb\xbf{\"a\":1}\r\n\n{} {}\n{\n\"b\": 2\n}\nbanner"), uint16(0))
	f.Add([]byte("{\"a\":\"0123456789abcdef\"}\n[\n1\n]\n"), uint16(8))
	f.Fuzz(func(t *testing.T, data []byte, maxLine uint16) {
		var r io.Reader = bytes.NewReader(data)
		if maxLine%2 == 1 {
			r = iotest.OneByteReader(r) // let the fuzzer also split every read
		}
		fr := NewFramer(r, int(maxLine))
		lines := bytes.Count(data, []byte("\n")) + 1
		var frames []Frame
		for {
			fm, err := fr.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("Next: %v", err)
			}
			if (fm.Violation == "") == (fm.Message == nil) {
				t.Fatalf("frame %+v is not exactly one of message and violation", fm)
			}
			if fm.Violation == "" && !json.Valid(fm.Message) {
				t.Fatalf("message frame %q is not valid JSON", fm.Message)
			}
			if fm.Violation == "" && fm.Lines < 1 {
				t.Fatalf("message frame %q took %d lines", fm.Message, fm.Lines)
			}
			frames = append(frames, fm)
			// A line yields at most four frames (BOM, CR, UTF-8, itself) plus one for a join.
			if len(frames) > 5*lines {
				t.Fatalf("%d frames from %d lines: the framer does not advance", len(frames), lines)
			}
		}
		checkAccounted(t, data, frames)
	})
}

// checkAccounted asserts that every non-blank input line, or at least the start of it (evidence
// is cut), appears in a frame as read, without its \r or (first line) its BOM.
func checkAccounted(t *testing.T, data []byte, frames []Frame) {
	t.Helper()
	const prefix = 256 // below the evidence cut
	for i, line := range bytes.Split(data, []byte("\n")) {
		candidates := [][]byte{line, bytes.TrimSuffix(line, []byte("\r"))}
		if i == 0 {
			noBOM := bytes.TrimPrefix(line, []byte("\xef\xbb\xbf"))
			candidates = append(candidates, noBOM, bytes.TrimSuffix(noBOM, []byte("\r")))
		}
		if len(bytes.TrimSpace(candidates[len(candidates)-1])) == 0 {
			continue
		}
		if !anyFrameContains(frames, candidates, prefix) {
			t.Fatalf("line %d %q is in no frame", i, line)
		}
	}
}

func anyFrameContains(frames []Frame, candidates [][]byte, prefix int) bool {
	for _, c := range candidates {
		if len(c) > prefix {
			c = c[:prefix]
		}
		for _, f := range frames {
			if bytes.Contains(f.Message, c) || bytes.Contains(f.Raw, c) {
				return true
			}
		}
	}
	return false
}

func BenchmarkFramer(b *testing.B) {
	var stdout bytes.Buffer
	lines := []string{
		`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"bench","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p1","progress":1,"total":3}}`,
		`{"jsonrpc":"2.0","id":"mcpspec-7","result":{"content":[{"type":"text","text":"hello world"}],"isError":false}}`,
	}
	for i := 0; i < 1000; i++ {
		stdout.WriteString(lines[i%len(lines)])
		stdout.WriteByte('\n')
	}
	data := stdout.Bytes()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		fr := NewFramer(bytes.NewReader(data), 0)
		for {
			if _, err := fr.Next(); err != nil {
				if !errors.Is(err, io.EOF) {
					b.Fatal(err)
				}
				break
			}
		}
	}
}
