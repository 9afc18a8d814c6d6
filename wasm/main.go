//go:build js && wasm

// Command wasm is the browser entry point of dpmcmc (GOOS=js GOARCH=wasm).
//
// It only marshals: it installs one object, globalThis.dpmcmc, whose methods
// convert JavaScript values to Go values, call into core/, and convert the
// results back. No algorithm lives here.
//
// Loading protocol (see site/js/wasm.js): the host defines
// globalThis.__dpmcmcReady as a function before go.run(instance); once the
// API object is installed, main calls it with the API object and then blocks
// forever so that the exported functions stay callable. The same protocol
// works in a page, in a Web Worker and under Node.
package main

import (
	"syscall/js"
)

// Version is set at build time with -ldflags "-X main.Version=...".
var Version = "dev"

// readyHook is the global the host sets to learn that the API is installed.
const readyHook = "__dpmcmcReady"

func main() {
	api := install(js.Global())
	if hook := js.Global().Get(readyHook); hook.Type() == js.TypeFunction {
		hook.Invoke(api)
	}
	select {} // keep the exported functions alive
}

// install builds the API object, sets it as global.dpmcmc and returns it.
func install(global js.Value) js.Value {
	api := js.Global().Get("Object").New()
	api.Set("version", Version)
	api.Set("selfTest", js.FuncOf(func(this js.Value, args []js.Value) any {
		return selfTestSum()
	}))
	global.Set("dpmcmc", api)
	return api
}
