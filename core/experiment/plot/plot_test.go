package plot

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/dpmcmc/dpmcmc/core/experiment"
)

// A log axis spanning less than a decade, and a one-point figure, still get
// labelled ticks (a one-ε figure once had none on its y axis).
func TestTicksDegenerate(t *testing.T) {
	cases := []struct {
		lo, hi float64
		log    bool
	}{
		{0.25, 0.30, true}, {0.2, 20, true}, {3, 3, true}, {3, 3, false}, {0, 0, false}, {-2, -2, false},
	}
	for _, c := range cases {
		lo, hi := c.lo, c.hi
		padRange(&lo, &hi, c.log)
		if !(hi > lo) {
			t.Errorf("%v: range [%g, %g] not padded", c, lo, hi)
		}
		if n := labelled(ticker{log: c.log}.Ticks(lo, hi), lo, hi); n < 2 {
			t.Errorf("%v: %d labelled ticks in [%g, %g]", c, n, lo, hi)
		}
	}
	dir := t.TempDir()
	f := &experiment.Figure{Name: "one", LogY: true, Series: []experiment.Series{{Label: "a", X: []float64{10}, Y: []float64{0.25}, Lo: []float64{0.2}, Hi: []float64{0.3}}}}
	ps, err := Render(f, dir)
	if err != nil || len(ps) != 2 {
		t.Fatal(ps, err)
	}
	if st, err := os.Stat(filepath.Join(dir, "one.png")); err != nil || st.Size() == 0 {
		t.Fatal(err)
	}
}
