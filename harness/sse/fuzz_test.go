package sse

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"testing"
)

// chunkReader hands out its input in reads whose sizes cycle through sizes (1..16 bytes each),
// so the fuzzer controls where reads split lines, CRLFs and BOMs.
type chunkReader struct {
	data  []byte
	sizes []byte
	n     int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	size := 1
	if len(c.sizes) > 0 {
		size = int(c.sizes[c.n%len(c.sizes)])%16 + 1
		c.n++
	}
	size = min(size, len(p), len(c.data))
	copy(p, c.data[:size])
	c.data = c.data[size:]
	return size, nil
}

// parseResult is everything a parse produced that must not depend on how reads were split.
type parseResult struct {
	events    []Event
	err       error
	raw       []byte // all events' Raw concatenated
	discarded []byte
}

func parse(src io.Reader, maxSize int) parseResult {
	r := NewReader(src, WithMaxEventSize(maxSize))
	var res parseResult
	for {
		ev, err := r.Next()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				res.err = err
			}
			res.discarded = r.Discarded()
			return res
		}
		res.raw = append(res.raw, ev.Raw...)
		res.events = append(res.events, ev)
	}
}

func FuzzReader(f *testing.F) {
	f.Add([]byte("id: 0\ndata:\n\n"), []byte{0})
	f.Add([]byte("data: a\r\n\r\n"), []byte{6, 0, 0})
	f.Fuzz(func(t *testing.T, stream, sizes []byte) {
		for _, maxSize := range []int{64, 1 << 20} {
			whole := parse(bytes.NewReader(stream), maxSize)
			split := parse(&chunkReader{data: stream, sizes: sizes}, maxSize)

			for _, ev := range append(whole.events, split.events...) {
				if len(ev.Raw) > maxSize {
					t.Fatalf("max %d: event raw of %d bytes", maxSize, len(ev.Raw))
				}
			}
			if len(whole.discarded) > maxSize || len(split.discarded) > maxSize {
				t.Fatalf("max %d: discarded tail exceeds the bound", maxSize)
			}
			if (whole.err == nil) != (split.err == nil) {
				t.Fatalf("max %d: whole err %v, split err %v", maxSize, whole.err, split.err)
			}
			for _, err := range []error{whole.err, split.err} {
				if err != nil && !errors.Is(err, ErrEventTooLarge) {
					t.Fatalf("max %d: unexpected error %v", maxSize, err)
				}
			}
			if !reflect.DeepEqual(withoutRaw(whole.events), withoutRaw(split.events)) {
				t.Fatalf("max %d: split parse differs\nwhole %#v\nsplit %#v", maxSize, whole.events, split.events)
			}
			// Raw is exact: the events and the tail give back the input byte for byte.
			for _, res := range []parseResult{whole, split} {
				consumed := append(bytes.Clone(res.raw), res.discarded...)
				if res.err == nil && !bytes.Equal(consumed, stream) {
					t.Fatalf("max %d: raw bytes %q do not rebuild the input %q", maxSize, consumed, stream)
				}
				if !bytes.HasPrefix(stream, res.raw) {
					t.Fatalf("max %d: raw bytes %q are not a prefix of the input", maxSize, res.raw)
				}
			}
		}
	})
}
