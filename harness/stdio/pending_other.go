//go:build !linux

package stdio

import (
	"io"
	"os"
	"sync/atomic"
)

// countedPipe copies mcpspec's end of a pipe to a writer. Off Linux it cannot tell what sits in
// the pipe unread: the stderr tail is taken as it stands.
type countedPipe struct {
	f    *os.File
	took atomic.Int64
}

func (c *countedPipe) copyTo(w io.Writer) error {
	_, err := io.Copy(w, countingReader{c.f, &c.took})
	return err
}

func (c *countedPipe) state() (unread int, took int64) { return 0, c.took.Load() }

// countingReader counts what is read through it.
type countingReader struct {
	r io.Reader
	n *atomic.Int64
}

func (c countingReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.n.Add(int64(n))
	return n, err
}
