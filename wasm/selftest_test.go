package main

import "testing"

func TestSelfTestSum(t *testing.T) {
	if got, want := selfTestSum(), float64(selfTestN*(selfTestN+1)/2); got != want {
		t.Fatalf("selfTestSum() = %v, want %v", got, want)
	}
}
