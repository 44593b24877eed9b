package proxytest

import (
	"bufio"
	"io"
	"net"
	"strconv"
	"testing"
)

// TestForward: bytes pass both ways through the proxy, and Serve sees the
// connections numbered 1, 2, … in the order accepted.
func TestForward(t *testing.T) {
	// An echo server: each line back, prefixed with "echo ".
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				r := bufio.NewReader(c)
				for {
					line, err := r.ReadString('\n')
					if err != nil {
						return
					}
					io.WriteString(c, "echo "+line)
				}
			}()
		}
	}()
	seen := make(chan int, 2)
	p := Start(t, ln.Addr().String(), func(n int, c net.Conn, dial func() (net.Conn, error)) {
		seen <- n
		Forward(n, c, dial)
	})
	for want := 1; want <= 2; want++ {
		c, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(p.Port()))
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(c, "hello\n")
		got, err := bufio.NewReader(c).ReadString('\n')
		c.Close()
		if err != nil || got != "echo hello\n" {
			t.Errorf("connection %d: read %q, %v", want, got, err)
		}
		if n := <-seen; n != want {
			t.Errorf("connection numbered %d, want %d", n, want)
		}
	}
}
