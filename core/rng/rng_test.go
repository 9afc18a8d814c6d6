package rng

import (
	"encoding/hex"
	"fmt"
	"strings"
	"testing"
	"unsafe"
)

func TestStreamsAreIndependentPerChain(t *testing.T) {
	k := NewKey()
	a, b := ForChain(1, k, 0), ForChain(1, k, 1)
	if a.Noise.Uint64() == b.Noise.Uint64() || a.Public.Uint64() == b.Public.Uint64() {
		t.Fatal("chains share a stream")
	}
	// The public stream depends on the seed only; the noise stream on the key only.
	c := ForChain(1, KeyFromBytes([32]byte{1}), 0)
	d := ForChain(1, KeyFromBytes([32]byte{2}), 0)
	if c.Public.Uint64() != d.Public.Uint64() {
		t.Fatal("public stream depends on the key")
	}
	if ForChain(1, KeyFromBytes([32]byte{1}), 0).Noise.Uint64() == d.Noise.Uint64() {
		t.Fatal("noise stream does not depend on the key")
	}
	if ForChain(1, KeyFromBytes([32]byte{1}), 0).Noise.Uint64() != ForChain(2, KeyFromBytes([32]byte{1}), 0).Noise.Uint64() {
		t.Fatal("noise stream depends on the public seed")
	}
}

// A Key is one pointer word, so a stack trace, which prints arguments word
// by word, shows an address and never key bytes; fmt's verbs print neither.
// (A panic in a function taking the old [32]byte key by value printed its
// first bytes: a noise-aware run with --draws -5, before Validate refused
// negative draws in private runs.)
func TestKeyHidesItsBytes(t *testing.T) {
	if s := unsafe.Sizeof(Key{}); s != unsafe.Sizeof(uintptr(0)) {
		t.Fatalf("Key is %d bytes: passed by value, its bytes would appear in stack traces", s)
	}
	var b [32]byte
	for i := range b {
		b[i] = byte(0xa0 + i)
	}
	k := KeyFromBytes(b)
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%x", "%X", "%d", "%q"} {
		out := fmt.Sprintf(verb, k)
		// Multi-byte forms only: a lone byte's decimal ("160") occurs by
		// chance in a pointer printed in decimal (%d printed
		// {35640916074848} once: a flaky failure).
		for _, form := range []string{hex.EncodeToString(b[:4]), strings.Trim(fmt.Sprint(b[:4]), "[]"), fmt.Sprintf("%#x", b[:2]), "0xa0, 0xa1", `\xa0\xa1`, string(b[:4])} {
			if strings.Contains(strings.ToLower(out), strings.ToLower(form)) {
				t.Errorf("fmt %s of a Key prints %q, which holds its bytes (%s)", verb, out, form)
			}
		}
	}
	if !k.Equal(KeyFromBytes(b)) || k.Equal(KeyFromBytes([32]byte{})) || k.Bytes() != b {
		t.Error("Equal or Bytes wrong")
	}
}

// The zero Key holds no key: using it would give every run the same
// noise, so ForChain refuses it.
func TestForChainRefusesZeroKey(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("ForChain accepted the zero Key")
		}
	}()
	ForChain(1, Key{}, 0)
}
