package main

// selfTestN is the upper bound of the self-test sum; the expected result,
// n(n+1)/2, is known to the page and the tests.
const selfTestN = 1000

// selfTestSum returns 1 + 2 + ... + selfTestN computed in Go. It proves to
// the page that the Go runtime started and that a call crosses the JS/Go
// boundary both ways.
func selfTestSum() float64 {
	s := 0.0
	for i := 1; i <= selfTestN; i++ {
		s += float64(i)
	}
	return s
}
