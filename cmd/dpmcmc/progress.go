package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/dpmcmc/dpmcmc/core/run"
)

// progressBar shows per-chain progress on stderr: a live bar redrawn in place
// on a terminal, plain lines at every 10% otherwise.
type progressBar struct {
	w        io.Writer
	tty      bool
	quiet    bool
	done_    []int
	total    []int
	lastPct  []int
	lastDraw time.Time
	start    time.Time
}

func newProgressBar(w io.Writer, chains int, quiet bool) *progressBar {
	tty := false
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			tty = true
		}
	}
	return &progressBar{w: w, tty: tty, quiet: quiet, done_: make([]int, chains), total: make([]int, chains), lastPct: make([]int, chains), start: time.Now()}
}

// update is the run's progress callback (called under the run's lock).
func (p *progressBar) update(pr run.Progress) {
	if p.quiet {
		return
	}
	p.done_[pr.Chain], p.total[pr.Chain] = pr.Iteration, pr.Total
	if p.tty {
		if time.Since(p.lastDraw) < 100*time.Millisecond && pr.Iteration < pr.Total {
			return
		}
		p.lastDraw = time.Now()
		var b strings.Builder
		b.WriteString("\r")
		for c := range p.done_ {
			pct := 0
			if p.total[c] > 0 {
				pct = 100 * p.done_[c] / p.total[c]
			}
			n := pct / 10
			fmt.Fprintf(&b, "chain %d [%s%s] %3d%%  ", c+1, strings.Repeat("#", n), strings.Repeat(".", 10-n), pct)
		}
		fmt.Fprint(p.w, b.String())
		return
	}
	pct := 100 * pr.Iteration / max(pr.Total, 1)
	if pct/10 > p.lastPct[pr.Chain]/10 || pr.Iteration == pr.Total {
		p.lastPct[pr.Chain] = pct
		phase := "sampling"
		if pr.Iteration <= pr.Warmup {
			phase = "warmup"
		}
		fmt.Fprintf(p.w, "chain %d: %d/%d iterations (%d%%, %s)\n", pr.Chain+1, pr.Iteration, pr.Total, pct, phase)
	}
}

func (p *progressBar) done() {
	if p.quiet {
		return
	}
	if p.tty {
		fmt.Fprintln(p.w)
	}
	fmt.Fprintf(p.w, "sampling took %s (a timing: shown here only, not private, not exported)\n", time.Since(p.start).Round(time.Millisecond))
}
