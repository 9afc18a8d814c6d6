package model

import (
	"errors"
	"fmt"
	"github.com/dpmcmc/dpmcmc/core/mathx"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/dpmcmc/dpmcmc/core/dataset"
	"gonum.org/v1/gonum/mat"
)

// Spec is the public, JSON-serializable description of a model. It is part
// of a run's config and is embedded in every export.
type Spec struct {
	// Model is one of Models(): logistic, linear, poisson, gaussian, gmm,
	// banana.
	Model string `json:"model"`
	// Outcome is the outcome column (regression models only).
	Outcome string `json:"outcome,omitempty"`
	// Predictors are the data columns used. Regression: the predictors
	// (default: every column but the outcome). gaussian: one column per
	// dimension (default: every column). gmm: one column (default "x").
	// banana: x1, x2[, x3…] (default "x1", "x2").
	Predictors []string `json:"predictors,omitempty"`
	// NoIntercept drops the intercept (regression models only).
	NoIntercept bool `json:"no_intercept,omitempty"`
	// PriorSD is s of the N(0, s²) prior on every coefficient (regression
	// models, default 10) or on every mean component (gaussian, default
	// 100). Zero means the default. Same as the option prior-sd.
	PriorSD float64 `json:"prior_sd,omitempty"`
	// Scale is how regression coefficients are parameterized: "bounds"
	// samples the coefficients of the predictors mapped to [−1, 1] by
	// their public bounds (every predictor needs one; draws are reported in
	// the user's units by the back-transform, see Scaling; the default
	// prior is then DefaultScaledPriorSD), "auto" the same when every
	// predictor has a bound but with the prior kept on the coefficients in
	// the user's units (the posterior of "none", sampled on the scaled
	// space; see ScaleAuto), "none" or empty the user's units. Regression
	// models only.
	Scale string `json:"scale,omitempty"`
	// Options are the model's key=value options (see Models()).
	Options map[string]string `json:"options,omitempty"`
	// Temper is F in ℓ_i = F·log p(x_i | θ), 0 < F ≤ 1; zero means 1. Same
	// as the option temper.
	Temper float64 `json:"temper,omitempty"`
	// Cov is the known covariance of the gaussian model (d × d, symmetric
	// positive definite; nil means the identity). The CLI reads it from the
	// file named by the option cov=FILE.csv.
	Cov [][]float64 `json:"cov,omitempty"`
}

// OptionInfo documents one key=value option of a model.
type OptionInfo struct {
	Key     string `json:"key"`
	Default string `json:"default"`
	Doc     string `json:"doc"`
}

// ModelInfo documents one model for help screens and the page.
type ModelInfo struct {
	Name       string       `json:"name"`
	Doc        string       `json:"doc"`
	Regression bool         `json:"regression"` // needs an outcome; parameters intercept, predictors
	Options    []OptionInfo `json:"options"`
}

var temperOpt = OptionInfo{"temper", "1", "tempering F: ℓ_i = F·log p(x_i|θ), 0 < F ≤ 1"}

func regPriorOpt() OptionInfo {
	return OptionInfo{"prior-sd", "10", "s of the N(0, s²) prior on every coefficient (intercept included)"}
}

var catalog = []ModelInfo{
	{"logistic", "logistic regression, outcome 0/1, logit link", true,
		[]OptionInfo{regPriorOpt(), temperOpt}},
	{"linear", "linear regression with Gaussian noise of known sd", true,
		[]OptionInfo{{"noise-sd", "1", "known noise standard deviation σ (a run never uses this default: a non-private run without it uses the least-squares residual sd of its rows, a private run must give it)"}, regPriorOpt(), temperOpt}},
	{"poisson", "Poisson regression, outcome a non-negative integer, log link", true,
		[]OptionInfo{regPriorOpt(), temperOpt}},
	{"gaussian", "d-dimensional Gaussian mean with known covariance (DP-HMC paper §4); columns: the predictors, default all", false,
		[]OptionInfo{{"prior-sd", "100", "s of the N(0, s²I) prior on the mean"},
			{"cov", "identity", "CSV file with the known d × d covariance (read by the caller into Spec.Cov)"}, temperOpt}},
	{"gmm", "two-component Gaussian mixture of Welling & Teh (2011); column x", false,
		[]OptionInfo{{"var-x", "2", "variance σ_x² of each component"},
			{"prior-var1", "10", "prior variance of θ1"},
			{"prior-var2", "1", "prior variance of θ2"}, temperOpt}},
	{"banana", "banana model (DP-HMC paper §4, thesis §2.3); columns x1, x2", false,
		[]OptionInfo{{"a", "20", "curvature a: x2 ~ N(θ2 + a·θ1², var2)"},
			{"prior-var", "1000", "σ0²: (θ1, θ2 + a·θ1²) ~ N(0, σ0²I)"},
			{"var1", "2000", "variance of x1"},
			{"var2", "2500", "variance of x2"},
			{"var-rest", "1", "variance of x3, x4, … (d > 2 only)"}, temperOpt}},
}

// Models lists the available models and their options.
func Models() []ModelInfo {
	out := make([]ModelInfo, len(catalog))
	for i, m := range catalog {
		m.Options = slices.Clone(m.Options)
		out[i] = m
	}
	return out
}

func modelNames() []string {
	var s []string
	for _, m := range catalog {
		s = append(s, m.Name)
	}
	return s
}

// ErrUnknownModel, ErrUnknownOption, ErrBadOption, ErrColumn and ErrData
// classify Build's errors (use errors.Is).
var (
	ErrUnknownModel  = errors.New("unknown model")
	ErrUnknownOption = errors.New("unknown option")
	ErrBadOption     = errors.New("bad option value")
	ErrColumn        = errors.New("bad column selection")
	ErrData          = errors.New("data outside the model's support")
)

// opts are the parsed numeric options with their defaults filled in.
type opts map[string]float64

// parseOptions checks every key against the catalog and parses every value
// (except cov) as a float.
func parseOptions(info ModelInfo, spec Spec) (opts, error) {
	o := opts{}
	valid := map[string]bool{}
	var keys []string
	for _, oi := range info.Options {
		valid[oi.Key] = true
		keys = append(keys, oi.Key)
		if oi.Key != "cov" {
			v, err := strconv.ParseFloat(oi.Default, 64)
			if err != nil {
				panic(err)
			}
			o[oi.Key] = v
		}
	}
	given := make([]string, 0, len(spec.Options))
	for k := range spec.Options {
		given = append(given, k)
	}
	sort.Strings(given)
	for _, k := range given {
		if !valid[k] {
			return nil, fmt.Errorf("%w %q for model %s (valid: %s)", ErrUnknownOption, k, info.Name, strings.Join(keys, ", "))
		}
		if k == "cov" {
			continue
		}
		s := strings.TrimSpace(spec.Options[k])
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("%w: %s=%q is not a finite number", ErrBadOption, k, spec.Options[k])
		}
		o[k] = v
	}
	// Struct fields that duplicate options.
	if spec.Temper != 0 {
		if s, ok := spec.Options["temper"]; ok && o["temper"] != spec.Temper {
			return nil, fmt.Errorf("%w: the option temper=%s conflicts with the temper %g given separately (--temper, temper)", ErrBadOption, s, spec.Temper)
		}
		o["temper"] = spec.Temper
	}
	if spec.PriorSD != 0 {
		if _, ok := o["prior-sd"]; !ok {
			return nil, fmt.Errorf("%w: prior_sd does not apply to model %s (options: %s)", ErrBadOption, info.Name, strings.Join(keys, ", "))
		}
		if s, ok := spec.Options["prior-sd"]; ok && o["prior-sd"] != spec.PriorSD {
			return nil, fmt.Errorf("%w: the option prior-sd=%s conflicts with the prior sd %g given separately (--prior-sd, prior_sd)", ErrBadOption, s, spec.PriorSD)
		}
		o["prior-sd"] = spec.PriorSD
	}
	if f := o["temper"]; !(f > 0 && f <= 1) {
		return nil, fmt.Errorf("%w: temper=%g must be in (0, 1]", ErrBadOption, f)
	}
	for _, k := range []string{"prior-sd", "noise-sd", "var-x", "prior-var1", "prior-var2", "prior-var", "var1", "var2", "var-rest"} {
		if v, ok := o[k]; ok && !(v > 0) {
			return nil, fmt.Errorf("%w: %s=%g must be > 0", ErrBadOption, k, v)
		}
		// A scale whose square over- or underflows makes the density
		// infinite everywhere (the audit's prior-sd Inf and 1e-300).
		if v, ok := o[k]; ok && !(v >= 1e-100 && v <= 1e100) {
			return nil, fmt.Errorf("%w: %s=%g must be between 1e-100 and 1e100", ErrBadOption, k, v)
		}
	}
	// The banana's curvature a multiplies θ1²: beyond 1e100 in size the
	// density overflows for any θ1 away from 0.
	if v, ok := o["a"]; ok && !(math.Abs(v) <= 1e100) {
		return nil, fmt.Errorf("%w: a=%g must be a finite number between -1e100 and 1e100", ErrBadOption, v)
	}
	return o, nil
}

// Build checks the spec against the table and builds the model. The model
// copies what it needs from the table (a contiguous design matrix, the
// outcome and the public bounds of the columns it uses); the table may be
// reused afterwards.
//
// Every used value must be finite and within its column's public bound (if
// any): the per-row bounds are only valid for such rows, so clip with the
// dataset package first. Errors name the model, option or column; data
// errors are *dataset.ParseError values naming the row or file line and the
// column (see Table.CellError). No error contains a data value.
//
// A built model is immutable: it is safe for concurrent use by several
// chains, and its methods never allocate (except ParamNames).
func Build(spec Spec, t *dataset.Table) (Model, error) {
	if t == nil {
		return nil, errors.New("model: nil table")
	}
	name := strings.ToLower(strings.TrimSpace(spec.Model))
	var info ModelInfo
	for _, m := range catalog {
		if m.Name == name {
			info = m
		}
	}
	if info.Name == "" {
		return nil, fmt.Errorf("%w %q (available: %s)", ErrUnknownModel, spec.Model, strings.Join(modelNames(), ", "))
	}
	o, err := parseOptions(info, spec)
	if err != nil {
		return nil, err
	}
	if len(t.Bounds) != 0 && len(t.Bounds) != len(t.Names) {
		return nil, fmt.Errorf("%w: table has %d bounds for %d columns", ErrColumn, len(t.Bounds), len(t.Names))
	}
	if len(t.Data) != t.Rows*len(t.Names) {
		return nil, fmt.Errorf("%w: table has %d values for %d rows × %d columns", ErrColumn, len(t.Data), t.Rows, len(t.Names))
	}
	if !info.Regression {
		if spec.Outcome != "" {
			return nil, fmt.Errorf("%w: model %s has no outcome (got %q)", ErrColumn, name, spec.Outcome)
		}
		if spec.NoIntercept {
			return nil, fmt.Errorf("%w: no_intercept applies to regression models only, not %s", ErrBadOption, name)
		}
	}
	switch strings.ToLower(strings.TrimSpace(spec.Scale)) {
	case "", ScaleNone:
	case ScaleBounds, ScaleAuto:
		if !info.Regression {
			return nil, fmt.Errorf("%w: scale=%s applies to regression models only, not %s", ErrBadOption, strings.ToLower(strings.TrimSpace(spec.Scale)), name)
		}
	default:
		return nil, fmt.Errorf("%w: scale must be bounds, auto or none (got %q)", ErrBadOption, spec.Scale)
	}
	if name != "gaussian" {
		if spec.Cov != nil {
			return nil, fmt.Errorf("%w: cov applies to the gaussian model only, not %s", ErrBadOption, name)
		}
	}
	switch name {
	case "logistic", "linear", "poisson":
		return buildRegression(name, spec, o, t)
	case "gaussian":
		return buildGaussian(spec, o, t)
	case "gmm":
		return buildGMM(spec, o, t)
	case "banana":
		return buildBanana(spec, o, t)
	}
	panic("unreachable")
}

// columns resolves names to indices, with an error listing the table's
// columns.
func columns(t *dataset.Table, names []string, what string) ([]int, error) {
	idx := make([]int, len(names))
	seen := map[string]bool{}
	// A map from name to column: a linear search per name was quadratic in
	// a wide file's columns (2 s at 30,000, minutes at 300,000).
	at := make(map[string]int, len(t.Names))
	for j := len(t.Names) - 1; j >= 0; j-- {
		at[t.Names[j]] = j // the first column of a name, as slices.Index
	}
	for k, n := range names {
		if seen[n] {
			return nil, fmt.Errorf("%w: %s column %q given twice", ErrColumn, what, n)
		}
		seen[n] = true
		j, ok := at[n]
		if !ok {
			return nil, fmt.Errorf("%w: %s column %q not found (columns: %s)", ErrColumn, what, n, listColumns(t.Names))
		}
		idx[k] = j
	}
	return idx, nil
}

// listColumns names a table's columns for an error message: all of them up
// to 50, else the first 50 and how many more.
func listColumns(names []string) string {
	const most = 50
	if len(names) <= most {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s, … and %d more", strings.Join(names[:most], ", "), len(names)-most)
}

func colBound(t *dataset.Table, j int) *dataset.Bound {
	if len(t.Bounds) == 0 {
		return nil
	}
	return t.Bounds[j]
}

// rowErr reports a data error at 0-based row i, column j in the same form as
// the dataset loader's errors (*dataset.ParseError: file line and column when
// the table was loaded from a file, else the row), adding the 1-based data
// row after the message. It matches ErrData under errors.Is. It never quotes the value.
func rowErr(t *dataset.Table, i, j int, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	if t.Line(i) > 0 {
		// The file's line counts the header (and any quoted line breaks);
		// the data row does not: say both, so they do not look contradictory.
		msg = fmt.Sprintf("%s (data row %d; the file's line numbers count the header)", msg, i+1)
	}
	return t.CellError(i, j, fmt.Errorf("%w: %s", ErrData, msg))
}

// checkColumn checks that every value of column j is finite and within the
// column's public bound; it returns the bound as an interval.
func checkColumn(t *dataset.Table, j int) (Interval, error) {
	b := colBound(t, j)
	if b != nil && !(b.Lo <= b.Hi) {
		return Interval{}, fmt.Errorf("%w: column %q has an invalid bound (lo > hi or NaN)", ErrColumn, t.Names[j])
	}
	c := len(t.Names)
	for i := 0; i < t.Rows; i++ {
		v := t.Data[i*c+j]
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return Interval{}, rowErr(t, i, j, "value is not a finite number")
		}
		if b != nil && (v < b.Lo || v > b.Hi) {
			return Interval{}, rowErr(t, i, j, "value outside the column's public bound [%g, %g]; clip to the bounds first", b.Lo, b.Hi)
		}
	}
	return boundIv(b), nil
}

// gather copies the given columns into a new n × len(idx) row-major matrix,
// with a leading column of ones when one is true.
func gather(t *dataset.Table, idx []int, one bool) []float64 {
	d := len(idx)
	if one {
		d++
	}
	c := len(t.Names)
	x := make([]float64, t.Rows*d)
	for i := 0; i < t.Rows; i++ {
		row := x[i*d : i*d+d]
		k := 0
		if one {
			row[0] = 1
			k = 1
		}
		for _, j := range idx {
			row[k] = t.Data[i*c+j]
			k++
		}
	}
	return x
}

func buildRegression(name string, spec Spec, o opts, t *dataset.Table) (Model, error) {
	if spec.Outcome == "" {
		return nil, fmt.Errorf("%w: model %s needs an outcome column (columns: %s)", ErrColumn, name, strings.Join(t.Names, ", "))
	}
	yj, err := columns(t, []string{spec.Outcome}, "outcome")
	if err != nil {
		return nil, err
	}
	preds := spec.Predictors
	if len(preds) == 0 {
		for _, n := range t.Names {
			if n != spec.Outcome {
				preds = append(preds, n)
			}
		}
	} else if slices.Contains(preds, spec.Outcome) {
		return nil, fmt.Errorf("%w: the outcome %q is also a predictor", ErrColumn, spec.Outcome)
	}
	pj, err := columns(t, preds, "predictor")
	if err != nil {
		return nil, err
	}
	intercept := !spec.NoIntercept
	var names []string
	var xiv []Interval
	if intercept {
		names = append(names, "intercept")
		xiv = append(xiv, Interval{1, 1})
	}
	if len(preds)+len(names) == 0 {
		return nil, fmt.Errorf("%w: model %s has no parameters (no predictors and no intercept)", ErrColumn, name)
	}
	for k, j := range pj {
		iv, err := checkColumn(t, j)
		if err != nil {
			return nil, err
		}
		xiv = append(xiv, iv)
		names = append(names, preds[k])
	}
	yiv, err := checkColumn(t, yj[0])
	if err != nil {
		return nil, err
	}
	y := t.Column(yj[0])
	r := regression{
		base:    base{name: name, n: t.Rows, d: len(names), names: names, f: o["temper"]},
		x:       gather(t, pj, intercept),
		y:       y,
		priorSD: o["prior-sd"],
		xiv:     xiv,
		yiv:     yiv,
	}
	scale := strings.ToLower(strings.TrimSpace(spec.Scale))
	var sc *Scaling
	switch scale {
	case ScaleBounds:
		if sc, err = NewScaling(xiv, names, intercept); err != nil {
			return nil, err
		}
	case ScaleAuto:
		// Scaled only when every predictor has a public bound; the prior
		// stays on the coefficients in the user's units.
		if sc, err = NewScaling(xiv, names, intercept); err != nil {
			sc = nil
		}
		r.userPrior = sc != nil
	}
	if sc != nil {
		for i := 0; i < t.Rows; i++ {
			sc.ScaleRow(r.row(i))
		}
		r.xiv = make([]Interval, len(xiv))
		for j, iv := range xiv {
			r.xiv[j] = sc.ScaleInterval(j, iv)
		}
		r.scaling = sc
		if r.userPrior {
			for j, h := range sc.Half {
				if j > 0 || !intercept {
					r.logDetUser -= math.Log(h)
				}
			}
		}
		if _, given := spec.Options["prior-sd"]; !given && spec.PriorSD == 0 && !r.userPrior {
			r.priorSD = DefaultScaledPriorSD
		}
	}
	switch name {
	case "logistic":
		sgn := make([]float64, len(y))
		for i, v := range y {
			if v != 0 && v != 1 {
				return nil, rowErr(t, i, yj[0], "logistic outcome must be 0 or 1")
			}
			sgn[i] = 1 - 2*v
		}
		return &Logistic{regression: r, sgn: sgn}, nil
	case "linear":
		s := o["noise-sd"]
		return &Linear{regression: r, sigma: s, c: mathx.Log(s) + halfLog2Pi}, nil
	case "poisson":
		lf := make([]float64, len(y))
		for i, v := range y {
			if v < 0 || v != math.Trunc(v) {
				return nil, rowErr(t, i, yj[0], "Poisson outcome must be a non-negative integer")
			}
			lf[i] = mathx.LogFactorial(v)
		}
		return &Poisson{regression: r, lfact: lf}, nil
	}
	panic("unreachable")
}

// dataColumns resolves the data columns of a synthetic model: the
// predictors if given, else the defaults (nil defaults: every column).
func dataColumns(t *dataset.Table, spec Spec, defaults []string) ([]int, []Interval, error) {
	names := spec.Predictors
	if len(names) == 0 {
		names = defaults
	}
	if len(names) == 0 {
		names = t.Names
	}
	idx, err := columns(t, names, "data")
	if err != nil {
		return nil, nil, err
	}
	ivs := make([]Interval, len(idx))
	for k, j := range idx {
		if ivs[k], err = checkColumn(t, j); err != nil {
			return nil, nil, err
		}
	}
	return idx, ivs, nil
}

func thetaNames(d int) []string {
	s := make([]string, d)
	for k := range s {
		s[k] = "theta" + strconv.Itoa(k+1)
	}
	return s
}

// MaxGaussianDim is the most columns the gaussian model reads (its d × d
// covariance and precision: 16 MB, inverted in O(d³), at 1,000;
// 20,000 columns took 3.4 GB).
const MaxGaussianDim = 1000

func buildGaussian(spec Spec, o opts, t *dataset.Table) (Model, error) {
	idx, xiv, err := dataColumns(t, spec, nil)
	if err != nil {
		return nil, err
	}
	d := len(idx)
	if d == 0 {
		return nil, fmt.Errorf("%w: model gaussian needs at least one column", ErrColumn)
	}
	if d > MaxGaussianDim {
		return nil, fmt.Errorf("%w: model gaussian reads %d columns; at most %d (its known covariance is a dense d × d matrix, inverted in O(d³)): name the columns it should read (--predictors)", ErrColumn, d, MaxGaussianDim)
	}
	cov := spec.Cov
	if cov == nil {
		if f, ok := spec.Options["cov"]; ok {
			return nil, fmt.Errorf("%w: cov=%s: the caller must read the file into Spec.Cov", ErrBadOption, f)
		}
		cov = make([][]float64, d)
		for i := range cov {
			cov[i] = make([]float64, d)
			cov[i][i] = 1
		}
	}
	prec, logdet, lamMin, err := invertSPD(cov, d)
	if err != nil {
		return nil, err
	}
	x := gather(t, idx, false)
	n := t.Rows
	m := &GaussianMean{
		base:    base{name: "gaussian", n: n, d: d, names: thetaNames(d), f: o["temper"]},
		w:       make([]float64, n*d),
		q:       make([]float64, n),
		sumW:    make([]float64, d),
		prec:    prec,
		cov:     copyMat(cov),
		c:       0.5 * (float64(d)*mathx.Log(2*math.Pi) + logdet),
		lamMax:  1 / lamMin,
		priorSD: o["prior-sd"],
		xiv:     xiv,
	}
	for i := 0; i < n; i++ {
		xi := x[i*d : i*d+d]
		wi := m.w[i*d : i*d+d]
		for j := range wi {
			wi[j] = dot(prec[j*d:j*d+d], xi)
		}
		m.q[i] = 0.5 * dot(wi, xi)
		axpy(1, wi, m.sumW)
	}
	return m, nil
}

// invertSPD checks that cov is a d × d symmetric positive definite matrix
// and returns its inverse (row-major), log det and smallest eigenvalue.
func invertSPD(cov [][]float64, d int) (prec []float64, logdet, lamMin float64, err error) {
	if len(cov) != d {
		return nil, 0, 0, fmt.Errorf("%w: cov has %d rows, want %d (one per data column)", ErrBadOption, len(cov), d)
	}
	sym := mat.NewSymDense(d, nil)
	for i, r := range cov {
		if len(r) != d {
			return nil, 0, 0, fmt.Errorf("%w: cov row %d has %d entries, want %d", ErrBadOption, i+1, len(r), d)
		}
		for j, v := range r {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, 0, 0, fmt.Errorf("%w: cov[%d][%d] is not finite", ErrBadOption, i+1, j+1)
			}
			if w := cov[j][i]; math.Abs(v-w) > 1e-9*max(math.Abs(v), math.Abs(w), 1e-300) {
				return nil, 0, 0, fmt.Errorf("%w: cov is not symmetric at (%d, %d)", ErrBadOption, i+1, j+1)
			}
			if j >= i {
				sym.SetSym(i, j, v)
			}
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(sym) {
		return nil, 0, 0, fmt.Errorf("%w: cov is not positive definite", ErrBadOption)
	}
	var eig mat.EigenSym
	if !eig.Factorize(sym, false) {
		return nil, 0, 0, fmt.Errorf("%w: cov eigen-decomposition failed", ErrBadOption)
	}
	lamMin = slices.Min(eig.Values(nil))
	if !(lamMin > 0) {
		return nil, 0, 0, fmt.Errorf("%w: cov is not positive definite (smallest eigenvalue %g)", ErrBadOption, lamMin)
	}
	var inv mat.SymDense
	if err := ch.InverseTo(&inv); err != nil {
		return nil, 0, 0, fmt.Errorf("%w: cov is singular: %v", ErrBadOption, err)
	}
	prec = make([]float64, d*d)
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			prec[i*d+j] = inv.At(i, j)
		}
	}
	return prec, ch.LogDet(), lamMin, nil
}

func buildGMM(spec Spec, o opts, t *dataset.Table) (Model, error) {
	idx, xiv, err := dataColumns(t, spec, []string{"x"})
	if err != nil {
		return nil, err
	}
	if len(idx) != 1 {
		return nil, fmt.Errorf("%w: model gmm takes one data column, got %d", ErrColumn, len(idx))
	}
	v := o["var-x"]
	return &GMM{
		base: base{name: "gmm", n: t.Rows, d: 2, names: thetaNames(2), f: o["temper"]},
		x:    t.Column(idx[0]),
		varX: v, pv1: o["prior-var1"], pv2: o["prior-var2"],
		k:   0.5 * mathx.Log(2*math.Pi*v),
		h:   1 / (2 * v),
		xiv: xiv[0],
	}, nil
}

func buildBanana(spec Spec, o opts, t *dataset.Table) (Model, error) {
	idx, xiv, err := dataColumns(t, spec, []string{"x1", "x2"})
	if err != nil {
		return nil, err
	}
	d := len(idx)
	if d < 2 {
		return nil, fmt.Errorf("%w: model banana takes at least two data columns (x1, x2), got %d", ErrColumn, d)
	}
	if _, ok := spec.Options["var-rest"]; ok && d == 2 {
		return nil, fmt.Errorf("%w: var-rest applies only with more than two data columns", ErrBadOption)
	}
	v := make([]float64, d)
	c := 0.0
	for j := range v {
		switch j {
		case 0:
			v[j] = o["var1"]
		case 1:
			v[j] = o["var2"]
		default:
			v[j] = o["var-rest"]
		}
		c += 0.5 * mathx.Log(2*math.Pi*v[j])
	}
	return &Banana{
		base: base{name: "banana", n: t.Rows, d: d, names: thetaNames(d), f: o["temper"]},
		x:    gather(t, idx, false),
		a:    o["a"],
		pv:   o["prior-var"],
		v:    v,
		c:    c,
		xiv:  xiv,
	}, nil
}
