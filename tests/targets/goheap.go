// goheap.go — a Go program with a heap in use, for tests/live/test_go.py.
// Built by the test with Debian's golang-go (go build, GOCACHE and GOPATH
// in a temporary directory, no network). Keeps 48 MiB in 1 MiB slices,
// runs a collection, then prints its own runtime.MemStats on one line:
//
//	ready PID heap_sys=N heap_inuse=N heap_idle=N heap_released=N
//	      stack_inuse=N sys=N heap_alloc=N heap_objects=N
//
// and waits on stdin: each line read, the figures read and printed again;
// exits when it closes. Nothing allocates after the figures are read (the
// line is made with strconv into a buffer made before), but the runtime
// may: the first wait in read(2), a blocking system call, can make sysmon
// hand the goroutine's P to a new thread, whose m (some 1.8 KB of heap)
// and g0 and signal stacks (StackInuse) come after the first line. So the
// test asks for a second one: that thread is made by then, and idle when
// the read blocks again.
package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
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
	field := func(b []byte, name string, v uint64) []byte {
		b = append(b, ' ')
		b = append(b, name...)
		b = append(b, '=')
		return strconv.AppendUint(b, v, 10)
	}
	for {
		for {
			runtime.ReadMemStats(&m)
			line = append(line[:0], "ready "...)
			line = strconv.AppendInt(line, int64(os.Getpid()), 10)
			line = field(line, "heap_sys", m.HeapSys)
			line = field(line, "heap_inuse", m.HeapInuse)
			line = field(line, "heap_idle", m.HeapIdle)
			line = field(line, "heap_released", m.HeapReleased)
			line = field(line, "stack_inuse", m.StackInuse)
			line = field(line, "sys", m.Sys)
			line = field(line, "heap_alloc", m.HeapAlloc)
			line = field(line, "heap_objects", m.HeapObjects)
			line = append(line, '\n')
			runtime.ReadMemStats(&again)
			if again.HeapSys == m.HeapSys &&
				again.StackInuse == m.StackInuse &&
				again.HeapAlloc == m.HeapAlloc &&
				again.HeapInuse == m.HeapInuse {
				break
			}
		}
		os.Stdout.Write(line)
		// to the end of a line (or of stdin)
		for {
			n, err := os.Stdin.Read(in[:])
			if n == 0 || err != nil {
				fmt.Println(len(keep))
				return
			}
			if in[0] == '\n' {
				break
			}
		}
	}
}
