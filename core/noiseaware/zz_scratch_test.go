package noiseaware

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/dpmcmc/dpmcmc/core/dataset"
	"github.com/dpmcmc/dpmcmc/core/model"
)

func envF(k string, d float64) float64 {
	if v := os.Getenv(k); v != "" {
		f, _ := strconv.ParseFloat(v, 64)
		return f
	}
	return d
}

// TestZZScratch: per-coefficient coverage and mean sd.
func TestZZScratch(t *testing.T) {
	expTries = int(envF("ZTRIES", 0))
	firstShare = envF("ZFIRST", 0.2)
	scoreShare = envF("ZSCORE", 0.6)
	relN := int(envF("ZREL", 0))
	n := int(envF("ZN", 569))
	eps := envF("ZEPS", 3)
	prior := envF("ZPRIOR", 20)
	reps := int(envF("ZREPS", 40))
	tab := loadBC(t)
	m := buildLogistic(t, tab)
	p, _ := NewPlan(specFor(t, m, 3, 1e-5))
	truth, _ := laplace(m, p)
	for j := range truth {
		truth[j] = math.Round(truth[j]*100) / 100
	}
	design := func() *dataset.Table { return loadBC(t) }
	if n != 569 {
		design = func() *dataset.Table { return resample(loadBC(t), n, 11) }
	}
	r := rand.New(rand.NewPCG(uint64(envF("ZSEED", 9)), 1))
	d := len(truth)
	hit := make([]int, d)
	sdsum := make([]float64, d)
	meanErr := make([]float64, d)
	var bh, bt [2]int
	distSum := 0.0
	for range reps {
		tab := design()
		if envF("ZSBC", 0) > 0 {
			sc := envF("ZSBC", 0)
			for j := range truth {
				truth[j] = sc * r.NormFloat64()
			}
			p.ToUser(truth, true)
		}
		simulateLogistic(tab, truth, r)

		m := buildLogistic(t, tab)
		s := specFor(t, m, eps, 1e-5)
		s.PriorSD = prior
		s.Releases = relN
		p, err := NewPlan(s)
		if err != nil {
			t.Fatal(err)
		}
		rel, err := Run(p, m, r)
		if err != nil {
			t.Fatal(err)
		}
		dr := drawsUser(rel, 2000, r, true)
		tcmp := truth
		if envF("ZSCALED", 0) > 0 {
			for _, v := range dr {
				p.FromUser(v, true)
			}
			tcmp = append([]float64(nil), truth...)
			p.FromUser(tcmp, true)
		}
		var lm, ls []float64
		{
			mm, ss := laplaceScaled(m, p)
			th := rel.Theta[len(rel.Theta)-1]
			dd := 0.0
			for j := range mm {
				dd = math.Max(dd, math.Abs(th[j]-mm[j])/ss[j])
			}
			distSum += dd
			if envF("ZPATH", 0) > 0 {
				var b strings.Builder
				for _, th := range rel.Theta {
					d2 := 0.0
					for j := range mm {
						d2 = math.Max(d2, math.Abs(th[j]-mm[j])/ss[j])
					}
					fmt.Fprintf(&b, " %.2f", d2)
				}
				t.Logf("path dist:%s  mode %.1f", b.String(), mm)
			}
			if envF("ZLAP", 0) > 0 {
				lm, ls = mm, ss
			}
		}
		// diagnostic: max_j |mean_j - θR_j| / sd_j on the scaled space
		R := len(rel.Theta)
		ds := make([][]float64, len(dr))
		for i, v := range dr {
			w := append([]float64(nil), v...)
			p.FromUser(w, true)
			ds[i] = w
		}
		delta := 0.0
		for j := range truth {
			mu, m2 := 0.0, 0.0
			for _, w := range ds {
				mu += w[j]
			}
			mu /= float64(len(ds))
			for _, w := range ds {
				m2 += (w[j] - mu) * (w[j] - mu)
			}
			sdj := math.Sqrt(m2 / float64(len(ds)))
			delta = math.Max(delta, math.Abs(mu-rel.Theta[R-1][j])/sdj)
		}
		bucket := 0
		if delta > envF("ZDT", 1) {
			bucket = 1
		}
		for j := range truth {
			q := quantiles(dr, j, 0.05, 0.5, 0.95)
			if q[0] <= tcmp[j] && tcmp[j] <= q[2] {
				bh[bucket]++
			}
			bt[bucket]++
			if lm != nil {
				q = []float64{lm[j] - 1.645*ls[j], lm[j], lm[j] + 1.645*ls[j]}
			}
			if q[0] <= tcmp[j] && tcmp[j] <= q[2] {
				hit[j]++
			}
			sdsum[j] += (q[2] - q[0]) / 3.29
			meanErr[j] += q[1] - tcmp[j]
		}
	}
	var b strings.Builder
	tot := 0
	for j := range truth {
		tot += hit[j]
		fmt.Fprintf(&b, " %.2f(sd %.1f, bias %.1f)", float64(hit[j])/float64(reps), sdsum[j]/float64(reps), meanErr[j]/float64(reps))
	}
	t.Logf("mean max |θ_R − mode|/sd_lap = %.2f", distSum/float64(reps))
	t.Logf("delta<=thr: %d/%d = %.3f; delta>thr: %d/%d = %.3f", bh[0], bt[0], float64(bh[0])/float64(max(bt[0], 1)), bh[1], bt[1], float64(bh[1])/float64(max(bt[1], 1)))
	t.Logf("n=%d eps=%v prior=%v truth=%v: coverage %.3f:%s", n, eps, prior, truth, float64(tot)/float64(reps*d), b.String())
}

func laplaceScaled(m model.Model, p *Plan) ([]float64, []float64) {
	rd, _ := model.RegressionDataOf(m)
	d := rd.D
	theta := make([]float64, d)
	var H []float64
	for range 100 {
		S, M := p.statistics(&rd, theta)
		H = append([]float64(nil), M...)
		g := make([]float64, d)
		for j := range d {
			H[j*d+j] += 1 / (p.PriorSD * p.PriorSD)
			g[j] = S[j] - theta[j]/(p.PriorSD*p.PriorSD)
		}
		step := make([]float64, d)
		if err := cholSolve(H, d, g, step); err != nil {
			panic(err)
		}
		nrm := 0.0
		for j := range d {
			nrm += step[j] * step[j]
		}
		sc := math.Min(1, 5/math.Sqrt(nrm))
		for j := range d {
			theta[j] += sc * step[j]
		}
	}
	sd := make([]float64, d)
	for k := range d {
		e := make([]float64, d)
		e[k] = 1
		x := make([]float64, d)
		_ = cholSolve(H, d, e, x)
		sd[k] = math.Sqrt(x[k])
	}
	return theta, sd
}
