package main

import (
	"fmt"
	"runtime"
	"slices"
	"time"
)

// timing is one measured operation: wall and CPU nanoseconds per operation
// (the median over rounds, and the minimum, the least disturbed by other
// load) and heap allocations per operation.
type timing struct {
	WallNs, CPUNs           float64 // medians over rounds
	MinWallNs, MinCPUNs     float64
	ProcCPUNs, MinProcCPUNs float64 // process CPU (all goroutines) per operation
	Allocs                  float64
	Ops                     int
}

// measure runs op in rounds of about roundDur each (after one warm-up call)
// on a locked OS thread and returns its per-operation costs.
func measure(rounds int, roundDur time.Duration, op func()) timing {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	op()
	// calibrate the batch size to about roundDur
	n := 1
	for {
		t0 := time.Now()
		for range n {
			op()
		}
		if el := time.Since(t0); el >= roundDur/4 || n >= 1<<30 {
			n = max(1, int(float64(n)*float64(roundDur)/float64(max(el, 1))))
			break
		}
		n *= 4
	}
	var walls, cpus, procs []float64
	var ms0, ms1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms0)
	total := 0
	for range rounds {
		p0, c0, t0 := processCPU(), threadCPU(), time.Now()
		for range n {
			op()
		}
		el, c, pc := time.Since(t0), threadCPU()-c0, processCPU()-p0
		procs = append(procs, float64(pc)/float64(n))
		walls = append(walls, float64(el.Nanoseconds())/float64(n))
		if c > 0 {
			cpus = append(cpus, float64(c)/float64(n))
		}
		total += n
	}
	runtime.ReadMemStats(&ms1)
	t := timing{Ops: total, Allocs: float64(ms1.Mallocs-ms0.Mallocs) / float64(total)}
	t.WallNs, t.MinWallNs = median(walls), slices.Min(walls)
	t.ProcCPUNs, t.MinProcCPUNs = median(procs), slices.Min(procs)
	if len(cpus) > 0 {
		t.CPUNs, t.MinCPUNs = median(cpus), slices.Min(cpus)
	} else {
		t.CPUNs, t.MinCPUNs = t.WallNs, t.MinWallNs
	}
	return t
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// allocsText describes allocations per operation measured over a whole
// timed loop (process-wide MemStats): a fraction below 0.01 is the
// harness's and the runtime's own (a kernel allocates whole objects per
// iteration or none; row 1d checks each kernel exactly).
func allocsText(a float64) string {
	if a < 0.01 {
		return fmt.Sprintf("0 allocs (%.1g per op process-wide)", a)
	}
	return fmt.Sprintf("%.2g allocs", a)
}
