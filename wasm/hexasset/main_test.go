package main

import (
	"encoding/hex"
	"regexp"
	"testing"
)

func TestScript(t *testing.T) {
	wasm := []byte("\x00asm\x01\x00\x00\x00\xff\x10")
	m := regexp.MustCompile(`(?m)^export function ` + Func + `\(\) \{/\*([0-9a-f]*)\*/\}$`).FindStringSubmatch(string(Script(wasm)))
	if m == nil {
		t.Fatalf("no function in %q", Script(wasm))
	}
	got, err := hex.DecodeString(m[1])
	if err != nil || string(got) != string(wasm) {
		t.Fatalf("decoded %x, %v; want %x", got, err, wasm)
	}
}
