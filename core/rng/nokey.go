//go:build !dpmcmc_testkey

package rng

func testKey() (Key, bool) { return Key{}, false }
