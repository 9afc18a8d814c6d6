package export

import (
	"bytes"
	"encoding/binary"
	"encoding/csv"
	"math"
	"strings"
	"testing"
)

// FuzzWriteDraws writes fuzzed names and values with both writers and
// reads them back: valid draws must round-trip bit for bit (tidy CSV: the
// post-warmup draws; Stan CSV: every saved iteration and the warmup count),
// invalid ones must be refused by the writer, and no header field may
// start with a character a spreadsheet evaluates (=, +, -, @, tab, CR).
func FuzzWriteDraws(f *testing.F) {
	vals := func(xs ...float64) []byte {
		b := make([]byte, 8*len(xs))
		for i, x := range xs {
			binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(x))
		}
		return b
	}
	f.Add("alpha\x00beta[1]", vals(1, 2, 3, 4, 5, 6, 7, 8), uint8(1), uint8(1))
	f.Add("=HYPERLINK(\"http://x\")\x00-1+2\x00@sum\x00\tt\x00'q\x00a,b\x00\"x\"\x00 sp ", vals(math.NaN(), math.Inf(1), math.Inf(-1), -0.0, 5e-324, math.MaxFloat64, 1.0/3, 1e-300), uint8(0), uint8(0))
	f.Add("+cmd|' /C calc'!A0\x00\rx", vals(1, 2, 3, 4), uint8(1), uint8(0))
	f.Add("lp__\x00x", vals(1, 2), uint8(0), uint8(0))
	f.Add(".chain", vals(1), uint8(0), uint8(0))
	f.Add("a\x00a", vals(1, 2), uint8(0), uint8(0))
	f.Add("line\nbreak", vals(1), uint8(0), uint8(0))
	f.Add("é\x00数\x00\u202e", vals(1, 2, 3), uint8(0), uint8(0))
	f.Fuzz(func(t *testing.T, names string, raw []byte, chains8, warm8 uint8) {
		ns := strings.Split(names, "\x00")
		if len(ns) > 64 {
			return
		}
		nc := 1 + int(chains8)%3
		xs := make([]float64, len(raw)/8)
		for i := range xs {
			xs[i] = math.Float64frombits(binary.LittleEndian.Uint64(raw[8*i:]))
		}
		per := nc * len(ns)
		iters := len(xs) / per
		if iters == 0 {
			iters = 1
			for len(xs) < per {
				xs = append(xs, float64(len(xs)))
			}
		}
		d := &Draws{Names: ns, Warmup: int(warm8) % (iters + 1)}
		k := 0
		for range nc {
			ch := make([][]float64, iters)
			for i := range ch {
				ch[i] = xs[k : k+len(ns)]
				k += len(ns)
			}
			d.Values = append(d.Values, ch)
		}
		var tidy, stan bytes.Buffer
		errT := WriteDrawsCSV(&tidy, d)
		errS := WriteStanCSV(&stan, Export{Draws: d, Config: cfg(`{"seed":1}`), Privacy: report{"epsilon_spent = 1"}}, 0)
		if verr := d.Validate(); verr != nil {
			if errT == nil || errS == nil {
				t.Fatalf("invalid draws (%v) written: tidy %v, stan %v", verr, errT, errS)
			}
			return
		}
		if errT != nil || errS != nil {
			t.Fatalf("valid draws refused: tidy %v, stan %v", errT, errS)
		}
		checkHeader(t, tidy.Bytes())
		checkHeader(t, stanBody(stan.Bytes()))
		back, err := ReadDraws(bytes.NewReader(tidy.Bytes()))
		if err != nil {
			t.Fatalf("tidy output does not read back: %v\n%q", err, tidy.Bytes())
		}
		equalDraws(t, back, &Draws{Names: d.Names, Values: d.Sampling()})
		back, err = ReadDraws(bytes.NewReader(stan.Bytes()))
		if err != nil {
			t.Fatalf("Stan output does not read back: %v\n%q", err, stan.Bytes())
		}
		equalDraws(t, back, &Draws{Names: d.Names, Values: d.Values[:1], Warmup: d.Warmup})
	})
}

// stanBody drops the comment lines of a Stan CSV.
func stanBody(b []byte) []byte {
	var out []byte
	for _, l := range bytes.SplitAfter(b, []byte("\n")) {
		if !bytes.HasPrefix(l, []byte("#")) {
			out = append(out, l...)
		}
	}
	return out
}

// checkHeader parses the first CSV record and checks no field can be
// evaluated as a formula.
func checkHeader(t *testing.T, b []byte) {
	t.Helper()
	r := csv.NewReader(bytes.NewReader(b))
	r.FieldsPerRecord = -1
	r.LazyQuotes = false
	head, err := r.Read()
	if err != nil {
		t.Fatalf("header is not valid CSV: %v\n%q", err, b)
	}
	for _, h := range head {
		if h != "" && strings.ContainsRune("=+-@\t\r", rune(h[0])) {
			t.Fatalf("header field %q starts with a formula character", h)
		}
	}
}
