package main

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
)

func runAccountJSON(t *testing.T, args ...string) map[string]any {
	t.Helper()
	var out, errb bytes.Buffer
	if code := runMain(append([]string{"account"}, args...), &out, &errb); code != 0 {
		t.Fatalf("dpmcmc account %v: exit %d: %s", args, code, errb.String())
	}
	var m map[string]any
	if err := json.Unmarshal(out.Bytes(), &m); err != nil {
		t.Fatalf("output is not one JSON object: %v\n%s", err, out.String())
	}
	for _, k := range []string{"epsilon", "delta", "method", "relation"} {
		if _, ok := m[k]; !ok {
			t.Errorf("output lacks %q: %s", k, out.String())
		}
	}
	return m
}

func acctNum(t *testing.T, m map[string]any, k string) float64 {
	t.Helper()
	v, ok := m[k].(float64)
	if !ok {
		t.Fatalf("%q missing or not a number in %v", k, m)
	}
	return v
}

func TestAccountGaussian(t *testing.T) {
	m := runAccountJSON(t, "gaussian", "--noise-multiplier", "1", "--delta", "1e-5")
	if math.Abs(acctNum(t, m, "epsilon")-4.377178096) > 1e-6 || m["method"] != "tight" || m["relation"] != "add-remove" {
		t.Errorf("A8 tight: %v", m)
	}
	m = runAccountJSON(t, "gaussian", "--noise-multiplier", "1", "--delta", "1e-5", "--method", "rdp")
	if math.Abs(acctNum(t, m, "epsilon")-4.728386985) > 1e-6 || m["order"] == nil {
		t.Errorf("A8 rdp: %v", m)
	}
	m = runAccountJSON(t, "gaussian", "--noise-multiplier", "1", "--delta", "1e-5", "--method", "zcdp")
	if math.Abs(acctNum(t, m, "epsilon")-5.298525912) > 1e-6 {
		t.Errorf("A8 zcdp: %v", m)
	}
	// A11: replace-one doubles the sensitivity
	m = runAccountJSON(t, "gaussian", "--noise-multiplier", "1", "--relation", "replace", "--epsilon", "1")
	if math.Abs(acctNum(t, m, "delta")-0.50986166) > 1e-7 || acctNum(t, m, "sensitivity") != 2 {
		t.Errorf("A11: %v", m)
	}
	// A13
	m = runAccountJSON(t, "gaussian", "--noise-multiplier", "10", "--count", "1000", "--epsilon", "1")
	if math.Abs(acctNum(t, m, "delta")-0.8185178155) > 1e-7 {
		t.Errorf("A13: %v", m)
	}
}

func TestAccountSubsampled(t *testing.T) {
	pld := runAccountJSON(t, "subsampled-gaussian", "--noise-multiplier", "1", "--rate", "0.01", "--count", "1000", "--sampling", "poisson", "--delta", "1e-5")
	rdp := runAccountJSON(t, "subsampled-gaussian", "--noise-multiplier", "1", "--rate", "0.01", "--count", "1000", "--sampling", "poisson", "--delta", "1e-5", "--method", "rdp")
	if pld["method"] != "pld" || rdp["method"] != "rdp" || rdp["order"] == nil {
		t.Errorf("methods: %v / %v", pld, rdp)
	}
	if acctNum(t, pld, "epsilon") > acctNum(t, rdp, "epsilon") {
		t.Errorf("default (tightest) %v above rdp %v", pld["epsilon"], rdp["epsilon"])
	}
	wor := runAccountJSON(t, "subsampled-gaussian", "--noise-multiplier", "2", "--rate", "0.01", "--count", "1000", "--sampling", "without-replacement", "--delta", "1e-5")
	if wor["relation"] != "replace" {
		t.Errorf("without-replacement default relation: %v", wor)
	}
}

// Issue #15 item 1: fixed-size batches were accounted with the Poisson
// replace-one pair (ε = 2.87 here). The neighbours "every row's clipped
// gradient −G·e, one row +G·e" make each step (1−q)N(0) + qN(2) vs N(0)
// (noise multiplier 1), whose 1000-fold composition needs ε ≥ 13.31 at
// δ = 1e-5 (lower bound computed independently of the PLD in
// core/privacy/wor_floor_test.go). Both methods must claim at least that.
func TestAccountWithoutReplacementAboveCounterexample(t *testing.T) {
	const floor = 13.31
	for _, method := range []string{"pld", "rdp"} {
		m := runAccountJSON(t, "subsampled-gaussian", "--noise-multiplier", "1", "--rate", "0.01", "--count", "1000",
			"--sampling", "without-replacement", "--relation", "replace", "--delta", "1e-5", "--method", method)
		if e := acctNum(t, m, "epsilon"); e < floor {
			t.Errorf("--method %s: ε = %.3f below the counterexample's %.2f: %v", method, e, floor, m)
		}
	}
}

func TestAccountBarkerA17(t *testing.T) {
	m := runAccountJSON(t, "barker", "--n", "1000000", "--batch", "1000", "--count", "20000", "--delta", "1e-6")
	if math.Abs(acctNum(t, m, "epsilon_classic")-1.0004195705) > 1e-9 || acctNum(t, m, "order_classic") != 29 {
		t.Errorf("A17: %v", m)
	}
	if acctNum(t, m, "epsilon") > acctNum(t, m, "epsilon_classic") {
		t.Errorf("best above classic: %v", m)
	}
}

func TestAccountCompositionA15(t *testing.T) {
	m := runAccountJSON(t, "composition", "--step-epsilon", "0.1", "--step-delta", "0", "--count", "100", "--delta", "1e-5", "--method", "advanced")
	if math.Abs(acctNum(t, m, "epsilon")-5.8502350929) > 1e-8 {
		t.Errorf("A15: %v", m)
	}
	best := runAccountJSON(t, "composition", "--step-epsilon", "0.1", "--step-delta", "0", "--count", "100", "--delta", "1e-5")
	if best["method"] != "optimal" || acctNum(t, best, "epsilon") > acctNum(t, m, "epsilon") {
		t.Errorf("best composition: %v", best)
	}
}

func TestAccountInvalid(t *testing.T) {
	for _, args := range [][]string{
		{"gaussian", "--noise-multiplier", "0", "--delta", "1e-5"},
		{"gaussian", "--noise-multiplier", "-1", "--delta", "1e-5"},
		{"gaussian", "--noise-multiplier", "1", "--delta", "1"},
		{"gaussian", "--noise-multiplier", "1", "--delta", "0"},
		{"gaussian", "--noise-multiplier", "1", "--count", "0", "--delta", "1e-5"},
		{"gaussian", "--noise-multiplier", "1"},
		{"gaussian", "--noise-multiplier", "1", "--delta", "1e-5", "--epsilon", "1"},
		{"subsampled-gaussian", "--noise-multiplier", "1", "--rate", "0", "--count", "10", "--sampling", "poisson", "--delta", "1e-5"},
		{"subsampled-gaussian", "--noise-multiplier", "1", "--rate", "1.5", "--count", "10", "--sampling", "poisson", "--delta", "1e-5"},
		{"subsampled-gaussian", "--noise-multiplier", "1", "--rate", "0.1", "--count", "10", "--sampling", "without-replacement", "--relation", "add-remove", "--delta", "1e-5"},
		{"barker", "--n", "1000", "--batch", "100", "--count", "0", "--delta", "1e-6"},
		{"composition", "--step-epsilon", "0.1", "--count", "0", "--delta", "1e-5"},
		{"nonsense"},
	} {
		var out, errb bytes.Buffer
		code := runMain(append([]string{"account"}, args...), &out, &errb)
		if code == 0 {
			t.Errorf("%v: exit 0, want non-zero", args)
		}
		if strings.TrimSpace(errb.String()) == "" {
			t.Errorf("%v: no message on stderr", args)
		}
	}
}

// An add/remove figure says in its JSON that a run is accounted under
// replace-one (the Poisson default understated a run's ε 1.75×); a replace
// figure has no such note.
func TestAccountAddRemoveNote(t *testing.T) {
	m := runAccountJSON(t, "subsampled-gaussian", "--noise-multiplier", "1", "--rate", "0.01", "--count", "10000", "--sampling", "poisson", "--delta", "1e-5")
	if note, _ := m["note"].(string); m["relation"] != "add-remove" || !strings.Contains(note, "accounted under replace-one") {
		t.Errorf("poisson default: relation %v, note %q", m["relation"], note)
	}
	r := runAccountJSON(t, "subsampled-gaussian", "--noise-multiplier", "1", "--rate", "0.01", "--count", "10000", "--sampling", "poisson", "--delta", "1e-5", "--relation", "replace")
	if _, ok := r["note"]; ok || !(r["epsilon"].(float64) > 1.7*m["epsilon"].(float64)) {
		t.Errorf("replace: %v (add/remove ε %v)", r, m["epsilon"])
	}
	g := runAccountJSON(t, "gaussian", "--noise-multiplier", "1", "--delta", "1e-5")
	if note, _ := g["note"].(string); !strings.Contains(note, "accounted under replace-one") {
		t.Errorf("gaussian add-remove: note %q", note)
	}
}
