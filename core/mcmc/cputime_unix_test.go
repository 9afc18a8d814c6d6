//go:build unix

package mcmc

import "syscall"

// processCPUNanos is the process's user+system CPU time, so benchmarks can
// report CPU-ns/op, which other processes on a busy machine do not inflate
// the way they inflate wall-clock ns/op.
func processCPUNanos() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
