//go:build !unix

package main

// threadCPU is not available here (wasm): 0 means "use wall time".
func threadCPU() int64 { return 0 }

func processCPU() int64 { return 0 }
