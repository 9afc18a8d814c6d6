package privacy

// Relation is the neighbouring relation between datasets.
type Relation int

const (
	// AddRemove: neighbours differ by adding or removing one row; a sum of
	// per-row terms bounded by C in L2 has sensitivity C.
	AddRemove Relation = iota
	// Replace: neighbours differ in one row's values (n is public, the
	// papers' default); a sum of per-row terms bounded by C has sensitivity 2C.
	Replace
)

func (r Relation) String() string {
	if r == Replace {
		return "replace"
	}
	return "add-remove"
}

// SensitivityFactor returns 1 for add/remove and 2 for replace-one.
func (r Relation) SensitivityFactor() float64 {
	if r == Replace {
		return 2
	}
	return 1
}

// Sampling is the minibatch sampling scheme.
type Sampling int

const (
	// Poisson includes each row independently with probability q.
	Poisson Sampling = iota
	// WithoutReplacement draws a fixed-size batch of b rows, q = b/n.
	WithoutReplacement
)

func (s Sampling) String() string {
	if s == WithoutReplacement {
		return "without-replacement"
	}
	return "poisson"
}
