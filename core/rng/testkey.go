//go:build dpmcmc_testkey

package rng

import "sync"

var (
	testMu  sync.Mutex
	fixed   Key
	isFixed bool
)

// SetTestKey fixes the master key so that runs are reproducible bit for bit.
// It exists only under the dpmcmc_testkey build tag.
func SetTestKey(k Key) {
	testMu.Lock()
	defer testMu.Unlock()
	fixed, isFixed = k, true
}

func testKey() (Key, bool) {
	testMu.Lock()
	defer testMu.Unlock()
	return fixed, isFixed
}
