// Package rng holds the two random streams every chain uses, kept apart as
// DESIGN.md's privacy rule 4 requires.
//
//   - Public: a PCG stream seeded from the user's --seed and the chain index.
//     It may drive only data-independent choices that may be known to an
//     adversary: initial values, proposal directions and magnitudes.
//     Minibatch indices are data-independent too but must stay secret:
//     amplification by subsampling holds only if nobody knows which rows
//     were used, and the seed is exported with the config. They come from
//     the noise stream.
//   - Noise: a ChaCha8 stream keyed from 32 bytes of crypto/rand, one key per
//     chain derived from one master key. It drives every draw that protects
//     privacy: Gaussian noise on released statistics, the uniforms of accept
//     decisions, the correction distribution of the Barker test, minibatch
//     indices. The key is
//     never exported, logged or put in a URL. A non-private run (an
//     algorithm that spends no privacy) protects nothing: its key is
//     PublicKey(seed), so that its draws follow from the seed.
//
// Tests may fix the master key through SetTestKey, which exists only in
// binaries built with the `dpmcmc_testkey` build tag (see testkey.go); the
// command-line tool and the page are built without it.
package rng

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	mrand "math/rand/v2"
)

// Streams are one chain's random sources.
type Streams struct {
	Public *mrand.Rand // seeded; data-independent choices only
	Noise  *mrand.Rand // CSPRNG; everything that protects privacy
}

// Key is a master key for the noise streams of one run. Its 32 bytes sit
// behind a pointer: a Go stack trace prints each function's arguments word
// by word, so a key passed by value would print its bytes in any panic's
// trace (a user pasting the trace into a bug report would publish them),
// while this prints an address. The zero Key holds no key; ForChain
// refuses it.
type Key struct{ b *[32]byte }

// KeyFromBytes returns the key with bytes b (tests and test builds: a
// production run's key comes from NewKey only).
func KeyFromBytes(b [32]byte) Key { return Key{b: &b} }

// Bytes returns the key's bytes (tests search outputs for them).
func (k Key) Bytes() [32]byte {
	if k.b == nil {
		return [32]byte{}
	}
	return *k.b
}

// Equal reports whether k and o hold the same bytes.
func (k Key) Equal(o Key) bool { return k.Bytes() == o.Bytes() && (k.b == nil) == (o.b == nil) }

// String hides the key from fmt's verbs (%v, %s, %x, %+v).
func (k Key) String() string { return "rng.Key(hidden)" }

// GoString hides the key from %#v.
func (k Key) GoString() string { return "rng.Key(hidden)" }

// PublicKey is the key of a run that protects nothing (a non-private
// algorithm): SHA-256 of a fixed label and the public seed, so that such a
// run's accept decisions, like its proposals, follow from the seed and the
// same seed gives the same draws, as in Stan. It is never the key of a
// private run: a private run's key comes from NewKey.
func PublicKey(seed uint64) Key {
	h := sha256.New()
	h.Write([]byte("dpmcmc/non-private-run"))
	var buf [8]byte
	binary.LittleEndian.PutUint64(buf[:], seed)
	h.Write(buf[:])
	var b [32]byte
	copy(b[:], h.Sum(nil))
	return KeyFromBytes(b)
}

// NewKey draws a fresh master key from the operating system's CSPRNG, unless a
// test key was fixed (test builds only).
func NewKey() Key {
	if k, ok := testKey(); ok {
		return k
	}
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		// crypto/rand.Read never returns an error on supported platforms
		// (Go 1.24+ crashes instead); keep the check for clarity.
		panic("rng: crypto/rand failed: " + err.Error())
	}
	return KeyFromBytes(b)
}

// ForChain returns the streams of chain c: the public stream from (seed, c)
// and the noise stream from SHA-256(key || "noise" || c).
func ForChain(seed uint64, key Key, c int) Streams {
	if key.b == nil {
		// A zero Key would give every run the same, public noise.
		panic("rng: ForChain with the zero Key (use NewKey)")
	}
	h := sha256.New()
	h.Write(key.b[:])
	h.Write([]byte("dpmcmc/noise"))
	var buf [8]byte
	binary.LittleEndian.PutUint64(buf[:], uint64(c))
	h.Write(buf[:])
	var ck [32]byte
	copy(ck[:], h.Sum(nil))
	return Streams{
		Public: mrand.New(mrand.NewPCG(seed, 0x9e3779b97f4a7c15^uint64(c))),
		Noise:  mrand.New(mrand.NewChaCha8(ck)),
	}
}
