//go:build !(js && wasm)

package main

import (
	"fmt"
	"os"
)

// main explains the build when this command is built natively by mistake.
// (The file also keeps `go vet ./...` and `go build ./...` happy on the host.)
func main() {
	fmt.Fprintln(os.Stderr, "dpmcmc/wasm: build with GOOS=js GOARCH=wasm (see build.sh)")
	os.Exit(2)
}
