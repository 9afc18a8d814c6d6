// Command gen writes core/model's fixed-dimension row kernels
// (kernels_gen.go); run by `go generate ./core/model`.
package main

import (
	"flag"
	"log"
	"os"

	"github.com/dpmcmc/dpmcmc/core/model/internal/kernels"
)

func main() {
	out := flag.String("o", "kernels_gen.go", "output file")
	flag.Parse()
	src, err := kernels.Source()
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(*out, src, 0o644); err != nil {
		log.Fatal(err)
	}
}
