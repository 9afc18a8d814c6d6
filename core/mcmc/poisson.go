package mcmc

import (
	"github.com/dpmcmc/dpmcmc/core/mathx"
	"math"
	"math/rand/v2"
)

// poisson draws from Poisson(mu) without allocating: multiplication of
// uniforms (Knuth) for mu < 10, and Hörmann's transformed rejection with
// squeeze, PTRS (Hörmann 1993, "The transformed rejection method for
// generating Poisson random variables", Insurance: Mathematics and Economics
// 12), for mu ≥ 10. mu ≤ 0 gives 0.
func poisson(r *rand.Rand, mu float64) int {
	if !(mu > 0) {
		return 0
	}
	if mu < 10 {
		l := mathx.Exp(-mu)
		k, p := 0, r.Float64()
		for p > l {
			k++
			p *= r.Float64()
		}
		return k
	}
	slam := math.Sqrt(mu)
	loglam := mathx.Log(mu)
	b := 0.931 + 2.53*slam
	a := -0.059 + 0.02483*b
	invAlpha := 1.1239 + 1.1328/(b-3.4)
	vr := 0.9277 - 3.6224/(b-2)
	for {
		u := r.Float64() - 0.5
		v := r.Float64()
		us := 0.5 - math.Abs(u)
		k := math.Floor((2*a/us+b)*u + mu + 0.43)
		if us >= 0.07 && v <= vr {
			return int(k)
		}
		if k < 0 || (us < 0.013 && v > us) {
			continue
		}
		lg := mathx.LogFactorial(k)
		if mathx.Log(v)+mathx.Log(invAlpha)-mathx.Log(a/(us*us)+b) <= -mu+k*loglam-lg {
			return int(k)
		}
	}
}
