// Command gen writes core/model's constant tables (tables_gen.go); run by
// `go generate ./core/model`.
package main

import (
	"flag"
	"log"
	"os"

	"github.com/dpmcmc/dpmcmc/core/model/internal/tables"
)

func main() {
	out := flag.String("o", "tables_gen.go", "output file")
	flag.Parse()
	src, err := tables.Source()
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(*out, src, 0o644); err != nil {
		log.Fatal(err)
	}
}
