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
	"bufio"
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
	var m runtime.MemStats
	line := make([]byte, 0, 256)
	runtime.ReadMemStats(&m)
	line = fmt.Appendf(line, "ready %d heap_sys=%d heap_inuse=%d heap_idle=%d heap_released=%d stack_inuse=%d sys=%d\n",
		os.Getpid(), m.HeapSys, m.HeapInuse, m.HeapIdle, m.HeapReleased,
		m.StackInuse, m.Sys)
	os.Stdout.Write(line)
	r := bufio.NewReader(os.Stdin)
	for {
		if _, err := r.ReadByte(); err != nil {
			break
		}
	}
	fmt.Println(len(keep))
}
