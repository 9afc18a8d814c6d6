package model

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/dpmcmc/dpmcmc/core/dataset"
)

// boundedTable is smallTable with public bounds age 18:90, dose 0:5 (the
// outcome unbounded: a 0/1 logistic outcome needs none).
func boundedTable() *dataset.Table {
	t := smallTable()
	t.Bounds = []*dataset.Bound{{Lo: 18, Hi: 90}, {Lo: 0, Hi: 5}, nil}
	return t
}

// The scaled model is the same likelihood in other coordinates: at β and
// at θ = ToUser(β) every row's log-likelihood and the linear predictor
// agree, for every regression family, with and without an intercept; the
// design columns are stored in [−1, 1] and their public ranges are [−1, 1]
// (intercept: the bounds' centre is 0).
func TestScaledModelIsAReparameterization(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, fam := range []string{"logistic", "linear", "poisson"} {
		for _, noInt := range []bool{false, true} {
			spec := Spec{Model: fam, Outcome: "y", NoIntercept: noInt}
			user, err := Build(spec, boundedTable())
			if err != nil {
				t.Fatal(err)
			}
			spec.Scale = ScaleBounds
			scaled, err := Build(spec, boundedTable())
			if err != nil {
				t.Fatal(err)
			}
			sc := ScalingOf(scaled)
			if sc == nil || ScalingOf(user) != nil {
				t.Fatalf("%s: ScalingOf scaled %v, user %v", fam, sc, ScalingOf(user))
			}
			rd, _ := RegressionDataOf(scaled)
			for j, iv := range rd.XRanges {
				if j == 0 && !noInt {
					continue
				}
				if iv.Lo < -1 || iv.Hi > 1 || (!noInt && (iv.Lo != -1 || iv.Hi != 1)) {
					t.Errorf("%s no-intercept=%v: scaled range %d = %v", fam, noInt, j, iv)
				}
			}
			for _, v := range rd.X {
				if v < -1 || v > 1 {
					t.Fatalf("%s: scaled design value %v outside [-1, 1]", fam, v)
				}
			}
			rows := []int{0, 1, 2}
			a, b := make([]float64, 3), make([]float64, 3)
			for range 20 {
				beta := make([]float64, scaled.Dim())
				for j := range beta {
					beta[j] = r.NormFloat64()
				}
				theta := append([]float64(nil), beta...)
				sc.ToUser(theta)
				scaled.LogLik(beta, rows, a)
				user.LogLik(theta, rows, b)
				for i := range a {
					if math.Abs(a[i]-b[i]) > 1e-12*(1+math.Abs(b[i])) {
						t.Fatalf("%s no-intercept=%v: row %d log-lik %v (scaled) vs %v (user)", fam, noInt, i, a[i], b[i])
					}
				}
				back := append([]float64(nil), theta...)
				sc.FromUser(back)
				for j := range back {
					if math.Abs(back[j]-beta[j]) > 1e-12*(1+math.Abs(beta[j])) {
						t.Fatalf("%s: FromUser(ToUser(β)) = %v, β = %v", fam, back, beta)
					}
				}
			}
		}
	}
}

// Intercept 0, slopes per half-range: age 18:90 has centre 54, half-range
// 36, so β = (0, 36, 0) is θ = (−54, 1, 0): one per year.
func TestScalingBackTransform(t *testing.T) {
	m, err := Build(Spec{Model: "logistic", Outcome: "y", Scale: ScaleBounds}, boundedTable())
	if err != nil {
		t.Fatal(err)
	}
	beta := []float64{0, 36, 0}
	ScalingOf(m).ToUser(beta)
	if want := []float64{-54, 1, 0}; math.Abs(beta[0]-want[0]) > 1e-12 || math.Abs(beta[1]-want[1]) > 1e-15 || beta[2] != 0 {
		t.Fatalf("ToUser = %v, want %v", beta, want)
	}
}

// The default prior on the scaled space is DefaultScaledPriorSD; a given
// one is kept; scale needs a bound for every predictor and a regression.
func TestScaledPriorAndErrors(t *testing.T) {
	m, _ := Build(Spec{Model: "logistic", Outcome: "y", Scale: ScaleBounds}, boundedTable())
	if s := m.(*Logistic).PriorSD(); s != DefaultScaledPriorSD {
		t.Errorf("scaled default prior sd %v, want %v", s, DefaultScaledPriorSD)
	}
	m, _ = Build(Spec{Model: "logistic", Outcome: "y", Scale: ScaleBounds, PriorSD: 2.5}, boundedTable())
	if s := m.(*Logistic).PriorSD(); s != 2.5 {
		t.Errorf("given prior sd %v, want 2.5", s)
	}
	m, _ = Build(Spec{Model: "logistic", Outcome: "y", Scale: ScaleBounds, Options: map[string]string{"prior-sd": "3"}}, boundedTable())
	if s := m.(*Logistic).PriorSD(); s != 3 {
		t.Errorf("prior-sd option %v, want 3", s)
	}
	m, _ = Build(Spec{Model: "logistic", Outcome: "y"}, boundedTable())
	if s := m.(*Logistic).PriorSD(); s != 10 {
		t.Errorf("user-unit default prior sd %v, want 10", s)
	}
	unb := smallTable()
	unb.Bounds = []*dataset.Bound{{Lo: 18, Hi: 90}, nil, nil}
	_, err := Build(Spec{Model: "logistic", Outcome: "y", Scale: ScaleBounds}, unb)
	if !errors.Is(err, ErrColumn) || !strings.Contains(err.Error(), "dose") || strings.Contains(err.Error(), "age") {
		t.Errorf("missing bound: %v", err)
	}
	if _, err := Build(Spec{Model: "logistic", Outcome: "y", Scale: "standardize"}, boundedTable()); !errors.Is(err, ErrBadOption) {
		t.Errorf("bad scale: %v", err)
	}
	if _, err := Build(Spec{Model: "gmm", Predictors: []string{"dose"}, Scale: ScaleBounds}, boundedTable()); !errors.Is(err, ErrBadOption) {
		t.Errorf("scale on gmm: %v", err)
	}
}

// scale = auto is scale none's posterior in the scaled coordinates: with
// every predictor bounded the model is scaled, its log prior at β is the
// user-unit model's at θ = ToUser(β) plus the constant log|det ∂θ/∂β| =
// −Σ log h_j, its gradient matches finite differences, and the exact
// linear posterior maps to scale none's (mean by ToUser, covariance by J);
// without a bound for every predictor it is scale none.
func TestScaleAutoKeepsTheUserPrior(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 5))
	for _, fam := range []string{"logistic", "linear", "poisson"} {
		for _, noInt := range []bool{false, true} {
			spec := Spec{Model: fam, Outcome: "y", NoIntercept: noInt, PriorSD: 3}
			user, err := Build(spec, boundedTable())
			if err != nil {
				t.Fatal(err)
			}
			spec.Scale = ScaleAuto
			auto, err := Build(spec, boundedTable())
			if err != nil {
				t.Fatal(err)
			}
			sc := ScalingOf(auto)
			if sc == nil {
				t.Fatalf("%s: scale auto with every bound is not scaled", fam)
			}
			logDet := 0.0
			for j, h := range sc.Half {
				if j == 0 && sc.Intercept {
					continue
				}
				logDet -= math.Log(h)
			}
			d := auto.Dim()
			g := make([]float64, d)
			for range 10 {
				beta := make([]float64, d)
				for j := range beta {
					beta[j] = 3 * r.NormFloat64()
				}
				theta := append([]float64(nil), beta...)
				sc.ToUser(theta)
				if got, want := auto.LogPrior(beta), user.LogPrior(theta)+logDet; math.Abs(got-want) > 1e-10*(1+math.Abs(want)) {
					t.Fatalf("%s no-intercept=%v: log prior %v, want %v", fam, noInt, got, want)
				}
				auto.GradLogPrior(beta, g)
				for j := range beta {
					const h = 1e-5
					bp, bm := append([]float64(nil), beta...), append([]float64(nil), beta...)
					bp[j] += h
					bm[j] -= h
					fd := (auto.LogPrior(bp) - auto.LogPrior(bm)) / (2 * h)
					if math.Abs(fd-g[j]) > 1e-6*(1+math.Abs(fd)) {
						t.Fatalf("%s no-intercept=%v: ∂/∂β_%d = %v, finite difference %v", fam, noInt, j, g[j], fd)
					}
				}
			}
			if fam == "linear" {
				mu, cov := user.(*Linear).Posterior()
				mb, cb := auto.(*Linear).Posterior()
				mt := append([]float64(nil), mb...)
				sc.ToUser(mt)
				J := make([][]float64, d) // J[k][a] = ∂θ_k/∂β_a
				for a := range d {
					e := make([]float64, d)
					e[a] = 1
					sc.ToUser(e)
					for k := range d {
						if J[k] == nil {
							J[k] = make([]float64, d)
						}
						J[k][a] = e[k]
					}
				}
				for k := range d {
					if math.Abs(mt[k]-mu[k]) > 1e-8*(1+math.Abs(mu[k])) {
						t.Fatalf("no-intercept=%v: posterior mean %v (auto, mapped) vs %v", noInt, mt, mu)
					}
					for l := range d {
						c := 0.0
						for a := range d {
							for b := range d {
								c += J[k][a] * cb[a][b] * J[l][b]
							}
						}
						if math.Abs(c-cov[k][l]) > 1e-8*(1+math.Abs(cov[k][l])) {
							t.Fatalf("no-intercept=%v: posterior cov[%d][%d] %v (auto, mapped) vs %v", noInt, k, l, c, cov[k][l])
						}
					}
				}
			}
		}
	}
	// A missing bound: scale none, the same model as without the option.
	tab := boundedTable()
	tab.Bounds[1] = nil
	m, err := Build(Spec{Model: "logistic", Outcome: "y", Scale: ScaleAuto}, tab)
	if err != nil || ScalingOf(m) != nil {
		t.Errorf("scale auto with a missing bound: scaled %v (err %v)", ScalingOf(m), err)
	}
	if _, err := Build(Spec{Model: "banana", Scale: ScaleAuto}, tab); err == nil {
		t.Error("scale auto accepted for a non-regression model")
	}
}
