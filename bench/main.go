// Command bench measures dpmcmc against its performance targets (issue
// "Performance") and prints one table: measured value, target, pass/fail.
// With -out it also writes the table, the machine description and the
// commands to a Markdown file (make bench writes docs/PERFORMANCE.md).
//
//	go run ./bench                      # all rows, print the table
//	go run ./bench -out docs/PERFORMANCE.md
//	go run ./bench -only loglik,pld     # some sections
//
// Times are per operation: the median over rounds of CPU time of the
// benchmark thread (the machine is shared; CPU time is what other load
// inflates least), with wall time alongside. Nothing here asserts speed in
// a test.
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime/pprof"
	"strings"
	"time"
)

var (
	flagOut   = flag.String("out", "", "also write the table and machine notes to this Markdown file")
	flagOnly  = flag.String("only", "", "comma-separated sections to run (loglik, alloc, gmm, hmc, csv, pld, diag, wasm, browser)")
	flagQuick = flag.Bool("quick", false, "shorter measurements (noisier)")
	flagJSON  = flag.String("json", "", "also write the rows as JSON")
	flagProf  = flag.String("cpuprofile", "", "write a CPU profile of the run (go tool pprof)")
)

// row is one line of the table.
type row struct {
	ID       string `json:"id"`
	What     string `json:"what"`
	Measured string `json:"measured"`
	Target   string `json:"target"`
	Status   string `json:"status"` // PASS, FAIL, info, n/a
	Note     string `json:"note,omitempty"`
}

func pass(ok bool) string {
	if ok {
		return "PASS"
	}
	return "FAIL"
}

func want(section string) bool {
	if *flagOnly == "" {
		return true
	}
	for _, s := range strings.Split(*flagOnly, ",") {
		if strings.TrimSpace(s) == section {
			return true
		}
	}
	return false
}

func rounds() (int, time.Duration) {
	if *flagQuick {
		return 3, 100 * time.Millisecond
	}
	return 7, 300 * time.Millisecond
}

func ms(ns float64) string { return fmt.Sprintf("%.2f ms", ns/1e6) }
func us(ns float64) string { return fmt.Sprintf("%.1f µs", ns/1e3) }

func main() {
	flag.Parse()
	if *flagProf != "" {
		f, err := os.Create(*flagProf)
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
		defer pprof.StopCPUProfile()
	}
	var rows []row
	add := func(r ...row) {
		for _, x := range r {
			fmt.Fprintf(os.Stderr, "  %-4s %-58s %-28s %-12s %s\n", x.ID, x.What, x.Measured, x.Target, x.Status)
		}
		rows = append(rows, r...)
	}
	start := time.Now()
	type section struct {
		name string
		run  func() []row
	}
	for _, s := range sections {
		if want(s.name) {
			fmt.Fprintf(os.Stderr, "bench: %s …\n", s.name)
			add(s.run()...)
		}
	}
	fmt.Println(renderTable(rows))
	if *flagOut != "" {
		if err := writeDoc(*flagOut, rows, time.Since(start)); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
		fmt.Fprintln(os.Stderr, "bench: wrote", *flagOut)
	}
	if *flagJSON != "" {
		if err := writeJSON(*flagJSON, rows); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
	}
}
