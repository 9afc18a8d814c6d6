package run

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// settingsRead lists, by their JSON names, the Settings that each
// algorithm's plan and kernel read. Any other setting given is ignored by
// that algorithm; IgnoredSettings names it, so that a flag or a page input
// meant for another sampler (--tau with noise-aware, a leapfrog count with
// mh) is not believed to have acted. TestIgnoredSettingsChangeNothing
// checks the list: a setting outside it changes neither the plan nor the
// draws.
var settingsRead = map[string][]string{
	"mh":             {"step", "no_adapt", "target_accept"},
	"barker":         {"step"},
	"hmc":            {"step", "leapfrog", "jitter", "metric", "no_adapt", "target_accept"},
	"mala":           {"step", "no_adapt", "target_accept"},
	"tunamh":         {"step", "lambda", "chi", "box"},
	"dp-penalty":     {"step", "clip", "tau", "ocu", "grw", "no_adapt", "target_accept", "box"},
	"dp-hmc":         {"step", "leapfrog", "jitter", "clip", "grad_clip", "tau", "tau_grad", "no_adapt", "target_accept", "box"},
	"dp-mala":        {"step", "mala_a", "clip", "grad_clip", "tau", "no_adapt", "target_accept", "box"},
	"ops":            {"box", "inner_iterations"},
	"dp-barker":      {"step", "batch", "barker_c", "clip", "no_adapt", "target_accept", "box"},
	"dp-barker-full": {"step", "barker_c", "clip", "no_adapt", "target_accept", "box"},
	"dp-fastmh":      {"step", "lambda", "batch_cap", "step_epsilon", "step_delta", "no_adapt", "target_accept", "box"},
	"dp-fastmh-full": {"step", "lambda", "step_epsilon", "step_delta", "no_adapt", "target_accept", "box"},
	"dp-penalty-sub": {"step", "clip", "tau", "batch", "sampling", "no_adapt", "target_accept", "box"},
	"dp-sgld":        {"step", "batch", "sampling", "grad_clip", "noise_multiplier", "box"},
	"dp-sgnht":       {"step", "friction", "batch", "sampling", "grad_clip", "noise_multiplier", "box"},
	"dp-sghmc":       {"step", "friction", "batch", "sampling", "grad_clip", "noise_multiplier", "box"},
	NoiseAware:       {},
	Exact:            {},
	"hybrid":         {"step", "batch", "sampling", "grad_clip", "noise_multiplier", "ops_share", "inner_iterations", "box"},
}

// IgnoredSettings returns, sorted, the JSON names of the settings cfg
// gives (non-zero) that its algorithm does not read. The public box also
// bounds a private dp-map start, so it is read whenever one is planned.
// An unknown algorithm (or auto, before it is resolved) ignores nothing.
func IgnoredSettings(cfg *Config) []string {
	read, ok := settingsRead[cfg.Algorithm]
	if !ok {
		return nil
	}
	b, err := json.Marshal(cfg.Settings) // omitempty: the given ones
	if err != nil {
		return nil
	}
	var given map[string]any
	if json.Unmarshal(b, &given) != nil {
		return nil
	}
	var out []string
	for _, k := range slices.Sorted(maps.Keys(given)) {
		if slices.Contains(read, k) || (k == "box" && cfg.Init.Kind == "dp-map" && cfg.Privacy != nil) {
			continue
		}
		out = append(out, k)
	}
	return out
}

// IgnoredNote is the plan's note naming the ignored settings (as the
// command-line flags spell them: grad-clip for the config's grad_clip).
func IgnoredNote(alg string, names []string) string {
	flags := make([]string, len(names))
	for i, n := range names {
		flags[i] = strings.ReplaceAll(n, "_", "-")
	}
	if len(flags) == 1 {
		return fmt.Sprintf("%s ignores the setting %s: it is for other samplers", alg, flags[0])
	}
	return fmt.Sprintf("%s ignores the settings %s: they are for other samplers", alg, strings.Join(flags, ", "))
}

// IgnoredInitNotes name the starting-point settings of cfg that its
// algorithm does not read (as IgnoredNote names the sampler settings): an
// init share without the dp-map init it is the budget share of, and an
// init for the samplers whose draws are independent draws from the
// posterior (noise-aware, exact), which have no starting point.
func IgnoredInitNotes(cfg *Config) []string {
	var out []string
	if cfg.Init.Share > 0 && cfg.Init.Kind != "dp-map" {
		out = append(out, "init-share is read only with init dp-map (it is the share of the budget the private mode estimate spends): it is ignored")
	}
	if k := cfg.Init.Kind; k != "" && (cfg.Algorithm == NoiseAware || cfg.Algorithm == Exact) {
		out = append(out, fmt.Sprintf("the starting point (init %s) is not read by %s: its draws are independent draws from the posterior, with no starting point", k, cfg.Algorithm))
	}
	return out
}
