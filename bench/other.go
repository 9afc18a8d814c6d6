package main

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strconv"

	"github.com/dpmcmc/dpmcmc/core/dataset"
	"github.com/dpmcmc/dpmcmc/core/diag"
	"github.com/dpmcmc/dpmcmc/core/privacy"
)

// benchPLD: one PLD query at 1e4 compositions (the accountant's benchmark:
// Poisson-subsampled Gaussian σ = 1.1, q = 0.01, add/remove, both
// directions, ε at δ = 1e-5).
func benchPLD() []row {
	nr, dur := rounds()
	var eps float64
	t := measure(nr, dur, func() {
		p, err := privacy.NewSubsampledGaussianPLD(1.1, 0.01, 10000, privacy.Poisson, privacy.AddRemove, privacy.PLDOptions{})
		if err != nil {
			panic(err)
		}
		if eps, err = p.Epsilon(1e-5); err != nil {
			panic(err)
		}
	})
	// The two directions are built in parallel goroutines: the measured
	// value is the process CPU time (both directions, GC included), what the
	// query costs on one core and an upper bound on its idle wall time on
	// two cores.
	return []row{{ID: "6", What: "PLD accountant, 1e4 compositions (σ=1.1, q=0.01, add/remove: 2 directions)",
		Measured: fmt.Sprintf("%s CPU (median %s; wall %s)", ms(t.MinProcCPUNs), ms(t.ProcCPUNs), ms(t.MinWallNs)),
		Target:   "< 50 ms", Status: pass(t.MinProcCPUNs < 50e6),
		Note: fmt.Sprintf("ε(1e-5) = %.4f; wall on an idle 2-core machine ≈ half the CPU", eps)}}
}

// csvBytes is a numeric CSV of about size bytes: 11 columns, 6 significant
// digits, like a clinical export.
func csvBytes(size int) []byte {
	r := rand.New(rand.NewPCG(3, 4))
	var b bytes.Buffer
	b.WriteString("y,x1,x2,x3,x4,x5,x6,x7,x8,x9,x10\n")
	for b.Len() < size {
		b.WriteString(strconv.Itoa(r.IntN(2)))
		for j := 0; j < 10; j++ {
			b.WriteByte(',')
			b.WriteString(strconv.FormatFloat(r.NormFloat64()*10, 'f', 4, 64))
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}

func benchCSV() []row {
	nr, dur := rounds()
	data := csvBytes(32 << 20)
	t := measure(nr, dur, func() {
		if _, _, err := dataset.Load(bytes.NewReader(data), dataset.Options{}); err != nil {
			panic(err)
		}
	})
	mbs := float64(len(data)) / 1e6 / (t.MinCPUNs / 1e9)
	return []row{{ID: "5", What: fmt.Sprintf("CSV parsing, %.0f MB numeric (11 columns), native", float64(len(data))/1e6),
		Measured: fmt.Sprintf("%.0f MB/s", mbs), Target: "≥ 100 MB/s", Status: pass(mbs >= 100)}}
}

func benchDiag() []row {
	nr, dur := rounds()
	const chains, draws, d = 4, 5000, 10
	r := rand.New(rand.NewPCG(5, 6))
	ch := make([][]float64, chains)
	for c := range ch {
		ch[c] = make([]float64, draws*d)
		prev := make([]float64, d)
		for i := 0; i < draws; i++ {
			for j := 0; j < d; j++ {
				prev[j] = 0.7*prev[j] + r.NormFloat64()
				ch[c][i*d+j] = prev[j]
			}
		}
	}
	names := make([]string, d)
	for j := range names {
		names[j] = "p" + strconv.Itoa(j)
	}
	t := measure(nr, dur, func() { summarize(ch, d, names) })
	return []row{{ID: "7", What: "diagnostics summary (R-hat, bulk/tail ESS, MCSE, quantiles), 4×5000×10",
		Measured: fmt.Sprintf("%s (median %s)", ms(t.MinCPUNs), ms(t.CPUNs)), Target: "—", Status: "info", Note: "reported ~0.9 s before"}}
}

var _ = diag.Summary
