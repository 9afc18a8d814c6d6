package dataset

import (
	"strconv"
	"testing"
)

var numSamples = [][]byte{[]byte("-12.34567"), []byte("0.0001234567"), []byte("42"), []byte("1.234567e-05"), []byte("3.141593"), []byte("87")}

func BenchmarkParseNumber(b *testing.B) {
	s := 0.0
	for b.Loop() {
		for _, x := range numSamples {
			v, _ := parseNumber(x, false)
			s += v
		}
	}
	_ = s
}

func BenchmarkStrconvParseFloat(b *testing.B) {
	s := 0.0
	strs := make([]string, len(numSamples))
	for i, x := range numSamples {
		strs[i] = string(x)
	}
	for b.Loop() {
		for _, x := range strs {
			v, _ := strconv.ParseFloat(x, 64)
			s += v
		}
	}
	_ = s
}
