//go:build embedsite

package embedded

import (
	"embed"
	"io/fs"
)

// files is the built site, copied into server/embedded/site by
// `make cli-embed` (go:embed cannot reach build/site from here).
//
//go:embed all:site
var files embed.FS

// FS returns the embedded site and true.
func FS() (fs.FS, bool) {
	sub, err := fs.Sub(files, "site")
	if err != nil {
		panic(err)
	}
	return sub, true
}
