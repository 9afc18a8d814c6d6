//go:build js && wasm

package main

import (
	"syscall/js"
	"testing"
)

// TestInstall runs under Node (GOOS=js GOARCH=wasm go test ./wasm/ with
// $(go env GOROOT)/lib/wasm on PATH) and calls the API through JavaScript.
func TestInstall(t *testing.T) {
	obj := js.Global().Get("Object").New()
	api := install(obj)
	if !obj.Get("dpmcmc").Equal(api) {
		t.Fatal("install did not set dpmcmc on the given object")
	}
	if got := api.Get("version").String(); got != Version {
		t.Fatalf("version = %q, want %q", got, Version)
	}
	if got, want := api.Call("selfTest").Float(), float64(selfTestN*(selfTestN+1)/2); got != want {
		t.Fatalf("selfTest() = %v, want %v", got, want)
	}
}
