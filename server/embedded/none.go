//go:build !embedsite

// Package embedded holds the built site inside the binary when it is built
// with the tag embedsite (after `make cli-embed` has copied build/site into
// server/embedded/site); without the tag it holds nothing and dpmcmc serve
// reads the site from a directory (--dir build/site).
package embedded

import "io/fs"

// FS returns nil and false: this binary was built without the embedsite tag.
func FS() (fs.FS, bool) { return nil, false }
