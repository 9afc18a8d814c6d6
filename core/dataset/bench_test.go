package dataset

import (
	"bytes"
	"io"
	"math/rand/v2"
	"strconv"
	"testing"
)

// genCSV writes a header and rows of cols random numbers. prec is the number
// of significant digits (-1: shortest round-trip, i.e. up to 17).
func genCSV(w io.Writer, rows, cols, prec int, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 1))
	buf := make([]byte, 0, 1<<16)
	for j := range cols {
		if j > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, 'x')
		buf = strconv.AppendInt(buf, int64(j), 10)
	}
	buf = append(buf, '\n')
	for range rows {
		for j := range cols {
			if j > 0 {
				buf = append(buf, ',')
			}
			var v float64
			switch j % 3 {
			case 0:
				v = rng.NormFloat64() * 10
			case 1:
				v = float64(rng.IntN(100))
			default:
				v = rng.ExpFloat64() * 1e-3
			}
			buf = strconv.AppendFloat(buf, v, 'g', prec, 64)
		}
		buf = append(buf, '\n')
		if len(buf) > 1<<15 {
			w.Write(buf)
			buf = buf[:0]
		}
	}
	w.Write(buf)
}

func benchLoad(b *testing.B, prec int) {
	var in bytes.Buffer
	genCSV(&in, 200_000, 10, prec, 1)
	data := in.Bytes()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		t, _, err := Load(bytes.NewReader(data), Options{})
		if err != nil {
			b.Fatal(err)
		}
		if t.Rows != 200_000 {
			b.Fatal(t.Rows)
		}
	}
}

// BenchmarkLoad loads a generated 10-column numeric CSV (200k rows) whose
// values have 7 significant digits, a typical export precision.
func BenchmarkLoad(b *testing.B) { benchLoad(b, 7) }

// BenchmarkLoadFullPrecision uses shortest round-trip formatting (up to 17
// digits), which often needs strconv's slow path.
func BenchmarkLoadFullPrecision(b *testing.B) { benchLoad(b, -1) }
