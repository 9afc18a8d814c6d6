package main

import (
	"fmt"
	"io"
	"runtime/debug"
)

// Version is set at build time with -ldflags "-X main.Version=...".
var Version = "dev"

func init() {
	register("version", "print the version", func(args []string, stdout, stderr io.Writer) error {
		fs := newFlagSet("version", "", stderr)
		if err := parseFlags(fs, args); err != nil {
			return err
		}
		v := Version
		if bi, ok := debug.ReadBuildInfo(); ok && v == "dev" {
			for _, s := range bi.Settings {
				if s.Key == "vcs.revision" && len(s.Value) >= 12 {
					v = "dev-" + s.Value[:12]
				}
			}
		}
		fmt.Fprintf(stdout, "dpmcmc %s\n", v)
		return nil
	})
}
