// goheap.go — a Go program with a heap in use, for tests/live/test_go.py.
// Built by the test with Debian's golang-go (go build, GOCACHE and GOPATH
// in a temporary directory, no network). Keeps 48 MiB in 1 MiB slices,
// runs a collection, then prints its own runtime.MemStats on one line:
//
//	ready PID heap_sys=N heap_inuse=N heap_idle=N heap_released=N
//	      stack_inuse=N sys=N
//
// and waits on stdin; exits when it closes. Nothing allocates after the
// line is printed, so the figures hold while it waits.
package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
)

var keep [][]byte

func main() {
	debug.SetGCPercent(-1) // no collection behind the test's back
	for i := 0; i < 48; i++ {
		b := make([]byte, 1<<20)
		for j := range b {
			b[j] = byte(i + j)
		}
		keep = append(keep, b)
	}
	runtime.GC()
	// Everything allocated before the figures are taken: the line's
	// buffer, the stdin buffer. The line is formatted (which allocates)
	// until the figures read after it are those it holds.
	var m, again runtime.MemStats
	line := make([]byte, 0, 256)
	var in [1]byte
	for {
		runtime.ReadMemStats(&m)
		line = fmt.Appendf(line[:0], "ready %d heap_sys=%d heap_inuse=%d heap_idle=%d heap_released=%d stack_inuse=%d sys=%d\n",
			os.Getpid(), m.HeapSys, m.HeapInuse, m.HeapIdle, m.HeapReleased,
			m.StackInuse, m.Sys)
		runtime.ReadMemStats(&again)
		if again.HeapSys == m.HeapSys && again.StackInuse == m.StackInuse {
			break
		}
	}
	os.Stdout.Write(line)
	for {
		if n, err := os.Stdin.Read(in[:]); n == 0 || err != nil {
			break
		}
	}
	fmt.Println(len(keep))
}
