package model

import (
	"bytes"
	"math"
	"os"
	"testing"

	"github.com/dpmcmc/dpmcmc/core/model/internal/tables"
)

// TestGeneratedTables recomputes the tables in memory (natively and under
// GOOS=js GOARCH=wasm) and compares every entry, bit for bit, and the
// generated file's text with the committed tables_gen.go (run
// `go generate ./core/model` after changing internal/tables).
func TestGeneratedTables(t *testing.T) {
	if spScale != tables.SpScale || spTabN != tables.SpTabN {
		t.Fatalf("softplus table layout %d/%d, generator %d/%d", spScale, spTabN, tables.SpScale, tables.SpTabN)
	}
	same := func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }
	for i, e := range tables.Exp() {
		if g := expTab[i]; !same(g.tail, e.Tail) || g.sbits != e.Sbits {
			t.Fatalf("expTab[%d] = %v/%#x, recomputed %v/%#x", i, g.tail, g.sbits, e.Tail, e.Sbits)
		}
	}
	sp := tables.Softplus()
	if len(sp) != len(spTab) {
		t.Fatalf("spTab has %d entries, recomputed %d", len(spTab), len(sp))
	}
	for m, e := range sp {
		g := spTab[m]
		want := [8]float64{e.Hi, e.Lo, e.C1, e.C2, e.C3, e.C4, e.C5, e.C6}
		got := [8]float64{g.hi, g.lo, g.c1, g.c2, g.c3, g.c4, g.c5, g.c6}
		for k := range want {
			if !same(got[k], want[k]) {
				t.Fatalf("spTab[%d] field %d = %v, recomputed %v", m, k, got[k], want[k])
			}
		}
	}
	src, err := tables.Source()
	if err != nil {
		t.Fatal(err)
	}
	file, err := os.ReadFile("tables_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(src, file) {
		t.Fatal("tables_gen.go is stale: run go generate ./core/model")
	}
}

// BenchmarkTables is the start-up work the generated file saves (the
// tables used to be computed at package initialization).
func BenchmarkTables(b *testing.B) {
	for b.Loop() {
		tables.Exp()
		tables.Softplus()
	}
}
