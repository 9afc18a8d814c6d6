package export

import (
	"bytes"
	"errors"
	"flag"
	"math"
	"os"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/export")

type cfg string

func (c cfg) PublicJSON() ([]byte, error) { return []byte(c), nil }

type report []string

func (r report) ReportLines() []string { return r }

func sample() *Draws {
	return &Draws{
		Names: []string{"alpha", "beta[1]", "=HYPERLINK(\"x\")", "-1+2", "@sum", "\tt", "a,b", `say "hi"`, "'quoted", "plain'"},
		Values: [][][]float64{
			{{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, {0.1, -0.2, 1e-300, math.MaxFloat64, math.Inf(1), math.Inf(-1), math.NaN(), -0.0, 5e-324, 1.0 / 3}, {1, 1, 1, 1, 1, 1, 1, 1, 1, 1}},
			{{2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, {0.7, 0.8, 0.9, 1, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6}, {3, 3, 3, 3, 3, 3, 3, 3, 3, 3}},
		},
		Warmup: 1,
	}
}

func sameBits(a, b float64) bool {
	return math.Float64bits(a) == math.Float64bits(b) || math.IsNaN(a) && math.IsNaN(b)
}

func equalDraws(t *testing.T, got, want *Draws) {
	t.Helper()
	if strings.Join(got.Names, "\x00") != strings.Join(want.Names, "\x00") {
		t.Fatalf("names %q, want %q", got.Names, want.Names)
	}
	if got.Warmup != want.Warmup || got.NumChains() != want.NumChains() || got.NumIterations() != want.NumIterations() {
		t.Fatalf("shape %d×%d warmup %d, want %d×%d warmup %d", got.NumChains(), got.NumIterations(), got.Warmup, want.NumChains(), want.NumIterations(), want.Warmup)
	}
	for c := range want.Values {
		for i := range want.Values[c] {
			for j := range want.Values[c][i] {
				if g, w := got.Values[c][i][j], want.Values[c][i][j]; !sameBits(g, w) {
					t.Fatalf("chain %d iter %d param %d: %v, want %v", c, i, j, g, w)
				}
			}
		}
	}
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := "../../testdata/export/" + name
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file:\n%s", name, got)
	}
}

func TestTidyRoundTrip(t *testing.T) {
	d := sample()
	var b bytes.Buffer
	if err := WriteDrawsCSV(&b, d); err != nil {
		t.Fatal(err)
	}
	golden(t, "tidy.csv", b.Bytes())
	got, err := ReadDraws(&b)
	if err != nil {
		t.Fatal(err)
	}
	// The tidy file holds the post-warmup draws only.
	want := &Draws{Names: d.Names, Values: d.Sampling()}
	equalDraws(t, got, want)
}

func TestStanRoundTrip(t *testing.T) {
	d := sample()
	e := Export{
		Draws:   d,
		Header:  StanHeader{Model: "gaussian", Algorithm: "dp_barker", Thin: 2, NumWarmup: 1},
		Config:  cfg(`{"model": "gaussian",  "epsilon": 1, "note": "a\nb"}`),
		Privacy: report{"(epsilon, delta) = (1, 1e-06) for all chains together", "", "accountant = tight Gaussian PLD"},
	}
	var files []*bytes.Buffer
	for c := range d.Values {
		var b bytes.Buffer
		if err := WriteStanCSV(&b, e, c); err != nil {
			t.Fatal(err)
		}
		files = append(files, &b)
	}
	golden(t, "stan.1.csv", files[0].Bytes())
	s := files[0].String()
	for _, want := range []string{"# model = gaussian\n", "# method = sample (Default)\n", "#     num_samples = 4\n",
		"#     num_warmup = 1\n", "#     save_warmup = 1\n", "#     thin = 2\n", "#     algorithm = dp_barker\n",
		"# id = 1\n", `# config = {"model":"gaussian","epsilon":1,"note":"a\nb"}` + "\n", "#\n# accountant"} {
		if !strings.Contains(s, want) {
			t.Errorf("Stan CSV lacks %q", want)
		}
	}
	if strings.Contains(s, "lp__") || strings.Contains(strings.ToLower(s), "elapsed") {
		t.Error("Stan CSV must hold no lp__ and no timing")
	}
	got, err := ReadChains(files[0], files[1])
	if err != nil {
		t.Fatal(err)
	}
	equalDraws(t, got, d)
}

func TestStanHeaderChecks(t *testing.T) {
	d := sample()
	bad := []Export{
		{Draws: d, Header: StanHeader{Model: "m\nx = 1"}},
		{Draws: d, Header: StanHeader{Algorithm: "a\r"}},
		{Draws: d, Privacy: report{"ok", "two\nlines"}},
		{Draws: d, Config: cfg(`[1, 2]`)},
		{Draws: d, Config: cfg(`{"a":`)},
		{Draws: d, Header: StanHeader{NumSamples: 100}},
		{Draws: d, Header: StanHeader{NumWarmup: 7}},
		{Draws: &Draws{Names: []string{"x", "lp__"}, Values: [][][]float64{{{1, 2}, {3, 4}}}}},
		{Draws: &Draws{Names: []string{"x", "x"}, Values: [][][]float64{{{1, 2}}}}},
		{Draws: &Draws{Names: []string{".chain"}, Values: [][][]float64{{{1}}}}},
		{Draws: &Draws{Names: []string{"x"}, Values: [][][]float64{{{1}}, {{1}, {2}}}}},
		{Draws: &Draws{Names: []string{"x"}, Values: [][][]float64{{{1}}}, Warmup: 1}},
		{},
	}
	for i, e := range bad {
		if err := WriteStanCSV(&bytes.Buffer{}, e, 0); err == nil {
			t.Errorf("case %d: no error", i)
		}
	}
	if err := WriteStanCSV(&bytes.Buffer{}, Export{Draws: d}, 2); err == nil {
		t.Error("chain out of range accepted")
	}
}

func TestInjection(t *testing.T) {
	for name, want := range map[string]string{
		"=1+1":        "'=1+1",
		"+x":          "'+x",
		"-x":          "'-x",
		"@x":          "'@x",
		"\tx":         "'\tx",
		"'x":          "''x",
		"x=1":         "x=1",
		"a,b":         `"a,b"`,
		`=a"b`:        `"'=a""b"`,
		" padded":     `" padded"`,
		"mu[1]":       "mu[1]",
		"beta.2":      "beta.2",
		"=cmd|' /C'!": `'=cmd|' /C'!`,
	} {
		if got := SafeName(name); got != want {
			t.Errorf("SafeName(%q) = %q, want %q", name, got, want)
		}
	}
	var b bytes.Buffer
	d := &Draws{Names: []string{"=2+5", "-3"}, Values: [][][]float64{{{-1, -2}, {1, 2}}}}
	if err := WriteDrawsCSV(&b, d); err != nil {
		t.Fatal(err)
	}
	head, _, _ := strings.Cut(b.String(), "\n")
	if head != ".chain,.iteration,.draw,'=2+5,'-3" {
		t.Errorf("header %q", head)
	}
	for _, line := range strings.Split(b.String(), "\n")[1:] {
		for _, f := range strings.Split(line, ",") {
			if f != "" && strings.ContainsAny(f[:1], "=+@\t\r") {
				t.Errorf("dangerous cell %q", f)
			}
		}
	}
}

func TestReadBlocker(t *testing.T) {
	d, err := ReadFiles("../../testdata/diagnostics/blocker.1.csv", "../../testdata/diagnostics/blocker.2.csv")
	if err != nil {
		t.Fatal(err)
	}
	if d.NumChains() != 2 || d.NumIterations() != 1000 || d.NumParams() != 48 || d.Warmup != 0 {
		t.Fatalf("shape %d×%d×%d warmup %d", d.NumChains(), d.NumIterations(), d.NumParams(), d.Warmup)
	}
	if d.Names[0] != "d" || d.Names[47] != "sigma_delta" || d.Index("lp__") >= 0 {
		t.Errorf("names %v", d.Names)
	}
	if v := d.Values[0][0][0]; v != -0.233883 {
		t.Errorf("first draw %v", v)
	}
	if p := d.Param(0); len(p) != 2 || len(p[1]) != 1000 || p[0][0] != -0.233883 {
		t.Error("Param layout")
	}
}

func TestReadErrors(t *testing.T) {
	cases := []struct {
		in        string
		line, col int
		msg       string
	}{
		{"", 0, 0, "no header"},
		{"# only a comment\n", 0, 0, "no header"},
		{"a,b\n1,2\n3,x\n", 3, 2, `line 3, column 2 ("b"): "x" is not a number`},
		{"a,b\n1,2\n3\n", 3, 0, "line 3, byte 1: wrong number of fields"},
		{"a,a\n1,2\n", 1, 2, "line 1, column 2: duplicate"},
		{"lp__,accept_stat__\n1,2\n", 1, 0, "line 1: no parameter columns"},
		{".chain,.iteration,x\n1,1,0.5\n1,0,0.5\n", 3, 2, `line 3, column 2 (".iteration"): must be a positive integer`},
		{".chain,.iteration,x\n1,1,0.5\n1,1,0.7\n", 3, 0, "line 3: chain 1 has iteration 1 twice"},
		{".chain,.iteration,x\n1,1,0.5\n2,1,0.7\n2,2,0.7\n", 0, 0, "draws"},
		{"a,\"b\n1,2\n", 0, 0, "quote"},
		{"# save_warmup = 1\n# num_warmup = 5\na\n1\n2\n", 0, 0, "nothing to read"},
	}
	for _, c := range cases {
		_, err := ReadDraws(strings.NewReader(c.in))
		var pe *ParseError
		if !errors.As(err, &pe) {
			t.Errorf("%q: error %v is not a ParseError", c.in, err)
			continue
		}
		if !strings.Contains(err.Error(), c.msg) || (c.line > 0 && (pe.Line != c.line || (c.col > 0 && pe.Column != c.col))) {
			t.Errorf("%q: %v (line %d col %d), want %q at %d:%d", c.in, err, pe.Line, pe.Column, c.msg, c.line, c.col)
		}
	}
	_, err := ReadFiles("../../testdata/diagnostics/blocker.1.csv", "/nonexistent/x.csv")
	if err == nil {
		t.Error("missing file accepted")
	}
	a := "a,b\n1,2\n"
	if _, err := ReadChains(strings.NewReader(a), strings.NewReader("a,c\n1,2\n")); err == nil {
		t.Error("different names accepted")
	}
	if _, err := ReadChains(strings.NewReader(a), strings.NewReader("a,b\n1,2\n3,4\n")); err == nil {
		t.Error("different lengths accepted")
	}
}

func TestReadVariants(t *testing.T) {
	// R's write.csv with row names, tidy columns last, CRLF, BOM, NA.
	in := "\uFEFF\"\",\"x\",\".chain\",\".iteration\",\".draw\"\r\n\"1\",0.5,2,1,3\r\n\"2\",NA,1,1,1\r\n\"3\",-Inf,2,2,4\r\n\"4\",1e3,1,2,2\r\n"
	d, err := ReadDraws(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if d.NumChains() != 2 || d.NumIterations() != 2 || len(d.Names) != 1 || d.Names[0] != "x" {
		t.Fatalf("%+v", d)
	}
	if !math.IsNaN(d.Values[0][0][0]) || d.Values[0][1][0] != 1000 || d.Values[1][0][0] != 0.5 || !math.IsInf(d.Values[1][1][0], -1) {
		t.Errorf("values %v", d.Values)
	}
	// CmdStan thinned saved warmup: ⌈num_warmup/thin⌉ rows.
	in = "# method = sample (Default)\n#     num_warmup = 3\n#     save_warmup = true\n#     thin = 2\nlp__,x\n0,1\n0,2\n# Adaptation terminated\n0,3\n0,4\n# Elapsed Time: 1 seconds\n"
	if d, err = ReadDraws(strings.NewReader(in)); err != nil {
		t.Fatal(err)
	}
	if d.Warmup != 2 || d.NumIterations() != 4 || d.Sampling()[0][0][0] != 3 {
		t.Errorf("warmup %d iterations %d", d.Warmup, d.NumIterations())
	}
}

func FuzzReadDraws(f *testing.F) {
	var b bytes.Buffer
	WriteDrawsCSV(&b, sample())
	f.Add(b.Bytes())
	b.Reset()
	WriteStanCSV(&b, Export{Draws: sample(), Privacy: report{"eps = 1"}}, 0)
	f.Add(b.Bytes())
	f.Add([]byte("a,b\n1,2\n"))
	f.Add([]byte("# save_warmup = 1\n# num_warmup = 1\nlp__,\"x,y\"\n1,2\n3,4\n"))
	f.Add([]byte(".chain,x\n1,2\n2,3\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := ReadDraws(bytes.NewReader(data))
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %v is not a ParseError", err)
			}
			return
		}
		if err := d.Validate(); err != nil {
			t.Fatalf("read invalid draws: %v", err)
		}
		var out bytes.Buffer
		if err := WriteDrawsCSV(&out, d); err != nil {
			t.Fatalf("cannot write what was read: %v", err)
		}
		back, err := ReadDraws(&out)
		if err != nil {
			t.Fatalf("cannot read back: %v\n%s", err, out.Bytes())
		}
		equalDraws(t, back, &Draws{Names: d.Names, Values: d.Sampling()})
	})
}

// F5: a first parameter named like a comment still round-trips in Stan CSV.
func TestHashNameRoundTrips(t *testing.T) {
	d := &Draws{Names: []string{"# of visits", "x"}, Values: [][][]float64{{{1, 2}, {3, 4}}}}
	var b bytes.Buffer
	if err := WriteStanCSV(&b, Export{Draws: d}, 0); err != nil {
		t.Fatal(err)
	}
	got, err := ReadDraws(&b)
	if err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	if got.Names[0] != "# of visits" || got.NumIterations() != 2 {
		t.Fatalf("read back %v, %d iterations", got.Names, got.NumIterations())
	}
}

// A Stan CSV cut at a line end still parses; its header's num_samples says
// how many draws it should hold, so the cut is an error, not a shorter
// chain (the CLI audit's summary read "1 chain × 7 draws" of 10).
func TestReadStanTruncated(t *testing.T) {
	head := "# model = m\n# method = sample (Default)\n#   sample\n#     num_samples = 4\n#     num_warmup = 0\n#     save_warmup = 0\n#     thin = 1\nlp__,a\n"
	full := head + "0,1\n0,2\n0,3\n0,4\n"
	if d, err := ReadDraws(strings.NewReader(full)); err != nil || len(d.Values[0]) != 4 || !d.NoWarmup {
		t.Fatalf("complete file: %v (num_warmup = 0 read as no warmup: %v)", err, d != nil && d.NoWarmup)
	}
	if d, err := ReadDraws(strings.NewReader(strings.Replace(full, "num_warmup = 0", "num_warmup = 1000", 1))); err != nil || d.NoWarmup {
		t.Fatalf("num_warmup = 1000 read as no warmup (%v)", err)
	}
	_, err := ReadDraws(strings.NewReader(head + "0,1\n0,2\n0,3\n"))
	if err == nil || !strings.Contains(err.Error(), "num_samples = 4 (4 draws saved with thin = 1), but the file has 3 draws after warmup: it is truncated") {
		t.Fatalf("truncated: %v", err)
	}
}

// A cancelled run's chains are cut to the shortest: RunHeader states the
// draws kept, so its Stan CSV writes (the planned num_samples made the
// page's Stan export fail after every cancel), and the planned warmup when
// its draws are not saved.
func TestRunHeaderOfCutChains(t *testing.T) {
	d := &Draws{Names: []string{"x"}, Values: [][][]float64{{{1}, {2}, {3}}, {{4}, {5}, {6}}}}
	var b bytes.Buffer
	if err := WriteStanCSV(&b, Export{Draws: d, Header: RunHeader("logistic", "hmc", d, 500)}, 1); err != nil {
		t.Fatal(err)
	}
	if s := b.String(); !strings.Contains(s, "num_samples = 3\n") || !strings.Contains(s, "num_warmup = 500\n") {
		t.Errorf("header:\n%s", s)
	}
	if err := WriteStanCSV(&bytes.Buffer{}, Export{Draws: d, Header: StanHeader{NumSamples: 1000, NumWarmup: 500}}, 0); err == nil {
		t.Error("the planned draws in the header were accepted for cut chains")
	}
	w := &Draws{Names: []string{"x"}, Values: [][][]float64{{{1}, {2}, {3}}}, Warmup: 2}
	b.Reset()
	if err := WriteStanCSV(&b, Export{Draws: w, Header: RunHeader("logistic", "hmc", w, 500)}, 0); err != nil || !strings.Contains(b.String(), "num_warmup = 2\n") || !strings.Contains(b.String(), "num_samples = 1\n") {
		t.Errorf("saved warmup: %v\n%s", err, b.String())
	}
}
