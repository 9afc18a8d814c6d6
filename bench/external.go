package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// benchWasm runs the log-likelihood section compiled to wasm under Node
// (GOOS=js GOARCH=wasm, Go's go_js_wasm_exec), timed by wall clock (no CPU
// clock there), and reports row 1a from it.
func benchWasm() []row {
	if runtime.GOOS == "js" {
		return nil
	}
	r := row{ID: "1e", What: "log-lik-ratio pass (1a) in wasm under Node 20", Target: "—", Status: "info",
		Note: "wall time (no CPU clock in wasm); anchor: straightforward Go loop 9.1 ms in Node, 10.7 ms in a Chromium worker"}
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		r.Measured = "not measured: " + err.Error()
		return []row{r}
	}
	execPath := filepath.Join(strings.TrimSpace(string(goroot)), "lib", "wasm", "go_js_wasm_exec")
	tmp, err := os.CreateTemp("", "bench-wasm-*.json")
	if err != nil {
		r.Measured = "not measured: " + err.Error()
		return []row{r}
	}
	tmp.Close()
	defer os.Remove(tmp.Name())
	args := []string{"run", "-exec", execPath, "./bench", "-only", "loglik", "-json", tmp.Name()}
	if *flagQuick {
		args = append(args, "-quick")
	}
	cmd := exec.Command("go", args...)
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	cmd.Stderr = os.Stderr
	if out, err := cmd.Output(); err != nil {
		r.Measured = "not measured: " + firstLine(fmt.Errorf("%v %s", err, out))
		return []row{r}
	}
	var rows []row
	b, err := os.ReadFile(tmp.Name())
	if err == nil {
		err = json.Unmarshal(b, &rows)
	}
	if err != nil {
		r.Measured = "not measured: " + err.Error()
		return []row{r}
	}
	for _, x := range rows {
		if x.ID == "1a" {
			r.Measured = strings.TrimSuffix(strings.SplitN(x.Measured, " (", 2)[0], " ")
		}
	}
	return []row{r}
}

// browserJSON is what make bench-browser (e2e/bench.mjs) writes.
type browserJSON struct {
	WasmNsPerIteration   float64            `json:"wasm_ns_per_iteration"`
	NativeNsPerIteration float64            `json:"native_ns_per_iteration"`
	WasmOverNative       float64            `json:"wasm_over_native"`
	NavigationToReadyMs  float64            `json:"navigation_to_ready_ms"`
	TransferRawBytes     float64            `json:"transfer_raw_bytes"`
	TransferBrotliBytes  float64            `json:"transfer_brotli_bytes"`
	Requests             int                `json:"requests"`
	MedianRatio          float64            `json:"wasm_median_over_native_median"`
	NavigationMedianMs   float64            `json:"navigation_to_ready_median_ms"`
	LargeCSVBytes        float64            `json:"large_csv_bytes"`
	LargeCSVLoadMs       float64            `json:"large_csv_load_ms"`
	LargeCSVLongestTask  float64            `json:"large_csv_longest_main_thread_task_ms"`
	LargeCSVProgress     int                `json:"large_csv_progress_updates"`
	LargeCSVPeakOverNum  float64            `json:"large_csv_peak_memory_over_numeric"`
	ScalingCores         int                `json:"scaling_cores"`
	ScalingSpeedup       float64            `json:"scaling_speedup"`
	ScalingMedianSpeedup float64            `json:"scaling_median_speedup"`
	ScalingWallNs        map[string]float64 `json:"scaling_wall_ns_per_iteration"`
}

// passFail is "PASS" when ok, else "FAIL".
func passFail(ok bool) string {
	if ok {
		return "PASS"
	}
	return "FAIL"
}

// benchBrowser reports the browser engineer's headless benchmark
// (build/bench/browser.json, written by make bench-browser) when present.
func benchBrowser() []row {
	const path = "build/bench/browser.json"
	see := "see browser benchmark (make bench-browser)"
	rows := []row{
		{ID: "2a", What: "Chromium worker, time per HMC iteration (bench.html config), wasm vs native", Target: "≤ ×2.0"},
		{ID: "2d", What: "Chromium workers: chains at once, one per worker, up to the core count (same config; speedup = K·T₁/T_K)", Target: "≥ 0.8 × cores"},
		{ID: "2b", What: "page: navigation to ready (loopback)", Target: "≤ 1000 ms"},
		{ID: "2c", What: "page: transfer size (brotli)", Target: "≤ 1.50 MB"},
		{ID: "5b", What: "page: a 100 MB CSV loaded in a worker (peak memory ÷ numeric size; longest main-thread task; progress shown)", Target: "≤ 2.5×, no freeze, progress"},
	}
	b, err := os.ReadFile(path)
	var j browserJSON
	if err == nil {
		err = json.Unmarshal(b, &j)
	}
	if err != nil {
		for i := range rows {
			rows[i].Measured, rows[i].Status = see, "n/a"
		}
		return rows
	}
	when := ""
	if st, err := os.Stat(path); err == nil {
		when = "from " + path + ", " + st.ModTime().UTC().Format(time.DateTime) + " UTC"
	}
	rows[0].Measured = fmt.Sprintf("%s wasm, %s native (×%.2f best; medians ×%.2f)", ms(j.WasmNsPerIteration), ms(j.NativeNsPerIteration), j.WasmOverNative, j.MedianRatio)
	rows[0].Status = passFail(j.WasmOverNative <= 2)
	if c := j.ScalingCores; c > 0 && j.ScalingSpeedup > 0 {
		k := fmt.Sprint(c)
		rows[1].Measured = fmt.Sprintf("×%.2f with %d chains on %d workers (medians ×%.2f; wall per iteration %s for %d, %s for 1)",
			j.ScalingSpeedup, c, c, j.ScalingMedianSpeedup, ms(j.ScalingWallNs[k]), c, ms(j.ScalingWallNs["1"]))
		rows[1].Status = passFail(j.ScalingSpeedup >= 0.8*float64(c))
		rows[1].Target = fmt.Sprintf("≥ ×%.1f (0.8 × %d cores)", 0.8*float64(c), c)
	} else {
		rows[1].Measured, rows[1].Status = see, "n/a"
	}
	rows[2].Measured = fmt.Sprintf("%.0f ms (median %.0f ms)", j.NavigationToReadyMs, j.NavigationMedianMs)
	rows[2].Status = passFail(j.NavigationToReadyMs <= 1000)
	rows[3].Measured = fmt.Sprintf("%.2f MB (%.2f MB raw, %d requests)", j.TransferBrotliBytes/1e6, j.TransferRawBytes/1e6, j.Requests)
	rows[3].Status = passFail(j.TransferBrotliBytes <= 1.5e6)
	if j.LargeCSVBytes > 0 {
		rows[4].Measured = fmt.Sprintf("%.0f MB in %.1f s: peak %.2f×, longest main-thread task %.0f ms, %d progress updates",
			j.LargeCSVBytes/1e6, j.LargeCSVLoadMs/1e3, j.LargeCSVPeakOverNum, j.LargeCSVLongestTask, j.LargeCSVProgress)
		// "Without freezing": no main-thread task over 200 ms (a frame
		// budget users notice); progress: at least one update per 10 MB.
		rows[4].Status = passFail(j.LargeCSVPeakOverNum <= 2.5 && j.LargeCSVLongestTask <= 200 && float64(j.LargeCSVProgress) >= j.LargeCSVBytes/10e6)
	} else {
		rows[4].Measured, rows[4].Status = see, "n/a"
	}
	for i := range rows {
		rows[i].Note = when
	}
	return rows
}
