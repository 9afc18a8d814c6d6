package noiseaware

import "math"

// # Design-adapted coordinates (Spec.Whiten)
//
// The releases' noise is isotropic and their sensitivity is set by the
// worst row the public box allows, a corner of [−1, 1]^k. Real predictors
// fill a small, often tilted part of that box: clinical measurements are
// correlated and sit off the centre of their bounds. The information M
// then has small eigenvalues in the directions that separate correlated
// predictors (3.2–21 on the breast-cancer design at n = 5,000, against
// 855 along the intercept), below the spectral size of M's noise, and those
// directions come out mostly prior whatever the sampler does.
//
// The first release, at θ = 0, already holds the design's moments:
// M₁ = w₀·Σ x̃x̃ᵀ with w₀ = ¼ (logistic) or 1 (Poisson, min(e⁰, K)). From it
// (post-processing) come the predictors' mean m̂ = D₀ⱼ/n and covariance
// Ĉ = D_{jl}/n − m̂m̂ᵀ (D = M̃₁/w₀), with Ĉ's eigenvalues floored at
// WhitenFloor times the spectral size of its release noise (σ_D·√(2k)/n)
// so that directions the release cannot see are not blown up, and capped
// at k. Every later release computes its statistics on
//
//	u = (1, L(x̃_{1:} − m̂)),  L = Ĉ^{−1/2},
//
// with the predictors' part shrunk to norm at most C (ClipRadius, public:
// C² = k + 4√(2k), the χ²_k mean plus four of its sds, so that about one
// row in a thousand of a Gaussian design is shrunk; k = d − 1 predictors).
// The linear predictor is unchanged for every row that is not shrunk:
// θᵀx̃ = γᵀu with γ = A⁻ᵀθ, γ₀ = θ₀ + m̂ᵀθ_{1:}, γ_{1:} = L⁻¹θ_{1:}
// (A the map x̃ ↦ u). The sensitivities are those of the box with
// ‖x̃_{1:}‖² ≤ k replaced by ‖u_{1:}‖² ≤ C² (scoreSensitivity,
// infoSensitivity: the same argument, rows of norm at most √(1 + C²)),
// whatever L is: L is public once M̃₁ is released, so the later releases
// compose adaptively with the first.
//
// In u the information is about n·w̄·I in every direction the design
// varies, so the same noise is small against all of it. On the
// breast-cancer design at n = 5,000, ε = 8 (true slopes of an odds ratio of
// 2 per predictor sd), one release at the truth gives scaled sds
// 0.25–0.49 against 1.8–9.0 in the box (docs/SAMPLERS.md "Design-adapted
// coordinates"). The cost is the shrinking: a row beyond C enters the
// later releases as if its predictors were nearer the centre, which the
// posterior does not model (at most a few rows per thousand on a Gaussian
// design; more on heavy-tailed ones).

// WhitenFloor scales the floor of the design covariance's eigenvalues: the
// spectral size of their release noise, σ_D·√(2k)/n, times this.
const WhitenFloor = 0.5

// clipRadius is C of the design-adapted coordinates for k predictors.
func clipRadius(k int) float64 {
	kf := float64(k)
	return math.Sqrt(kf + 4*math.Sqrt(2*kf))
}

// designCoords is the map A: x̃ ↦ u of the design-adapted coordinates.
type designCoords struct {
	k    int
	m    []float64 // m̂ (k)
	l    []float64 // L = Ĉ^{−1/2} (k × k, symmetric)
	linv []float64 // L⁻¹ = Ĉ^{1/2}
	c    float64   // ClipRadius
	// lm is L·m̂.
	lm []float64
}

// designCovariance estimates the predictors' mean m̂ and covariance Ĉ
// from the first release's information M̃₁ (d × d) of n rows
// (post-processing; see the file's doc) and returns m̂ with Ĉ's
// eigenvectors (k × k, column i the i-th) and its eigenvalues floored at
// WhitenFloor times the spectral size of their release noise and capped
// at k. stdM is that release's information noise std and w0 the weight
// every row has at θ = 0.
func designCovariance(n int, M1 []float64, d int, stdM, w0 float64) (m, vecs, vals []float64) {
	k := d - 1
	nf := float64(n)
	m = make([]float64, k)
	for j := range k {
		m[j] = clamp1(M1[j+1] / w0 / nf) // row 0 of D is Σ x̃_j
	}
	cov := make([]float64, k*k)
	for a := range k {
		for b := range k {
			cov[a*k+b] = M1[(a+1)*d+b+1]/w0/nf - m[a]*m[b]
		}
	}
	floor := math.Max(1e-6, WhitenFloor*stdM/w0*math.Sqrt(2*float64(k))/nf)
	vecs, vals = make([]float64, k*k), make([]float64, k)
	jacobiEigen(cov, vecs, vals, k)
	for i := range vals {
		vals[i] = math.Min(math.Max(vals[i], floor), float64(k))
	}
	return m, vecs, vals
}

// designCoordsOf derives the design-adapted coordinates from the first
// release's information M̃₁ (designCovariance), with shrink radius c.
func designCoordsOf(n int, M1 []float64, d int, stdM, w0, c float64) *designCoords {
	k := d - 1
	m, vecs, vals := designCovariance(n, M1, d, stdM, w0)
	dc := &designCoords{k: k, m: m, l: make([]float64, k*k), linv: make([]float64, k*k), c: c, lm: make([]float64, k)}
	for a := range k {
		for b := range k {
			s, si := 0.0, 0.0
			for i := range k {
				s += vecs[a*k+i] * vecs[b*k+i] / math.Sqrt(vals[i])
				si += vecs[a*k+i] * vecs[b*k+i] * math.Sqrt(vals[i])
			}
			dc.l[a*k+b], dc.linv[a*k+b] = s, si
		}
	}
	for a := range k {
		s := 0.0
		for b := range k {
			s += dc.l[a*k+b] * dc.m[b]
		}
		dc.lm[a] = s
	}
	return dc
}

// row writes u = A·x̃ of the design row x (x[0] = 1, the intercept) to u,
// with u_{1:} shrunk to norm at most C.
func (dc *designCoords) row(x, u []float64) {
	u[0] = 1
	n2 := 0.0
	for a := range dc.k {
		s := -dc.lm[a]
		for b := range dc.k {
			s += dc.l[a*dc.k+b] * x[b+1]
		}
		u[a+1] = s
		n2 += s * s
	}
	if n2 > dc.c*dc.c {
		f := dc.c / math.Sqrt(n2)
		for a := 1; a <= dc.k; a++ {
			u[a] *= f
		}
	}
}

// gamma writes γ = A⁻ᵀθ: γ₀ = θ₀ + m̂ᵀθ_{1:}, γ_{1:} = L⁻¹θ_{1:}.
func (dc *designCoords) gamma(theta, out []float64) {
	g0 := theta[0]
	for a := range dc.k {
		g0 += dc.m[a] * theta[a+1]
		s := 0.0
		for b := range dc.k {
			s += dc.linv[a*dc.k+b] * theta[b+1]
		}
		out[a+1] = s
	}
	out[0] = g0
}

// theta writes θ = Aᵀγ to out (which may be gamma): θ_{1:} = Lγ_{1:},
// θ₀ = γ₀ − (Lm̂)ᵀγ_{1:}. scratch has length k.
func (dc *designCoords) theta(gamma, out, scratch []float64) {
	t0 := gamma[0]
	for a := range dc.k {
		t0 -= dc.lm[a] * gamma[a+1]
		s := 0.0
		for b := range dc.k {
			s += dc.l[a*dc.k+b] * gamma[b+1]
		}
		scratch[a] = s
	}
	out[0] = t0
	copy(out[1:], scratch)
}

// matrix returns A (d × d, row-major): A₀₀ = 1, A_{i0} = −(Lm̂)_i, A_{ij} = L_ij.
func (dc *designCoords) matrix() []float64 {
	d := dc.k + 1
	a := make([]float64, d*d)
	a[0] = 1
	for i := range dc.k {
		a[(i+1)*d] = -dc.lm[i]
		for j := range dc.k {
			a[(i+1)*d+j+1] = dc.l[i*dc.k+j]
		}
	}
	return a
}

// priorPrecision returns AAᵀ/s², the precision of γ = A⁻ᵀθ under the
// N(0, s²I) prior on θ.
func (dc *designCoords) priorPrecision(s float64) []float64 {
	a := dc.matrix()
	d := dc.k + 1
	out := make([]float64, d*d)
	for i := range d {
		for j := range d {
			v := 0.0
			for k := range d {
				v += a[i*d+k] * a[j*d+k]
			}
			out[i*d+j] = v / (s * s)
		}
	}
	return out
}

// transformStats maps box statistics to the design-adapted coordinates in
// place, S ← A·S and M ← A·M·Aᵀ (what statisticsIn gives when no row is
// shrunk).
func (dc *designCoords) transformStats(S, M []float64) {
	a := dc.matrix()
	d := dc.k + 1
	s := make([]float64, d)
	am := make([]float64, d*d)
	for i := range d {
		for j := range d {
			s[i] += a[i*d+j] * S[j]
			for k := range d {
				am[i*d+j] += a[i*d+k] * M[k*d+j]
			}
		}
	}
	copy(S, s)
	for i := range d {
		for j := range d {
			v := 0.0
			for k := range d {
				v += am[i*d+k] * a[j*d+k]
			}
			M[i*d+j] = v
		}
	}
}
