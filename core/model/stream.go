package model

// This file (owned by the data-loading work, see docs/RELIABILITY.md,
// "memory on large files") lets the command line build a model from a CSV
// file read in chunks, so that the file is never held as a table next to
// the model's own copy of it. It reuses Build on each chunk and only
// concatenates the per-row storage; TestChunkBuilderEqualsBuild checks
// that the result equals Build on the whole table for every model. A model
// added to Build must be added to appendRows and finish below (until then
// Add returns ErrNotChunkable and callers load the whole table instead).

import (
	"errors"
	"fmt"

	"github.com/dpmcmc/dpmcmc/core/dataset"
)

// ErrNotChunkable is returned by ChunkBuilder.Add for a model it cannot
// build from chunks.
var ErrNotChunkable = errors.New("model: cannot be built from row chunks")

// ChunkBuilder builds a model from its data delivered in row chunks
// (dataset.Chunks). Each chunk is checked and converted by Build, so errors
// are Build's (with row numbers relative to the chunk: callers that need
// the exact whole-table message rebuild from the whole table on error);
// the per-row storage is appended, and whole-data sums are recomputed over
// all rows in Build's order, so the model equals Build on the concatenated
// table, every stored value bit for bit.
type ChunkBuilder struct {
	spec Spec
	m    Model
	rows int
}

// NewChunkBuilder returns a builder for spec.
func NewChunkBuilder(spec Spec) *ChunkBuilder { return &ChunkBuilder{spec: spec} }

// Add builds the model on chunk t and appends its rows. The first call
// reserves room for capRows rows in all (a hint; more rows still fit).
// The table is not retained.
func (b *ChunkBuilder) Add(t *dataset.Table, capRows int) error {
	cm, err := Build(b.spec, t)
	if err != nil {
		return err
	}
	capRows = max(capRows, t.Rows)
	if b.m == nil {
		b.m, err = appendRows(nil, cm, capRows)
	} else {
		b.m, err = appendRows(b.m, cm, capRows)
	}
	if err != nil {
		return err
	}
	b.rows += t.Rows
	return nil
}

// Model returns the model of every row added so far.
func (b *ChunkBuilder) Model() (Model, error) {
	if b.m == nil {
		return nil, errors.New("model: no rows added")
	}
	return finish(b.m, b.rows), nil
}

// grow returns s with capacity for rows rows of per values each.
func grow(s []float64, per, rows int) []float64 {
	if per*rows <= cap(s) {
		return s
	}
	out := make([]float64, len(s), per*rows)
	copy(out, s)
	return out
}

// appendRows appends the per-row storage of chunk model c to acc (nil: a
// new accumulator with room for capRows rows, holding c's rows).
func appendRows(acc, c Model, capRows int) (Model, error) {
	switch c := c.(type) {
	case *Logistic:
		a, ok := acc.(*Logistic)
		if acc == nil {
			v := *c
			a, ok = &v, true
			a.x, a.y, a.sgn = grow(nil, a.d, capRows), grow(nil, 1, capRows), grow(nil, 1, capRows)
		}
		if !ok {
			return nil, errMixed(acc, c)
		}
		a.x, a.y, a.sgn = append(a.x, c.x...), append(a.y, c.y...), append(a.sgn, c.sgn...)
		return a, nil
	case *Linear:
		a, ok := acc.(*Linear)
		if acc == nil {
			v := *c
			a, ok = &v, true
			a.x, a.y = grow(nil, a.d, capRows), grow(nil, 1, capRows)
		}
		if !ok {
			return nil, errMixed(acc, c)
		}
		a.x, a.y = append(a.x, c.x...), append(a.y, c.y...)
		return a, nil
	case *Poisson:
		a, ok := acc.(*Poisson)
		if acc == nil {
			v := *c
			a, ok = &v, true
			a.x, a.y, a.lfact = grow(nil, a.d, capRows), grow(nil, 1, capRows), grow(nil, 1, capRows)
		}
		if !ok {
			return nil, errMixed(acc, c)
		}
		a.x, a.y, a.lfact = append(a.x, c.x...), append(a.y, c.y...), append(a.lfact, c.lfact...)
		return a, nil
	case *GaussianMean:
		a, ok := acc.(*GaussianMean)
		if acc == nil {
			v := *c
			a, ok = &v, true
			a.w, a.q = grow(nil, a.d, capRows), grow(nil, 1, capRows)
		}
		if !ok {
			return nil, errMixed(acc, c)
		}
		a.w, a.q = append(a.w, c.w...), append(a.q, c.q...)
		return a, nil
	case *GMM:
		a, ok := acc.(*GMM)
		if acc == nil {
			v := *c
			a, ok = &v, true
			a.x = grow(nil, 1, capRows)
		}
		if !ok {
			return nil, errMixed(acc, c)
		}
		a.x = append(a.x, c.x...)
		return a, nil
	case *Banana:
		a, ok := acc.(*Banana)
		if acc == nil {
			v := *c
			a, ok = &v, true
			a.x = grow(nil, a.d, capRows)
		}
		if !ok {
			return nil, errMixed(acc, c)
		}
		a.x = append(a.x, c.x...)
		return a, nil
	}
	return nil, fmt.Errorf("%w (%T)", ErrNotChunkable, c)
}

func errMixed(a, c Model) error {
	return fmt.Errorf("%w: chunks built different models (%T, %T)", ErrNotChunkable, a, c)
}

// finish sets the row count and recomputes whole-data sums in Build's order.
func finish(m Model, n int) Model {
	switch m := m.(type) {
	case *Logistic:
		m.n = n
	case *Linear:
		m.n = n
	case *Poisson:
		m.n = n
	case *GaussianMean:
		m.n = n
		d := m.d
		m.sumW = make([]float64, d)
		for i := 0; i < n; i++ {
			axpy(1, m.w[i*d:i*d+d], m.sumW)
		}
	case *GMM:
		m.n = n
	case *Banana:
		m.n = n
	}
	return m
}
