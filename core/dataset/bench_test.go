package dataset

import (
	"bytes"
	"io"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
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
	cpu0 := cpuSeconds()
	n := 0
	for b.Loop() {
		n++
		t, _, err := Load(bytes.NewReader(data), Options{})
		if err != nil {
			b.Fatal(err)
		}
		if t.Rows != 200_000 {
			b.Fatal(t.Rows)
		}
	}
	if cpu := cpuSeconds() - cpu0; cpu > 0 {
		// Throughput per CPU-second of this process (all threads, GC
		// included): unlike MB/s it does not drop when other processes
		// compete for the CPU.
		b.ReportMetric(float64(n*len(data))/1e6/cpu, "MB/cpu-s")
	}
}

// cpuSeconds returns the user+system CPU time of this process from
// /proc/self/stat (Linux; 0 elsewhere), with a resolution of one clock tick.
func cpuSeconds() float64 {
	b, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return 0
	}
	// Fields after the parenthesised command name; utime and stime are the
	// 14th and 15th fields of the whole line.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.ParseFloat(f[11], 64)
	s, _ := strconv.ParseFloat(f[12], 64)
	return (u + s) / 100 // USER_HZ is 100 on Linux
}

// BenchmarkLoad loads a generated 10-column numeric CSV (200k rows) whose
// values have 7 significant digits, a typical export precision.
func BenchmarkLoad(b *testing.B) { benchLoad(b, 7) }

// BenchmarkLoadFullPrecision uses shortest round-trip formatting (up to 17
// digits), which often needs strconv's slow path.
func BenchmarkLoadFullPrecision(b *testing.B) { benchLoad(b, -1) }
