package jsonrpc

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// NewRequest encodes a request with the given id, method and params (nil params are omitted).
func NewRequest(id ID, method string, params any) ([]byte, error) {
	return encode(map[string]any{"jsonrpc": "2.0", "id": id.JSON(), "method": method}, params)
}

// NewNotification encodes a notification (no id).
func NewNotification(method string, params any) ([]byte, error) {
	return encode(map[string]any{"jsonrpc": "2.0", "method": method}, params)
}

// NewResult encodes a result response, used when answering a server-initiated request.
func NewResult(id ID, result any) ([]byte, error) {
	return marshal(map[string]any{"jsonrpc": "2.0", "id": id.JSON(), "result": result})
}

func encode(msg map[string]any, params any) ([]byte, error) {
	if params != nil {
		msg["params"] = params
	}
	return marshal(msg)
}

func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("encode message: %w", err)
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// BatchOf joins already-encoded messages into one JSON array.
func BatchOf(msgs ...[]byte) []byte {
	var b bytes.Buffer
	b.WriteByte('[')
	for i, m := range msgs {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(m)
	}
	b.WriteByte(']')
	return b.Bytes()
}
