package rng

import "testing"

func TestStreamsAreIndependentPerChain(t *testing.T) {
	k := NewKey()
	a, b := ForChain(1, k, 0), ForChain(1, k, 1)
	if a.Noise.Uint64() == b.Noise.Uint64() || a.Public.Uint64() == b.Public.Uint64() {
		t.Fatal("chains share a stream")
	}
	// The public stream depends on the seed only; the noise stream on the key only.
	c := ForChain(1, Key{1}, 0)
	d := ForChain(1, Key{2}, 0)
	if c.Public.Uint64() != d.Public.Uint64() {
		t.Fatal("public stream depends on the key")
	}
	if ForChain(1, Key{1}, 0).Noise.Uint64() == d.Noise.Uint64() {
		t.Fatal("noise stream does not depend on the key")
	}
	if ForChain(1, Key{1}, 0).Noise.Uint64() != ForChain(2, Key{1}, 0).Noise.Uint64() {
		t.Fatal("noise stream depends on the public seed")
	}
}
