package main

import (
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
)

// readCSV reads a mu,sigma,weight mixture.
func readCSV(t *testing.T, path string) mixture {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Skip(err)
	}
	var m mixture
	for i, ln := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if i == 0 {
			continue
		}
		f := strings.Split(ln, ",")
		v := make([]float64, 3)
		for j := range v {
			v[j], _ = strconv.ParseFloat(strings.TrimSpace(f[j]), 64)
		}
		m.mu, m.s, m.w = append(m.mu, v[0]), append(m.s, v[1]), append(m.w, v[2])
	}
	return m
}

// TestReferenceFits evaluates the reference mixtures with this tool's loss
// and CDF error (a check that the objective is the same one).
func TestReferenceFits(t *testing.T) {
	for _, c := range []struct {
		f string
		C float64
	}{{"C1.0_K50.csv", 1}, {"C2.0_K50.csv", 2}} {
		m := readCSV(t, "../../testdata/vcorr/"+c.f)
		K := len(m.mu)
		p := make([]float64, 3*K)
		for k := 0; k < K; k++ {
			p[k] = m.mu[k]
			p[K+k] = logf(m.s[k])
			p[2*K+k] = logf(m.w[k])
		}
		r := make([]float64, gridN)
		l := residuals(p, K, c.C, gridX(), r, nil)
		t.Logf("%s: loss %.6g, sup CDF error %.3g", c.f, l, supCDFError(m, c.C))
	}
}

func logf(x float64) float64 { return math.Log(x) }
