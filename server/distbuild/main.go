// Command distbuild writes a folder for static hosts (dist/) from the built
// site (build/site): the files without their precompressed siblings (static
// hosts compress themselves), a _headers file carrying the same policy as
// dpmcmc serve (Cloudflare Pages and Netlify read it), and, for hosts that
// cannot set headers (GitHub Pages), the part of the Content-Security-
// Policy that a <meta http-equiv> tag can carry, in every HTML page.
//
//	go run ./server/distbuild -site build/site -out dist [-frame-ancestors "'self' https://docs.example.org"]
//
// What a meta tag cannot carry: frame-ancestors (ignored in meta, so on such
// hosts any site may frame the pages), and the policy of Web Workers and the
// service worker (a worker's policy comes only from its script's response
// headers), nor X-Content-Type-Options, Permissions-Policy,
// Cross-Origin-Opener-Policy or Cross-Origin-Resource-Policy. See
// docs/DEPLOY.md.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/dpmcmc/dpmcmc/server"
)

// marker marks a folder written by distbuild, so that a rebuild may replace it.
const marker = ".distbuild"

func main() {
	site := flag.String("site", "build/site", "built site (./build.sh)")
	out := flag.String("out", "dist", "output folder (replaced)")
	fa := flag.String("frame-ancestors", "'none'", "origins allowed to frame embed.html (as dpmcmc serve --frame-ancestors)")
	flag.Parse()
	if flag.NArg() > 0 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(*site, *out, *fa); err != nil {
		fmt.Fprintln(os.Stderr, "distbuild:", err)
		os.Exit(1)
	}
}

func run(site, out, frameAncestors string) error {
	fa, err := server.ParseFrameAncestors(frameAncestors)
	if err != nil {
		return err
	}
	files, err := collect(os.DirFS(site))
	if err != nil {
		return err
	}
	if _, ok := files["index.html"]; !ok {
		return fmt.Errorf("no index.html in %s (run make site first)", site)
	}
	built, err := Build(files, fa)
	if err != nil {
		return err
	}
	if err := clean(out); err != nil {
		return err
	}
	names := make([]string, 0, len(built))
	for n := range built {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		p := filepath.Join(out, filepath.FromSlash(n))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, built[n], 0o644); err != nil {
			return err
		}
	}
	fmt.Printf("distbuild: %d files in %s (with _headers and the meta policy in HTML)\n", len(names), out)
	return os.WriteFile(filepath.Join(out, marker), nil, 0o644)
}

// collect reads the site's files but the precompressed siblings and hidden
// names.
func collect(fsys fs.FS) (map[string][]byte, error) {
	files := map[string][]byte{}
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p != "." && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || strings.HasSuffix(p, ".br") || strings.HasSuffix(p, ".gz") {
			return nil
		}
		data, err := fs.ReadFile(fsys, p)
		files[p] = data
		return err
	})
	return files, err
}

// MetaPolicy is the policy a <meta http-equiv> tag carries: the served one
// without frame-ancestors (which browsers ignore in meta, with a warning).
func MetaPolicy() string {
	csp := server.ContentSecurityPolicy(nil)
	return strings.TrimSuffix(csp, "; frame-ancestors 'none'")
}

var charsetRE = regexp.MustCompile(`(?i)<meta\s+charset\s*=\s*"?[A-Za-z0-9-]+"?\s*/?>`)

// InjectMeta puts the meta policy and referrer right after <meta charset>
// (before any script or style sheet, as a meta policy only governs what
// follows it).
func InjectMeta(html []byte) ([]byte, error) {
	loc := charsetRE.FindIndex(html)
	if loc == nil {
		return nil, errors.New("no <meta charset> to put the policy after")
	}
	tags := fmt.Sprintf("\n<meta http-equiv=\"Content-Security-Policy\" content=\"%s\">\n<meta name=\"referrer\" content=\"no-referrer\">",
		MetaPolicy())
	var b bytes.Buffer
	b.Write(html[:loc[1]])
	b.WriteString(tags)
	b.Write(html[loc[1]:])
	return b.Bytes(), nil
}

// Build returns the dist files: the site (HTML with the meta policy),
// _headers and .nojekyll.
func Build(files map[string][]byte, frameAncestors []string) (map[string][]byte, error) {
	h, err := server.New(server.Config{FS: emptyFS{}, FrameAncestors: frameAncestors})
	if err != nil {
		return nil, err
	}
	out := map[string][]byte{}
	names := make([]string, 0, len(files))
	for n, data := range files {
		names = append(names, n)
		if path.Ext(n) == ".html" {
			data, err = InjectMeta(data)
			if err != nil {
				return nil, fmt.Errorf("%s: %v", n, err)
			}
		}
		out[n] = data
	}
	sort.Strings(names)
	out["_headers"] = Headers(h, names)
	out[".nojekyll"] = nil // GitHub Pages: serve files as they are
	return out, nil
}

// Headers writes the _headers rules: one per file (so that no two rules
// match one path: hosts merge the values of overlapping rules), plus the
// URLs hosts serve pages at: "/" for index.html and, for Cloudflare Pages'
// extensionless URLs, "/embed" for embed.html.
func Headers(h *server.Handler, names []string) []byte {
	var b bytes.Buffer
	b.WriteString("# Written by server/distbuild: the policy of dpmcmc serve (package server),\n" +
		"# for Cloudflare Pages and Netlify. One rule per file, so that no two rules match a path.\n")
	rule := func(url, name string) {
		fmt.Fprintf(&b, "%s\n", url)
		for _, kv := range h.Headers(name) {
			fmt.Fprintf(&b, "  %s: %s\n", kv[0], kv[1])
		}
		fmt.Fprintf(&b, "  Cache-Control: %s\n", server.CacheControl(name))
	}
	for _, n := range names {
		if n == "index.html" {
			rule("/", n)
		}
		if strings.HasSuffix(n, ".html") && n != "index.html" && !strings.HasSuffix(n, "/index.html") {
			rule("/"+strings.TrimSuffix(n, ".html"), n)
		}
		rule("/"+n, n)
	}
	return b.Bytes()
}

// clean empties dir if distbuild wrote it (or it is empty or missing).
func clean(dir string) error {
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return err
	case len(entries) == 0:
	default:
		if _, err := os.Stat(filepath.Join(dir, marker)); err != nil {
			return fmt.Errorf("%s is not empty and was not written by distbuild; not replacing it", dir)
		}
		if err := os.RemoveAll(dir); err != nil {
			return err
		}
	}
	return os.MkdirAll(dir, 0o755)
}

type emptyFS struct{}

func (emptyFS) Open(name string) (fs.File, error) {
	return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
}
