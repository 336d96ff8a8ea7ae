package probe

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"sync"
	"time"

	"github.com/mcpspec/mcpspec/harness/record"
)

// A stdio probe runs in a process the client launched, so it sends its records to the mcpspec
// that runs the scenario over a loopback connection: a token line first (a stray connection
// is ignored), then one JSON record a line, each acknowledged by a newline once it is
// recorded. The acknowledgment keeps the records of several probes in the order they happened:
// a probe that ends the connection (the subscriptions scenario) has its last records in the
// recording before the client can launch the next probe, whose records would otherwise race
// them from another connection.

// reportAckTimeout bounds a probe's wait for the acknowledgment of one record; a collector
// that does not acknowledge in time is not waited for again.
const reportAckTimeout = 10 * time.Second

// Collector receives stdio probes' records into a Recorder.
type Collector struct {
	ln    net.Listener
	rec   *Recorder
	token string
	wg    sync.WaitGroup
}

// NewCollector listens on a loopback port for probes that know token.
func NewCollector(rec *Recorder, token string) (*Collector, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("probe collector: listen on loopback: %w", err)
	}
	c := &Collector{ln: ln, rec: rec, token: token}
	c.wg.Add(1)
	go c.accept()
	return c, nil
}

// Addr is where probes send their records.
func (c *Collector) Addr() string { return c.ln.Addr().String() }

func (c *Collector) accept() {
	defer c.wg.Done()
	for {
		conn, err := c.ln.Accept()
		if err != nil {
			return
		}
		c.wg.Add(1)
		go func() {
			defer c.wg.Done()
			defer conn.Close()
			sc := bufio.NewScanner(conn)
			sc.Buffer(make([]byte, 64<<10), 2*maxLine)
			if !sc.Scan() || sc.Text() != c.token {
				return
			}
			for sc.Scan() {
				var rec record.Record
				if json.Unmarshal(sc.Bytes(), &rec) == nil {
					c.rec.Add(rec)
				}
				if _, err := conn.Write([]byte{'\n'}); err != nil {
					return
				}
			}
		}()
	}
}

// Close stops accepting and waits, at most d, for the probes' connections to end (each ends
// when its probe exits). It reports whether they all ended.
func (c *Collector) Close(d time.Duration) bool {
	_ = c.ln.Close()
	done := make(chan struct{})
	go func() {
		c.wg.Wait()
		close(done)
	}()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-done:
		return true
	case <-t.C:
		return false
	}
}

// Reporter is a stdio probe's end of the connection.
type Reporter struct {
	mu     sync.Mutex
	conn   net.Conn
	w      *bufio.Writer
	noAcks bool // an acknowledgment failed: records are sent without waiting from then on
}

// DialReporter connects to a Collector at addr.
func DialReporter(addr, token string, timeout time.Duration) (*Reporter, error) {
	conn, err := net.DialTimeout("tcp", addr, timeout)
	if err != nil {
		return nil, fmt.Errorf("probe: report to %s: %w", addr, err)
	}
	r := &Reporter{conn: conn, w: bufio.NewWriter(conn)}
	if _, err := r.w.WriteString(token + "\n"); err != nil {
		conn.Close()
		return nil, fmt.Errorf("probe: report to %s: %w", addr, err)
	}
	return r, r.w.Flush()
}

// Send passes one record on at once, so that what the probe saw survives its being killed, and
// returns once the collector has recorded it (at most reportAckTimeout).
func (r *Reporter) Send(rec record.Record) {
	b, _ := json.Marshal(rec)
	r.mu.Lock()
	defer r.mu.Unlock()
	_, _ = r.w.Write(append(b, '\n'))
	if r.w.Flush() != nil || r.noAcks {
		return
	}
	var ack [1]byte
	_ = r.conn.SetReadDeadline(time.Now().Add(reportAckTimeout))
	if _, err := io.ReadFull(r.conn, ack[:]); err != nil {
		r.noAcks = true
	}
}

// Close ends the connection.
func (r *Reporter) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	_ = r.w.Flush()
	return r.conn.Close()
}
