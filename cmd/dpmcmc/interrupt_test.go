package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dpmcmc/dpmcmc/core/export"
	"github.com/dpmcmc/dpmcmc/core/mcmc"
	"github.com/dpmcmc/dpmcmc/core/privacy"
)

// skipLongSubprocess skips a test that builds the command and interrupts a
// long sampling job: in -short runs, and on Windows (no os.Interrupt).
func skipLongSubprocess(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the command and runs a long sampling job")
	}
	if runtime.GOOS == "windows" {
		t.Skip("os.Interrupt cannot be sent on Windows")
	}
}

// buildCLI compiles the command into a temporary directory.
func buildCLI(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "dpmcmc")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	cmd := exec.Command("go", "build", "-o", bin, ".")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// interruptedRun starts a long private dp-penalty run as a subprocess,
// sends os.Interrupt `after` the plan line appears (sampling has started),
// and returns the exit error, stderr and the paths of the exports.
func interruptedRun(t *testing.T, bin string, warmup, draws string, after time.Duration) (err error, stderr, out, report string) {
	t.Helper()
	dir := t.TempDir()
	data := writeCohort(t, dir, 300, 3)
	out = filepath.Join(dir, "draws.csv")
	report = filepath.Join(dir, "draws.privacy.json")
	cmd := exec.Command(bin, "sample", "--data", data, "--model", "logistic", "--outcome", "y",
		"--bound", "age=18:90", "--bound", "bmi=15:50", "--algorithm", "dp-penalty",
		"--epsilon", "1", "--delta", "1e-5", "--chains", "2", "--warmup", warmup, "--draws", draws,
		"--seed", "9", "--out", out)
	pipe, perr := cmd.StderrPipe()
	if perr != nil {
		t.Fatal(perr)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var all strings.Builder
	started := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(pipe)
		sc.Split(scanLinesCR)
		once := false
		for sc.Scan() {
			all.WriteString(sc.Text() + "\n")
			if !once && strings.HasPrefix(sc.Text(), "plan:") {
				once = true
				close(started)
			}
		}
	}()
	select {
	case <-started:
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		t.Fatal("no plan line within 60 s")
	}
	time.Sleep(after)
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	<-done
	err = cmd.Wait()
	return err, all.String(), out, report
}

// scanLinesCR splits on \n and on \r (the progress bar redraws with \r).
func scanLinesCR(data []byte, atEOF bool) (int, []byte, error) {
	for i, b := range data {
		if b == '\n' || b == '\r' {
			return i + 1, data[:i], nil
		}
	}
	if atEOF && len(data) > 0 {
		return len(data), data, nil
	}
	return 0, nil, nil
}

// Interrupting a private run (SIGINT) mid-way leaves a valid partial draws
// file and a privacy report that charges exactly the iterations that ran:
// cancelled is set, ε spent is below the budget and equals the tight
// Gaussian ε of μ_step·√(iterations that ran).
func TestInterruptLeavesValidPartialExports(t *testing.T) {
	skipLongSubprocess(t)
	bin := buildCLI(t)
	err, stderr, out, reportPath := interruptedRun(t, bin, "200", "3000000", 1500*time.Millisecond)
	checkInterruptedExit(t, err, stderr)
	if !strings.Contains(stderr, "iterations ran, all charged in the privacy report; the draws file keeps") {
		t.Fatalf("no interruption message:\n%s", tail(stderr))
	}
	d, rerr := export.ReadFiles(out)
	if rerr != nil {
		t.Fatalf("partial draws do not parse: %v", rerr)
	}
	b, rerr := os.ReadFile(reportPath)
	if rerr != nil {
		t.Fatal(rerr)
	}
	var rep struct {
		Cancelled  bool               `json:"cancelled"`
		Eps        float64            `json:"epsilon_spent"`
		Budget     float64            `json:"epsilon_budget"`
		Delta      float64            `json:"delta"`
		Mu         float64            `json:"mu_gdp"`
		Iterations []int              `json:"iterations_per_chain"`
		Warmup     int                `json:"warmup_per_chain"`
		Planned    int                `json:"planned_iterations_per_chain"`
		N          int                `json:"n"`
		Settings   map[string]float64 `json:"settings"`
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, it := range rep.Iterations {
		total += it
		if it >= rep.Planned {
			t.Errorf("chain ran %d of %d planned iterations: not interrupted mid-way", it, rep.Planned)
		}
		if d.NumIterations() > it-rep.Warmup {
			t.Errorf("%d draws exported for a chain that ran %d iterations (warmup %d)", d.NumIterations(), it, rep.Warmup)
		}
	}
	if !rep.Cancelled || !(rep.Eps < rep.Budget) {
		t.Fatalf("report: cancelled %v, ε spent %v of %v", rep.Cancelled, rep.Eps, rep.Budget)
	}
	cost, cerr := mcmc.DPPenaltyConfig{Tau: rep.Settings["tau"]}.Cost(rep.N, 3)
	if cerr != nil {
		t.Fatalf("settings %v: %v", rep.Settings, cerr)
	}
	wantMu := cost.StepMu() * math.Sqrt(float64(total))
	wantEps, _ := privacy.TightGaussian{Mu: wantMu}.Epsilon(rep.Delta)
	if math.Abs(rep.Mu-wantMu) > 1e-9*wantMu || math.Abs(rep.Eps-wantEps) > 1e-6*wantEps {
		t.Fatalf("report μ = %v, ε = %v; from %d iterations μ = %v, ε = %v", rep.Mu, rep.Eps, total, wantMu, wantEps)
	}
	t.Logf("interrupted after %v iterations per chain (planned %d): %d draws per chain exported, ε spent %.4g of %g",
		rep.Iterations, rep.Planned, d.NumIterations(), rep.Eps, rep.Budget)
}

// checkInterruptedExit fails unless a run interrupted once exited with
// status 130 (128 + SIGINT) after writing what ran, its last line saying so:
// a script must not take a partial run for a finished one.
func checkInterruptedExit(t *testing.T, err error, stderr string) {
	t.Helper()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Fatalf("interrupted run: exit %v, want status 130\n%s", err, tail(stderr))
	}
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, "dpmcmc: interrupted: the draws file and the privacy report hold what ran") {
		t.Errorf("last line %q", last)
	}
}

func tail(s string) string {
	if len(s) > 2000 {
		return "…" + s[len(s)-2000:]
	}
	return s
}

// Interrupted during warmup there are no post-warmup draws to write. The
// budget was spent all the same, so the privacy report must be written and
// charge the iterations that ran. Known issue (docs/RELIABILITY.md): the
// command then exits 1 with the writer's "leave no draws" error instead of
// a message saying the run stopped during warmup; this test pins the report
// and accepts either outcome for the draws file.
func TestInterruptDuringWarmupStillReports(t *testing.T) {
	skipLongSubprocess(t)
	bin := buildCLI(t)
	err, stderr, out, reportPath := interruptedRun(t, bin, "3000000", "100", time.Second)
	b, rerr := os.ReadFile(reportPath)
	if rerr != nil {
		t.Fatalf("no privacy report after an interruption during warmup: %v\n%s", rerr, tail(stderr))
	}
	var rep struct {
		Cancelled  bool    `json:"cancelled"`
		Eps        float64 `json:"epsilon_spent"`
		Budget     float64 `json:"epsilon_budget"`
		Iterations []int   `json:"iterations_per_chain"`
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if !rep.Cancelled || !(rep.Eps > 0 && rep.Eps < rep.Budget) || len(rep.Iterations) != 2 || rep.Iterations[0] == 0 {
		t.Fatalf("report after warmup interruption: %s", b)
	}
	checkInterruptedExit(t, err, stderr)
	if _, err := export.ReadFiles(out); err != nil {
		t.Fatalf("the draws do not parse: %v", err)
	}
	// Interrupted in warmup: the file holds no draws, and stderr says so.
	if !strings.Contains(stderr, "the draws file keeps 0 per chain") || !strings.Contains(stderr, "warning: a chain had drawn nothing") {
		t.Errorf("stderr does not say that no draws were kept:\n%s", tail(stderr))
	}
}

// A second Ctrl-C ends a run at once, even inside one long iteration (a
// non-private HMC chain on 400,000 rows with 1,024 leapfrog steps takes
// seconds per iteration): the first says what will happen and lets the
// chains finish their iteration; the second kills the process, which then
// writes nothing (nothing was released).
func TestSecondInterruptQuitsAtOnce(t *testing.T) {
	skipLongSubprocess(t)
	bin := buildCLI(t)
	dir := t.TempDir()
	data := writeCohort(t, dir, 400000, 3)
	out := filepath.Join(dir, "draws.csv")
	cmd := exec.Command(bin, "sample", "--data", data, "--model", "logistic", "--outcome", "y", "--algorithm", "hmc",
		"--leapfrog", "1024", "--no-adapt", "--step", "0.0001", "--chains", "1", "--warmup", "0", "--draws", "50", "--out", out)
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1500 * time.Millisecond) // loading, then inside the first iterations
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	// The second press follows the first one's message, as a user's does:
	// two presses before the process has handled the first are one signal
	// to the Go runtime (which merges a pending signal with a new one of the
	// same kind), and on a loaded machine that took longer than 0.1 s.
	for deadline := time.Now().Add(30 * time.Second); !strings.Contains(stderr.String(), "Ctrl-C again quits at once") && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	sent := time.Now()
	_ = cmd.Process.Signal(os.Interrupt)
	err := cmd.Wait()
	took := time.Since(sent)
	if err == nil || cmd.ProcessState.Success() {
		t.Fatalf("the run finished normally after two interrupts:\n%s", tail(stderr.String()))
	}
	if took > 3*time.Second {
		t.Errorf("the process ended %v after the second interrupt", took)
	}
	if _, serr := os.Stat(out); serr == nil {
		t.Errorf("a draws file was written after a second interrupt")
	}
	if s := stderr.String(); !strings.Contains(s, "Ctrl-C again quits at once and writes nothing") {
		t.Errorf("the first interrupt says nothing:\n%s", tail(s))
	}
}

// lockedBuffer is a strings.Builder that a test can read while a
// subprocess's output is copied into it.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
