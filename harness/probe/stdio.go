package probe

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"sync"

	"github.com/mcpspec/mcpspec/harness/record"
)

// maxLine bounds one line the client writes to the probe's stdin.
const maxLine = 4 << 20

// ServeStdio serves script over in and out, one JSON-RPC message a line, until in ends (the
// client closed the probe's stdin) or ctx is done. Every line read is recorded as it came,
// whether or not it is a message.
func ServeStdio(ctx context.Context, script Script, in io.Reader, out io.Writer, rec *Recorder) error {
	if err := script.Validate(); err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	srv := newServer(script, rec)
	if err := srv.open(); err != nil {
		return err
	}
	defer srv.shut()
	NoteStart(script, rec)
	var mu sync.Mutex
	closed := false
	srv.hangup = func() {
		mu.Lock()
		defer mu.Unlock()
		closed = true
		if c, ok := out.(io.Closer); ok {
			_ = c.Close()
		}
	}
	write := func(msg []byte) {
		mu.Lock()
		defer mu.Unlock()
		if closed {
			return
		}
		// Recorded before it is written: the client's reaction must never precede it.
		rec.Add(record.Record{Dir: record.Send, Channel: record.ChanStdout, Body: string(msg)})
		_, _ = out.Write(append(append([]byte(nil), msg...), '\n'))
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	r := bufio.NewReaderSize(in, 64<<10)
	for {
		line, err := readLine(r)
		if len(line) > 0 || err == nil {
			rec.Add(record.Record{Dir: record.Recv, Channel: record.ChanStdin, Body: string(line)})
			for _, m := range parseLine(line) {
				if !m.isRequest() {
					srv.handle(ctx, m, write)
					continue
				}
				// A request may wait for the client's answer to the probe's own request, which
				// arrives on a later line: read on meanwhile.
				wg.Add(1)
				go func(m message) {
					defer wg.Done()
					if resp := srv.handle(ctx, m, write); resp != nil {
						write(resp)
					}
				}(m)
			}
		}
		if err != nil {
			cancel()
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

// readLine reads one line without its line end; a line longer than maxLine is cut there.
func readLine(r *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if len(line)+len(chunk) <= maxLine {
			line = append(line, chunk...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		line = bytes.TrimSuffix(line, []byte("\n"))
		line = bytes.TrimSuffix(line, []byte("\r"))
		return line, err
	}
}

// parseLine reads the messages of one line: one object, or a batch array of them. Anything
// else yields none (the client checks judge the line; the probe only answers).
func parseLine(line []byte) []message {
	t := bytes.TrimSpace(line)
	if len(t) == 0 {
		return nil
	}
	if t[0] == '[' {
		var ms []message
		if json.Unmarshal(t, &ms) != nil {
			return nil
		}
		return ms
	}
	var m message
	if json.Unmarshal(t, &m) != nil {
		return nil
	}
	return []message{m}
}
