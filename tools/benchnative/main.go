// Command benchnative times one chain of a run config natively, for the
// browser benchmark (make bench-browser): the same config the benchmark page
// runs in a wasm worker.
//
//	go run ./tools/benchnative -config CFG.json -data FILE.csv
//
// It prints JSON: {"iterations": N, "ns_per_iteration": X}.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/dpmcmc/dpmcmc/core/rng"
	"github.com/dpmcmc/dpmcmc/core/run"
)

func main() {
	cfgPath := flag.String("config", "", "run config JSON")
	dataPath := flag.String("data", "", "CSV file")
	flag.Parse()
	if err := bench(*cfgPath, *dataPath); err != nil {
		fmt.Fprintln(os.Stderr, "benchnative:", err)
		os.Exit(1)
	}
}

func bench(cfgPath, dataPath string) error {
	cb, err := os.ReadFile(cfgPath)
	if err != nil {
		return err
	}
	data, err := os.ReadFile(dataPath)
	if err != nil {
		return err
	}
	cfg, err := run.ParseConfig(cb)
	if err != nil {
		return err
	}
	t, _, err := run.LoadData(bytes.NewReader(data), cfg)
	if err != nil {
		return err
	}
	p, err := run.Prepare(cfg, t)
	if err != nil {
		return err
	}
	ch, err := p.NewChain(0, rng.NewKey())
	if err != nil {
		return err
	}
	start := time.Now()
	for !ch.Finished() {
		ch.Advance(64)
	}
	el := time.Since(start)
	return json.NewEncoder(os.Stdout).Encode(map[string]any{
		"iterations": ch.Done(), "ns_per_iteration": float64(el.Nanoseconds()) / float64(ch.Done()),
	})
}
