package main

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"testing"
)

// FuzzRunMain runs the command line with fuzzed arguments (one per line of
// the input): it must never panic, must exit 0, 1 or 2, and an error exit
// must end stderr with exactly one "dpmcmc: reason" line (status 1) or print
// the reason and usage (status 2). It runs in a temporary directory holding
// a tiny CSV (d.csv) so the fuzzer can reach data loading and sampling;
// inputs that would serve, read devices or run for long are skipped.
func FuzzRunMain(f *testing.F) {
	dir := f.TempDir()
	csv := "y,x\n1,0.5\n0,-1\n1,2\n0,0\n1,1.5\n0,-0.5\n"
	if err := os.WriteFile(dir+"/d.csv", []byte(csv), 0o600); err != nil {
		f.Fatal(err)
	}
	f.Chdir(dir)
	for _, s := range []string{
		"", "help", "help\nsample", "version", "nope", "sample", "sample\n-h", "sample\n--chains\nx",
		"sample\n--data\nd.csv\n--model\nlogistic\n--outcome\ny\n--algorithm\nmh\n--chains\n1\n--warmup\n10\n--draws\n10\n--out\no.csv\n--quiet",
		"sample\n--data\nd.csv\n--model\nlogistic\n--outcome\ny\n--bound\nx=-2:2\n--algorithm\ndp-penalty\n--epsilon\n1\n--delta\n1e-3\n--chains\n1\n--warmup\n5\n--draws\n5\n--out\np.csv",
		"sample\n--data\nd.csv\n--model\nlogistic\n--algorithm\ndp-penalty\n--epsilon\n0\n--delta\n1\n--out\nx.csv",
		"sample\n--bound\nx=2:1\n--model\nlogistic\n--algorithm\nmh\n--data\nd.csv\n--out\nx.csv",
		"sample\n--print-config\n--model\nlinear\n--algorithm\nhmc\n--init\n1,2,x",
		"plan\n--algorithm\ndp-penalty\n--n\n1000\n--epsilon\n1\n--delta\n1e-5\n--chains\n2",
		"plan\n--algorithm\ndp-hmc\n--n\n10\n--dim\n2\n--epsilon\n1\n--delta\n0.5\n--warmup\n10\n--draws\n10\n--text",
		"account\ngaussian\n--mu\n1\n--delta\n1e-5", "account\nbogus", "summary", "summary\nd.csv",
		"sample\n--model-opt\nnovalue\n--model\ngaussian\n--algorithm\nmh", "sample\n--chains\n-1\n--data\nd.csv\n--model\nlogistic\n--algorithm\nmh\n--out\no.csv",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		args := strings.Split(in, "\n")
		if in == "" {
			args = nil
		}
		if len(args) > 40 || !safeArgs(args) {
			return
		}
		var out, errb bytes.Buffer
		code := runMain(args, &out, &errb)
		stderr := errb.String()
		switch code {
		case 0:
		case 1:
			lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
			last := lines[len(lines)-1]
			if !strings.HasSuffix(stderr, "\n") || !strings.HasPrefix(last, "dpmcmc: ") {
				t.Fatalf("status 1 without a final 'dpmcmc: reason' line; stderr %q", stderr)
			}
		case 2:
			if strings.TrimSpace(stderr+out.String()) == "" {
				t.Fatalf("status 2 with no message")
			}
		default:
			t.Fatalf("exit status %d", code)
		}
	})
}

// safeArgs skips inputs that would block or run long: the server, device
// files and absolute paths, stdin, and numbers above 1000 (iterations,
// chains) or settings that plan long runs (noise scales, leapfrog, inner
// iterations).
func safeArgs(args []string) bool {
	for _, a := range args {
		if strings.Contains(a, "serve") || strings.Contains(a, "/") || strings.Contains(a, "tau") ||
			strings.Contains(a, "inner") || strings.Contains(a, "leapfrog") || a == "-" {
			return false
		}
		for _, tok := range strings.FieldsFunc(a, func(r rune) bool { return r == '=' || r == ',' || r == ':' }) {
			if v, err := strconv.ParseFloat(strings.TrimSpace(tok), 64); err == nil && (v > 1000 || v < -1e6) {
				return false
			}
			if _, err := strconv.ParseUint(strings.TrimSpace(tok), 0, 64); err == nil && len(strings.TrimSpace(tok)) > 4 {
				return false
			}
		}
	}
	return true
}
