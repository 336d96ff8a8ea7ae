package stdio

import "sync"

// ring keeps the last n bytes written to it: a bounded stderr tail for error messages.
type ring struct {
	mu    sync.Mutex
	buf   []byte
	limit int
	total int64
	first chan struct{} // closed by the first write
	wrote chan struct{} // closed and replaced by every write
}

func newRing(limit int) *ring {
	return &ring{limit: limit, first: make(chan struct{}), wrote: make(chan struct{})}
}

// written is how many bytes were ever written, and a channel closed by the next write.
func (r *ring) written() (int64, <-chan struct{}) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.total, r.wrote
}

func (r *ring) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.total == 0 && len(p) > 0 {
		close(r.first)
	}
	r.total += int64(len(p))
	close(r.wrote)
	r.wrote = make(chan struct{})
	r.buf = append(r.buf, p...)
	if over := len(r.buf) - r.limit; over > 0 {
		r.buf = append(r.buf[:0], r.buf[over:]...)
	}
	return len(p), nil
}

// String returns the kept tail.
func (r *ring) String() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return string(r.buf)
}
