package main

import (
	"net"
	"os"
	"strings"
)

// loopbackAddr is the address a bundled server listens on. A bare ":PORT" means loopback,
// and a host that is not loopback needs --allow-remote: a test server reachable from the
// network by accident is a hole in the machine it runs on.
func loopbackAddr(cmd, addr string, allowRemote bool) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil || port == "" {
		return "", usageErrorf("%s: listen address %q: want HOST:PORT, such as 127.0.0.1:3001", cmd, addr)
	}
	if host == "" {
		return net.JoinHostPort("127.0.0.1", port), nil
	}
	if allowRemote || host == "localhost" {
		return addr, nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return addr, nil
	}
	return "", usageErrorf("%s: listen address %q is not loopback: add --allow-remote to serve other machines", cmd, addr)
}

// checkWritableFile refuses a path that names a directory: a file written there at the end
// of a whole run would fail only then, and the user's mistake would read as the target's.
func checkWritableFile(cmd, flagName, path string) error {
	if path == "" {
		return nil
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return usageErrorf("%s: --%s %q is a directory: give a file path", cmd, flagName, path)
	}
	return nil
}

// checkHeaderValue refuses a header value that could split the request: CR, LF or NUL.
func checkHeaderValue(cmd, h string) error {
	if strings.ContainsAny(h, "\r\n\x00") {
		return usageErrorf("%s: --header %q holds a line break or NUL: a header value is one line", cmd, h)
	}
	return nil
}
