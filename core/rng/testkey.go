//go:build dpmcmc_testkey

package rng

import "sync"

// FixedTestKey reports whether this binary was built with the
// `dpmcmc_testkey` tag. It is true here: every run's noise comes from
// TestKey (or the key given to SetTestKey), which is published in this
// file, so nothing such a binary produces is private. Reports say so.
const FixedTestKey = true

// TestKey is the master key of test builds (build tag dpmcmc_testkey): with
// it, the command-line tool and the page built with the tag produce the same
// draws bit for bit for the same config and seed. Production builds have no
// such key: their noise keys come from crypto/rand only.
var TestKey = KeyFromBytes([32]byte{0: 0x64, 1: 0x70, 2: 0x6d, 3: 0x63, 4: 0x6d, 5: 0x63, 31: 0x01})

var (
	testMu sync.Mutex
	fixed  = TestKey
)

// SetTestKey changes the fixed key of test builds.
func SetTestKey(k Key) {
	testMu.Lock()
	defer testMu.Unlock()
	fixed = k
}

func testKey() (Key, bool) {
	testMu.Lock()
	defer testMu.Unlock()
	return fixed, true
}
