package model

import (
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/dpmcmc/dpmcmc/core/dataset"
)

// TestChunkBuilderEqualsBuild: for every fixture (every model of the
// catalog), building from row chunks of several sizes gives a model equal
// to Build on the whole table (reflect.DeepEqual on every field, and the
// same log-likelihood bits), with capacity hints too small, exact and too
// large.
func TestChunkBuilderEqualsBuild(t *testing.T) {
	covered := map[string]bool{}
	for _, fx := range fixtures() {
		r := rand.New(rand.NewPCG(5, 9))
		const n = 103
		tab := fx.gen(r, n)
		want, err := Build(fx.spec, tab)
		if err != nil {
			t.Fatalf("%s: %v", fx.name, err)
		}
		covered[want.Name()] = true
		theta := make([]float64, want.Dim())
		for k := range theta {
			theta[k] = 0.3 - 0.1*float64(k)
		}
		for _, size := range []int{1, 10, 50, n, 200} {
			for _, hint := range []int{0, n, 3 * n} {
				b := NewChunkBuilder(fx.spec)
				w := tab.Cols()
				for lo := 0; lo < n; lo += size {
					hi := min(lo+size, n)
					c := &dataset.Table{Names: tab.Names, Rows: hi - lo, Bounds: tab.Bounds,
						Data: append([]float64(nil), tab.Data[lo*w:hi*w]...)}
					if err := b.Add(c, hint); err != nil {
						t.Fatalf("%s, chunks of %d: %v", fx.name, size, err)
					}
					for k := range c.Data {
						c.Data[k] = math.NaN() // the builder must have copied
					}
				}
				got, err := b.Model()
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("%s, chunks of %d, hint %d: the model differs from Build's", fx.name, size, hint)
				}
				a, e := make([]float64, n), make([]float64, n)
				got.LogLik(theta, nil, a)
				want.LogLik(theta, nil, e)
				ga, ge := make([]float64, want.Dim()), make([]float64, want.Dim())
				got.GradLogLik(theta, nil, ga)
				want.GradLogLik(theta, nil, ge)
				for i := range a {
					if math.Float64bits(a[i]) != math.Float64bits(e[i]) {
						t.Fatalf("%s, chunks of %d: log-likelihood of row %d %v, Build: %v", fx.name, size, i, a[i], e[i])
					}
				}
				for k := range ga {
					if math.Float64bits(ga[k]) != math.Float64bits(ge[k]) {
						t.Fatalf("%s, chunks of %d: gradient %v, Build: %v", fx.name, size, ga, ge)
					}
				}
			}
		}
	}
	for _, m := range Models() {
		if !covered[m.Name] {
			t.Errorf("model %s has no fixture here: add one (and chunk support in stream.go)", m.Name)
		}
	}
}

// TestChunkBuilderErrors: Build's errors come through; no rows is an error.
func TestChunkBuilderErrors(t *testing.T) {
	b := NewChunkBuilder(Spec{Model: "logistic", Outcome: "y"})
	if _, err := b.Model(); err == nil {
		t.Fatal("a model without rows")
	}
	c := &dataset.Table{Names: []string{"x", "y"}, Rows: 2, Data: []float64{1, 0, 2, 3}}
	if err := b.Add(c, 0); !errors.Is(err, ErrData) {
		t.Fatalf("got %v, want the outcome error", err)
	}
}
