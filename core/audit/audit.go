package audit

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
)

// Mechanism runs the mechanism under test once on one of two neighbouring
// datasets (neighbour 0: D, neighbour 1: D′) and returns the released
// output. noise is a fresh private stream for this run: it must be the only
// source of the mechanism's private randomness (public randomness, such as
// a seeded proposal stream, must be the same on every run and on both
// datasets). A Mechanism is called concurrently from several goroutines.
type Mechanism func(neighbour int, noise *rand.Rand) ([]float64, error)

// Statistic maps a released output to a number. The auditor considers the
// events {s(out) > t} and {s(out) ≤ t} for every statistic s and threshold
// t: half-spaces for positions, "accepted" for an accept bit, "at least k
// moves" for a chain.
type Statistic struct {
	Name string
	F    func(out []float64) float64
}

// Coordinate is the statistic out[j].
func Coordinate(j int, name string) Statistic {
	return Statistic{Name: name, F: func(out []float64) float64 { return out[j] }}
}

// Options configure one audit.
type Options struct {
	// Trials is the number of runs per dataset in the estimation batch.
	Trials int
	// SelectTrials is the number of runs per dataset in the (separate)
	// batch that chooses the event (default Trials/4, at least 1000).
	SelectTrials int
	// Delta is the δ at which the claim ε(δ) is tested.
	Delta float64
	// Alpha is 1 − confidence (default 1e-3): each Clopper–Pearson bound
	// is one-sided at level 1 − Alpha/2.
	Alpha float64
	// Seed fixes the private streams of the runs (reproducible audits).
	Seed uint64
	// Workers is the number of goroutines (default GOMAXPROCS).
	Workers int
	// Stats are the statistics whose threshold events are candidates
	// (default: every coordinate of the output).
	Stats []Statistic
}

// Event is a rejection event S = {Stat(out) > Threshold} (Above) or
// {Stat(out) ≤ Threshold}; Favours is the neighbour (0 or 1) on which S is
// more likely (the "p1" dataset of the bound).
type Event struct {
	Stat      string
	Above     bool
	Threshold float64
	Favours   int
}

func (e Event) String() string {
	op := "≤"
	if e.Above {
		op = ">"
	}
	return fmt.Sprintf("%s %s %.6g (favours D%s)", e.Stat, op, e.Threshold, map[int]string{0: "", 1: "′"}[e.Favours])
}

// Result is the outcome of one audit.
type Result struct {
	// Claim is the ε the accountant claims at Delta.
	Claim float64
	Delta float64
	// EpsLB is the empirical lower bound on ε, valid with probability at
	// least Confidence; −Inf when no event separates the datasets.
	EpsLB      float64
	Confidence float64
	Event      Event
	// Hits of the event on the favoured dataset (K1) and on the other (K0)
	// out of Trials runs each, and their Clopper–Pearson bounds.
	K1, K0, Trials int
	P1Lo, P0Hi     float64
}

// Violation reports whether the empirical lower bound exceeds the claim:
// the mechanism is not as private as claimed (with probability at least
// Confidence).
func (r Result) Violation() bool { return r.EpsLB > r.Claim }

func (r Result) String() string {
	return fmt.Sprintf("ε_lb = %.3f vs claim ε(δ=%g) = %.3f at %.4g%% confidence; S: %v; hits %d vs %d of %d (p1 ≥ %.4g, p0 ≤ %.4g)",
		r.EpsLB, r.Delta, r.Claim, 100*r.Confidence, r.Event, r.K1, r.K0, r.Trials, r.P1Lo, r.P0Hi)
}

// Run audits m against the claimed ε at o.Delta, hypothesis-test style
// (StatDP, Ding et al. 2018; DP-Auditorium, Kong et al. 2024): a first batch
// of runs on D and D′ chooses the event S that promises the largest lower
// bound among the threshold events of o.Stats; a fresh batch estimates
// P[M(D)∈S] and P[M(D′)∈S] with Clopper–Pearson bounds, and
//
//	ε_lb = log((p1_lo − δ) / p0_hi)
//
// holds with confidence 1 − o.Alpha. Only the fresh batch enters the bound,
// so choosing S on the first one costs no confidence.
func Run(m Mechanism, claim float64, o Options) (Result, error) {
	if o.Trials < 1 {
		return Result{}, errors.New("audit: Trials must be at least 1")
	}
	if !(o.Delta >= 0 && o.Delta < 1) {
		return Result{}, fmt.Errorf("audit: delta %v must be in [0, 1)", o.Delta)
	}
	if o.Alpha == 0 {
		o.Alpha = 1e-3
	}
	if !(o.Alpha > 0 && o.Alpha < 1) {
		return Result{}, fmt.Errorf("audit: alpha %v must be in (0, 1)", o.Alpha)
	}
	if o.SelectTrials == 0 {
		o.SelectTrials = max(o.Trials/4, 1000)
	}
	if o.Workers < 1 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	sel := [2][][]float64{}
	for nb := range 2 {
		out, err := runBatch(m, nb, 0, o.SelectTrials, o)
		if err != nil {
			return Result{}, err
		}
		sel[nb] = out
	}
	stats := o.Stats
	if len(stats) == 0 {
		for j := range sel[0][0] {
			stats = append(stats, Coordinate(j, fmt.Sprintf("out[%d]", j)))
		}
	}
	ev, ok := chooseEvent(sel, stats, o)
	res := Result{Claim: claim, Delta: o.Delta, Confidence: 1 - o.Alpha, Trials: o.Trials, EpsLB: math.Inf(-1)}
	if !ok {
		return res, nil
	}
	res.Event = ev.Event
	var k [2]int
	for nb := range 2 {
		out, err := runBatch(m, nb, 1, o.Trials, o)
		if err != nil {
			return Result{}, err
		}
		for _, x := range out {
			if ev.in(x) {
				k[nb]++
			}
		}
	}
	res.K1, res.K0 = k[ev.Favours], k[1-ev.Favours]
	res.EpsLB, res.P0Hi, res.P1Lo = EpsilonLowerBound(res.K0, o.Trials, res.K1, o.Trials, o.Delta, o.Alpha)
	return res, nil
}

// trialKey is the ChaCha8 key of one run: the seed, the batch, the
// neighbour and the run's index (distinct keys give independent streams).
func trialKey(seed uint64, batch, nb, i int) [32]byte {
	var k [32]byte
	binary.LittleEndian.PutUint64(k[0:], seed)
	binary.LittleEndian.PutUint64(k[8:], uint64(batch))
	binary.LittleEndian.PutUint64(k[16:], uint64(nb))
	binary.LittleEndian.PutUint64(k[24:], uint64(i))
	return k
}

// runBatch runs m n times on neighbour nb; run i uses the stream of
// trialKey(seed, batch, nb, i), so results do not depend on scheduling.
func runBatch(m Mechanism, nb, batch, n int, o Options) ([][]float64, error) {
	out := make([][]float64, n)
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		firstEr error
	)
	w := min(o.Workers, n)
	for g := range w {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := g; i < n; i += w {
				x, err := m(nb, rand.New(rand.NewChaCha8(trialKey(o.Seed, batch, nb, i))))
				if err != nil {
					mu.Lock()
					if firstEr == nil {
						firstEr = fmt.Errorf("audit: run %d on D%d: %w", i, nb, err)
					}
					mu.Unlock()
					return
				}
				out[i] = x
			}
		}()
	}
	wg.Wait()
	if firstEr != nil {
		return nil, firstEr
	}
	for i, x := range out {
		if len(x) != len(out[0]) {
			return nil, fmt.Errorf("audit: run %d released %d values, run 0 released %d", i, len(x), len(out[0]))
		}
	}
	return out, nil
}

type chosen struct {
	Event
	f func([]float64) float64
}

func (c chosen) in(out []float64) bool {
	v := c.f(out)
	if c.Above {
		return v > c.Threshold
	}
	return v <= c.Threshold
}

// maxThresholds caps the candidate thresholds per statistic.
const maxThresholds = 2000

// chooseEvent returns the threshold event with the largest projected lower
// bound: its selection-batch frequencies scaled to the estimation batch's
// size (the frequency on the disfavoured dataset smoothed by one hit so that
// an event never seen there is not taken for impossible).
func chooseEvent(sel [2][][]float64, stats []Statistic, o Options) (chosen, bool) {
	best, bestV := chosen{}, math.Inf(-1)
	ms := o.SelectTrials
	for _, s := range stats {
		var v [2][]float64
		for nb := range 2 {
			v[nb] = make([]float64, len(sel[nb]))
			for i, x := range sel[nb] {
				v[nb][i] = s.F(x)
			}
			slices.Sort(v[nb])
		}
		pool := slices.Concat(v[0], v[1])
		slices.Sort(pool)
		pool = slices.Compact(pool)
		step := max(1, len(pool)/maxThresholds)
		for i := 0; i < len(pool); i += step {
			t := pool[i]
			// count ≤ t on each side
			var le [2]int
			for nb := range 2 {
				le[nb] = upperBound(v[nb], t)
			}
			for _, above := range []bool{true, false} {
				var k [2]int
				for nb := range 2 {
					if above {
						k[nb] = ms - le[nb]
					} else {
						k[nb] = le[nb]
					}
				}
				for fav := range 2 {
					k1, k0 := k[fav], k[1-fav]
					if k1 <= k0 {
						continue
					}
					p0 := float64(k0+1) / float64(ms+1)
					p1 := float64(k1) / float64(ms)
					n := o.Trials
					// The Clopper–Pearson bounds are p1_lo ≤ k1/n ≤ p1 + ½/n
					// and p0_hi ≥ k0/n ≥ p0 − ½/n (k rounded from p·n), so
					// this point estimate bounds the projected ε_lb from
					// above: skip the (costly) exact bound when it cannot
					// beat the best. The choice is unchanged.
					if lo := p0 - 0.5/float64(n); lo > 0 && p1+0.5/float64(n)-o.Delta > 0 &&
						math.Log((p1+0.5/float64(n)-o.Delta)/lo) <= bestV {
						continue
					}
					e, _, _ := EpsilonLowerBound(int(math.Round(p0*float64(n))), n, int(math.Round(p1*float64(n))), n, o.Delta, o.Alpha)
					if e > bestV {
						bestV = e
						best = chosen{Event{Stat: s.Name, Above: above, Threshold: t, Favours: fav}, s.F}
					}
				}
			}
		}
	}
	return best, bestV > math.Inf(-1)
}

// upperBound returns the number of elements of sorted v that are ≤ t.
func upperBound(v []float64, t float64) int {
	i, _ := slices.BinarySearchFunc(v, t, func(a, b float64) int {
		if a <= b {
			return -1
		}
		return 1
	})
	return i
}
