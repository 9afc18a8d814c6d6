package model

// RegressionData is a read-only view of a generalized linear model's data,
// for mechanisms that compute their own statistics of the clipped rows
// (core/noiseaware releases noisy sufficient statistics once). The slices
// alias the model's storage: callers must not modify them. XRanges and
// YRange are the public ranges (from the user's bounds; the intercept column
// is [1, 1]), never computed from the data.
type RegressionData struct {
	Family    string    // "logistic", "linear" or "poisson"
	X         []float64 // n × d design, row-major; column 0 is 1 when Intercept
	Y         []float64 // outcome, length n
	N, D      int
	Intercept bool
	XRanges   []Interval
	YRange    Interval
	// NoiseSD is the linear model's known noise standard deviation σ (0
	// otherwise); Temper is the tempering factor F.
	NoiseSD float64
	Temper  float64
}

// RegressionDataOf returns the data view of a logistic, linear or Poisson
// model, and false for any other model.
func RegressionDataOf(m Model) (RegressionData, bool) {
	var r *regression
	rd := RegressionData{}
	switch v := m.(type) {
	case *Logistic:
		r, rd.Family = &v.regression, "logistic"
	case *Linear:
		r, rd.Family, rd.NoiseSD = &v.regression, "linear", v.sigma
	case *Poisson:
		r, rd.Family = &v.regression, "poisson"
	default:
		return RegressionData{}, false
	}
	rd.X, rd.Y, rd.N, rd.D = r.x, r.y, r.n, r.d
	rd.Intercept = r.hasIntercept()
	rd.XRanges = append([]Interval(nil), r.xiv...)
	rd.YRange = r.yiv
	rd.Temper = r.f
	return rd, true
}
