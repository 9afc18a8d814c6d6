package run

import (
	"encoding/json"
	"testing"
)

// FuzzPlanConfig feeds arbitrary JSON through the path every run config
// takes before data is read: ParseConfig, Validate and MakePlan. None may
// panic; a plan that is made must be consistent (a private plan spends at
// most its budget and runs at least one draw per chain), and a config that
// parses must survive a JSON round trip unchanged in meaning.
func FuzzPlanConfig(f *testing.F) {
	for _, s := range []string{
		`{"model":{"model":"logistic","outcome":"y"},"algorithm":"mh","chains":4,"warmup":100,"draws":100,"seed":1}`,
		`{"model":{"model":"logistic"},"algorithm":"dp-penalty","chains":2,"privacy":{"epsilon":1,"delta":1e-5},"settings":{"clip":1}}`,
		`{"algorithm":"dp-penalty","chains":1,"draws":0,"privacy":{"epsilon":2,"delta":1e-6},"settings":{"tau":0.17,"clip":1}}`,
		`{"algorithm":"dp-hmc","chains":4,"warmup":100,"draws":100,"privacy":{"epsilon":1,"delta":1e-5,"relation":"add-remove"},"settings":{"clip":1,"grad_clip":1}}`,
		`{"algorithm":"dp-hmc","chains":4,"privacy":{"epsilon":1,"delta":1e-5},"settings":{"tau":0.1,"tau_grad":0.55,"leapfrog":3,"clip":1,"grad_clip":1}}`,
		`{"algorithm":"dp-mala","chains":1,"warmup":10,"draws":10,"privacy":{"epsilon":1,"delta":1e-5},"settings":{"step":0.001,"clip":1,"grad_clip":5}}`,
		`{"algorithm":"ops","chains":2,"draws":3,"privacy":{"epsilon":1,"delta":1e-5},"settings":{"box":5}}`,
		`{"algorithm":"dp-penalty","chains":64,"privacy":{"epsilon":1e-300,"delta":0.999999},"settings":{"tau":1e300,"clip":1e-300}}`,
		`{"data":{"bounds":{"age":[18,90]},"delimiter":";"},"init":{"kind":"values","values":[1,2]},"algorithm":"hmc","chains":1,"draws":1}`,
		`{"algorithm":"mh","chains":0,"draws":-1,"privacy":{"epsilon":-1,"delta":2}}`,
		`{} {}`, `[]`, `null`, `{"unknown":1}`,
	} {
		f.Add([]byte(s), uint32(1000), uint8(3))
	}
	f.Add([]byte(`{"algorithm":"dp-penalty","chains":1,"privacy":{"epsilon":1,"delta":0.5},"settings":{"clip":1}}`), uint32(2), uint8(1))
	f.Fuzz(func(t *testing.T, b []byte, n32 uint32, d8 uint8) {
		n, d := int(n32%2_000_000_000), int(d8)
		cfg, err := ParseConfig(b)
		if err != nil {
			return
		}
		switch cfg.Algorithm {
		case "dp-sgld", "dp-sgnht", "dp-sghmc", "hybrid":
			// Planned with the numerical PLD accountant (~60 ms an
			// evaluation, tens of evaluations a plan): too slow for a
			// fuzz loop; their planning is tested in minibatch_test.go.
			return
		}
		verr := cfg.Validate()
		p, perr := MakePlan(cfg, n, d)
		if verr != nil && perr == nil {
			t.Fatalf("MakePlan accepted a config Validate refuses (%v)", verr)
		}
		// A parsed config survives a JSON round trip.
		js, err := cfg.PublicJSON()
		if err != nil {
			return // e.g. a NaN cannot come from JSON, but be lenient
		}
		back, err := ParseConfig(js)
		if err != nil {
			t.Fatalf("cannot re-read the config's own JSON %s: %v", js, err)
		}
		js2, _ := back.PublicJSON()
		if string(js) != string(js2) {
			t.Fatalf("round trip changed the config:\n%s\n%s", js, js2)
		}
		if perr != nil {
			return
		}
		if p.Private {
			if p.Epsilon > cfg.Privacy.Epsilon {
				t.Fatalf("plan spends ε = %v > budget %v", p.Epsilon, cfg.Privacy.Epsilon)
			}
			if p.Draws < 1 || p.Warmup < 0 {
				t.Fatalf("plan: warmup %d draws %d", p.Warmup, p.Draws)
			}
			if _, err := json.Marshal(p); err != nil {
				t.Fatalf("plan does not marshal: %v", err)
			}
		}
	})
}
