package suites

import "testing"

func TestListeningSockets(t *testing.T) {
	tcp := `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 111 1 0000000000000000 100 0 0 10 0
   1: 00000000:1F91 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 222 1 0000000000000000 100 0 0 10 0
   2: 0100007F:1F90 0100007F:A000 01 00000000:00000000 00:00000000 00000000  1000        0 333 1 0000000000000000 100 0 0 10 0
`
	got := listeningSockets(tcp)
	if len(got) != 2 {
		t.Fatalf("got %d listeners, want 2 (the established one left out): %v", len(got), got)
	}
	if !got[0].ip.IsLoopback() || got[0].port != 8080 || got[0].inode != "111" {
		t.Errorf("first = %+v, want 127.0.0.1:8080 inode 111", got[0])
	}
	if !got[1].ip.IsUnspecified() || got[1].port != 8081 {
		t.Errorf("second = %+v, want 0.0.0.0:8081", got[1])
	}
	tcp6 := `  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 00000000000000000000000001000000:1F90 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 444 1 0000000000000000 100 0 0 10 0
   1: 00000000000000000000000000000000:1F91 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 555 1 0000000000000000 100 0 0 10 0
`
	got = listeningSockets(tcp6)
	if len(got) != 2 || !got[0].ip.IsLoopback() || !got[1].ip.IsUnspecified() {
		t.Errorf("tcp6 = %+v, want [::1]:8080 and [::]:8081", got)
	}
}

func TestIsLoopbackHost(t *testing.T) {
	for host, want := range map[string]bool{
		"localhost": true, "LOCALHOST": true, "127.0.0.1": true, "127.1.2.3": true, "::1": true,
		"evil.example": false, "localhost.evil.example": false, "10.0.0.1": false, "0.0.0.0": false, "": false,
	} {
		if got := isLoopbackHost(host); got != want {
			t.Errorf("isLoopbackHost(%q) = %v, want %v", host, got, want)
		}
	}
}
