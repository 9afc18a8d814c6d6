package audit

import (
	"errors"
	"math"
	"math/rand/v2"
)

// SubsampledSum is the release of one minibatch Gaussian mechanism, the
// core of DP-SGLD-type kernels reduced to one coordinate: a batch drawn from
// the rows, each row's value clipped to [−Clip, Clip], summed, plus
// N(0, (Z·Clip)²) noise (Z is the noise multiplier of privacy.SGLDAccount),
// repeated Steps times. It exists to audit the accountants of subsampled
// kernels independently of any kernel:
//
//   - a fixed-size batch (Poisson false) under replace-one must be accounted
//     as privacy.WithoutReplacement with privacy.Replace (sensitivity 2·Clip
//     when the differing row is in the batch); accounting it as Poisson
//     sampling under add/remove is a seeded bug the audit must catch;
//   - the batch must be drawn from the private stream: privacy amplification
//     by subsampling assumes the adversary does not know the batch. With
//     PublicBatch the batch is drawn from a public stream reseeded
//     identically for every run (as a user seed, which exports carry, would
//     make it), and the amplified claim no longer holds.
type SubsampledSum struct {
	// Rows[nb] are the per-row values of neighbour nb (same length).
	Rows        [2][]float64
	Batch       int
	Clip, Z     float64
	Poisson     bool // each row included with probability Batch/len(rows)
	PublicBatch bool // batch from a fixed public stream (a seeded bug)
	Steps       int  // default 1
}

// Mechanism returns s as a Mechanism releasing Steps noisy sums.
func (s SubsampledSum) Mechanism() (Mechanism, error) {
	n := len(s.Rows[0])
	if n == 0 || len(s.Rows[1]) != n || s.Batch < 1 || s.Batch > n || !(s.Clip > 0) || !(s.Z > 0) {
		return nil, errors.New("audit: SubsampledSum needs equal-length rows, 1 ≤ Batch ≤ n, Clip > 0, Z > 0")
	}
	steps := max(s.Steps, 1)
	q := float64(s.Batch) / float64(n)
	std := s.Z * s.Clip
	return func(nb int, noise *rand.Rand) ([]float64, error) {
		batchRNG := noise
		if s.PublicBatch {
			batchRNG = rand.New(rand.NewPCG(1, 2))
		}
		rows := s.Rows[nb]
		idx := make([]int, n)
		out := make([]float64, steps)
		for t := range steps {
			sum := 0.0
			if s.Poisson {
				for i := range n {
					if batchRNG.Float64() < q {
						sum += clip(rows[i], s.Clip)
					}
				}
			} else {
				for i := range idx {
					idx[i] = i
				}
				for k := range s.Batch { // partial Fisher–Yates
					j := k + batchRNG.IntN(n-k)
					idx[k], idx[j] = idx[j], idx[k]
					sum += clip(rows[idx[k]], s.Clip)
				}
			}
			out[t] = sum + std*noise.NormFloat64()
		}
		return out, nil
	}, nil
}

func clip(v, c float64) float64 { return math.Max(-c, math.Min(c, v)) }
