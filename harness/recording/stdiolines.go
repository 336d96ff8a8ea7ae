package recording

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"
)

// The stdio line format, for captures made by other tools: one frame a line, prefixed by who
// wrote it. "> " a line the client wrote to the server's stdin, "< " a line the server wrote
// to its stdout, "! " a line of the server's stderr. Lines starting with "#" and blank lines
// are ignored. The rest of the line after the prefix is the frame, byte for byte.
const (
	stdioClient = "> "
	stdioServer = "< "
	stdioLog    = "! "
)

// ReadStdioLines reads a capture in the stdio line format, keeping at most max frames.
func ReadStdioLines(r io.Reader, max int) (recs []Record, skipped int, err error) {
	return readStdioLines(r, max, 0)
}

// readStdioLines is ReadStdioLines with room made for capHint records at once.
func readStdioLines(r io.Reader, max, capHint int) (recs []Record, skipped int, err error) {
	recs = make([]Record, 0, capHint)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), MaxBody+len(stdioClient)+2)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		rec := Record{Transport: Stdio}
		switch {
		case strings.HasPrefix(line, stdioClient):
			rec.From, rec.Channel = FromClient, ChanStdin
		case strings.HasPrefix(line, stdioServer):
			rec.From, rec.Channel = FromServer, ChanStdout
		case strings.HasPrefix(line, stdioLog):
			rec.From, rec.Channel = FromServer, ChanStderr
		default:
			return recs, skipped, fmt.Errorf("stdio capture line %d: no \"> \", \"< \" or \"! \" prefix: %q", n, clipText(line, 60))
		}
		if max > 0 && len(recs) >= max {
			skipped++
			continue
		}
		rec.Body = line[2:]
		rec.Seq = len(recs) + 1
		recs = append(recs, rec)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return recs, skipped, fmt.Errorf("stdio capture line %d: %w (%d bytes)", n+1, ErrTooLong, MaxBody)
		}
		return recs, skipped, fmt.Errorf("reading the stdio capture: %w", err)
	}
	return recs, skipped, nil
}
