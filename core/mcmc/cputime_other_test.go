//go:build !unix

package mcmc

func processCPUNanos() int64 { return 0 }
