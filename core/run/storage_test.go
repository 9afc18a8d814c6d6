package run

import (
	"strings"
	"testing"
)

// The memory refusal's advice follows what the user set: fewer draws when
// they set draws, less noise when the plan followed a noise they gave, and
// their own warmup and draws when the plan followed the budget alone.
func TestCheckStorageAdviceFollowsWhatWasGiven(t *testing.T) {
	resolved := &Config{Chains: 4, Warmup: 1 << 20, Draws: 1 << 20}
	priv := &Budget{Epsilon: 1, Delta: 1e-5}
	cases := []struct {
		name  string
		given *Config
		want  string
		not   string
	}{
		{"draws given", &Config{Privacy: priv, Draws: 1 << 20}, "lower the draws or the warmup", "planned"},
		{"noise given", &Config{Privacy: priv, Settings: Settings{Tau: 0.5}}, "planned from the noise given", "budget"},
		{"budget only", &Config{Privacy: priv}, "planned from the budget: give --warmup and --draws", "noise"},
		{"not private", &Config{Draws: 1 << 20}, "lower the draws or the warmup", "planned"},
	}
	for _, tc := range cases {
		err := checkStorage(resolved, 300, tc.given)
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), tc.not) {
			t.Errorf("%s: got %v, want %q and not %q", tc.name, err, tc.want, tc.not)
		}
	}
}
