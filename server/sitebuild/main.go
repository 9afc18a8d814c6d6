// Command sitebuild turns the page sources (site/) into the served site
// (build/site/): it adds generated assets, gives every asset except HTML a
// content-hashed name, rewrites the references to them, and writes
// precompressed .gz (and .br, when a brotli tool is installed) siblings.
//
//	go run ./server/sitebuild -src site -out build/site \
//	    -add js/wasm_exec.js=$(go env GOROOT)/lib/wasm/wasm_exec.js \
//	    -wasm js/app.wasm.js=build/wasm/app.wasm
//
// A -wasm asset is a classic script holding the module as base64:
//
//	globalThis.__dpmcmcWasm = "AGFzbQ...";
//
// because the page's Content-Security-Policy (connect-src 'none') forbids
// fetching a .wasm file; site/js/wasm.js decodes it.
//
// References are found in HTML (src= and href= attributes), CSS (url() and
// @import) and JavaScript (string literals starting with ./ or ../, which
// covers import, import() and new URL(..., import.meta.url)). Hashing goes
// leaves first, so a changed module changes the names of everything that
// imports it. HTML must contain no inline script, style or event handler.
// The output is a pure function of the inputs.
//
// Entry points that other documents name by URL keep their names: HTML
// pages, sw.js (a service worker's URL must not change between builds) and
// dp-sampler.js (included by documentation pages of other origins). In a
// JavaScript asset, the text [/* sitebuild:assets */] is replaced by the
// list of every output asset (as "./name", sorted, the asset itself left
// out): the service worker caches that list for offline use.
package main

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// WasmGlobal is the global a -wasm asset assigns its base64 text to.
const WasmGlobal = "__dpmcmcWasm"

// ETagsFile is the manifest of the assets' validators, read by package
// server (a hidden name: never served).
const ETagsFile = ".etags"

// ETags returns the manifest: one line "name<TAB>etag" per asset, sorted,
// where etag is what server computes from the file's bytes (so that a
// server need not hash files at run time: on Cloudflare Workers every
// request starts a fresh instance).
func ETags(site map[string][]byte) []byte {
	names := make([]string, 0, len(site))
	for n := range site {
		names = append(names, n)
	}
	sort.Strings(names)
	var b bytes.Buffer
	for _, n := range names {
		sum := sha256.Sum256(site[n])
		fmt.Fprintf(&b, "%s\t\"%s\"\n", n, hex.EncodeToString(sum[:12]))
	}
	return b.Bytes()
}

// marker marks an output directory as written by sitebuild, so that a
// rebuild may delete it.
const marker = ".sitebuild"

type pairs []string

func (p *pairs) String() string     { return strings.Join(*p, ",") }
func (p *pairs) Set(s string) error { *p = append(*p, s); return nil }

func main() {
	var (
		src, out, brotli string
		adds, wasms      pairs
	)
	flag.StringVar(&src, "src", "site", "page sources")
	flag.StringVar(&out, "out", "build/site", "output directory (replaced)")
	flag.Var(&adds, "add", "extra asset `name=file` (repeatable)")
	flag.Var(&wasms, "wasm", "WebAssembly module to ship as a base64 script asset, `name=file.wasm` (repeatable)")
	flag.StringVar(&brotli, "brotli", "auto", "write .br files: auto (if a brotli tool is on PATH), on, off")
	flag.Parse()
	if flag.NArg() > 0 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(src, out, adds, wasms, brotli, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "sitebuild:", err)
		os.Exit(1)
	}
}

func run(src, out string, adds, wasms []string, brotli string, log io.Writer) error {
	files, err := collect(src)
	if err != nil {
		return err
	}
	for _, a := range adds {
		name, data, err := readPair(a)
		if err != nil {
			return err
		}
		files[name] = data
	}
	for _, a := range wasms {
		name, data, err := readPair(a)
		if err != nil {
			return err
		}
		if !bytes.HasPrefix(data, []byte("\x00asm")) {
			return fmt.Errorf("-wasm %s: not a WebAssembly module", a)
		}
		files[name] = WasmScript(data)
	}
	site, err := Build(files, log)
	if err != nil {
		return err
	}
	useBrotli := false
	switch brotli {
	case "on":
		useBrotli = true
	case "auto":
		_, err := exec.LookPath("brotli")
		useBrotli = err == nil
	case "off":
	default:
		return fmt.Errorf("-brotli %q: want auto, on or off", brotli)
	}
	return write(out, site, useBrotli, log)
}

func readPair(s string) (string, []byte, error) {
	name, file, ok := strings.Cut(s, "=")
	if !ok || !fs.ValidPath(name) {
		return "", nil, fmt.Errorf("%q: want name=file with a relative slash-separated name", s)
	}
	data, err := os.ReadFile(file)
	return name, data, err
}

// collect reads every file under src, skipping hidden names.
func collect(src string) (map[string][]byte, error) {
	files := map[string][]byte{}
	err := fs.WalkDir(os.DirFS(src), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p != "." && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() {
			data, err := os.ReadFile(filepath.Join(src, filepath.FromSlash(p)))
			if err != nil {
				return err
			}
			files[p] = data
		}
		return nil
	})
	return files, err
}

// WasmScript returns the script asset that carries a WebAssembly module.
func WasmScript(wasm []byte) []byte {
	sum := sha256.Sum256(wasm)
	var b bytes.Buffer
	fmt.Fprintf(&b, "// Generated by sitebuild: a WebAssembly module (%d bytes, sha256 %x) as base64.\n", len(wasm), sum)
	fmt.Fprintf(&b, "globalThis.%s = \"", WasmGlobal)
	b.WriteString(base64.StdEncoding.EncodeToString(wasm))
	b.WriteString("\";\n")
	return b.Bytes()
}

// hashed reports whether an asset gets a content-hashed name: everything
// but HTML pages and a few names that must stay put.
func hashed(name string) bool {
	switch path.Ext(name) {
	case ".html", ".htm":
		return false
	}
	switch name {
	case "robots.txt", "favicon.ico", "sw.js", "dp-sampler.js":
		return false
	}
	return true
}

// AssetsMarker is replaced by the list of output assets (see the package
// comment).
const AssetsMarker = "[/* sitebuild:assets */]"

// fillAssets replaces AssetsMarker in the JavaScript assets of site that
// keep their names (a hashed name could not follow the filled content).
func fillAssets(site map[string][]byte) {
	names := make([]string, 0, len(site))
	for n := range site {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if ext := path.Ext(n); (ext != ".js" && ext != ".mjs") || hashed(n) || !bytes.Contains(site[n], []byte(AssetsMarker)) {
			continue
		}
		var b bytes.Buffer
		b.WriteString("[")
		first := true
		for _, m := range names {
			if m == n {
				continue
			}
			if !first {
				b.WriteString(", ")
			}
			first = false
			fmt.Fprintf(&b, "%q", "./"+m)
		}
		b.WriteString("]")
		site[n] = bytes.ReplaceAll(site[n], []byte(AssetsMarker), b.Bytes())
	}
}

// HashedName inserts a 12-hex-digit hash before the extension of name.
func HashedName(name string, data []byte) string {
	sum := sha256.Sum256(data)
	ext := path.Ext(name)
	return strings.TrimSuffix(name, ext) + "." + hex.EncodeToString(sum[:6]) + ext
}

var (
	htmlRef     = regexp.MustCompile(`\b(?:src|href)\s*=\s*("[^"]*"|'[^']*')`)
	cssRef      = regexp.MustCompile(`url\(\s*("[^"]*"|'[^']*'|[^'")\s]+)\s*\)|@import\s+("[^"]*"|'[^']*')`)
	jsRef       = regexp.MustCompile(`"\.\.?/[^"\\\s]+"|'\.\.?/[^'\\\s]+'`)
	scriptTag   = regexp.MustCompile(`(?is)<script\b[^>]*>`)
	inlineStyle = regexp.MustCompile(`(?is)<style\b|<[a-z][^>]*\sstyle\s*=`)
	inlineEvent = regexp.MustCompile(`(?is)<[a-z][^>]*\son[a-z]+\s*=`)
	srcAttr     = regexp.MustCompile(`(?i)\ssrc\s*=`)
)

// ref is one reference to another asset inside a text asset.
type ref struct {
	start, end int    // byte range of the reference text, without quotes
	target     string // asset name it resolves to
}

// refs finds the references of asset name that resolve to known assets.
func refs(name string, data []byte, files map[string][]byte, warn io.Writer) ([]ref, error) {
	var re *regexp.Regexp
	strict := true // an unresolved reference is an error
	switch path.Ext(name) {
	case ".html", ".htm":
		re = htmlRef
	case ".css":
		re = cssRef
	case ".js", ".mjs":
		re, strict = jsRef, false
	default:
		return nil, nil
	}
	var out []ref
	for _, m := range re.FindAllSubmatchIndex(data, -1) {
		s, e := m[0], m[1]
		for g := 2; g+1 < len(m); g += 2 {
			if m[g] >= 0 {
				s, e = m[g], m[g+1]
			}
		}
		if e-s >= 2 && (data[s] == '"' || data[s] == '\'') {
			s, e = s+1, e-1
		}
		u := string(data[s:e])
		if i := strings.IndexAny(u, "?#"); i >= 0 {
			e -= len(u) - i
			u = u[:i]
		}
		if u == "" || strings.Contains(u, ":") || strings.HasPrefix(u, "//") {
			continue // data:, https:, fragment, protocol-relative: not ours
		}
		var target string
		if strings.HasPrefix(u, "/") {
			target = path.Clean(u[1:])
		} else {
			target = path.Join(path.Dir(name), u)
		}
		if _, ok := files[target]; !ok {
			if strict {
				return nil, fmt.Errorf("%s: reference %q: no such asset %s", name, u, target)
			}
			fmt.Fprintf(warn, "sitebuild: warning: %s: %q resolves to no asset\n", name, u)
			continue
		}
		out = append(out, ref{s, e, target})
	}
	return out, nil
}

// checkHTML refuses what the Content-Security-Policy would block anyway.
func checkHTML(name string, data []byte) error {
	for _, tag := range scriptTag.FindAll(data, -1) {
		if !srcAttr.Match(tag) {
			return fmt.Errorf("%s: inline <script> (CSP allows only script files): %.60s", name, tag)
		}
	}
	if m := inlineStyle.Find(data); m != nil {
		return fmt.Errorf("%s: inline style (CSP allows only style sheets): %.60s", name, m)
	}
	if m := inlineEvent.Find(data); m != nil {
		return fmt.Errorf("%s: inline event handler (CSP blocks it): %.60s", name, m)
	}
	return nil
}

// Build returns the output site: hashed names, rewritten references.
func Build(files map[string][]byte, warn io.Writer) (map[string][]byte, error) {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)

	deps := map[string][]ref{}
	for _, n := range names {
		if ext := path.Ext(n); ext == ".html" || ext == ".htm" {
			if err := checkHTML(n, files[n]); err != nil {
				return nil, err
			}
		}
		r, err := refs(n, files[n], files, warn)
		if err != nil {
			return nil, err
		}
		deps[n] = r
	}

	final := map[string]string{} // source name -> output name
	out := map[string][]byte{}
	state := map[string]int{} // 0 new, 1 in progress, 2 done
	var visit func(n string, stack []string) error
	visit = func(n string, stack []string) error {
		switch state[n] {
		case 1:
			i := slices.Index(stack, n)
			return fmt.Errorf("reference cycle: %s", strings.Join(append(stack[i:], n), " -> "))
		case 2:
			return nil
		}
		state[n] = 1
		stack = append(stack, n)
		for _, r := range deps[n] {
			if r.target == n {
				continue // self-reference (e.g. a fragment link)
			}
			if err := visit(r.target, stack); err != nil {
				return err
			}
		}
		data := files[n]
		if len(deps[n]) > 0 {
			var b bytes.Buffer
			last := 0
			for _, r := range deps[n] {
				b.Write(data[last:r.start])
				u := string(data[r.start:r.end])
				if r.target == n {
					b.WriteString(u)
				} else {
					// Only the last segment changes.
					newBase := path.Base(final[r.target])
					b.WriteString(u[:strings.LastIndex(u, "/")+1] + newBase)
				}
				last = r.end
			}
			b.Write(data[last:])
			data = b.Bytes()
		}
		outName := n
		if hashed(n) {
			outName = HashedName(n, data)
		}
		final[n] = outName
		out[outName] = data
		state[n] = 2
		return nil
	}
	for _, n := range names {
		if err := visit(n, nil); err != nil {
			return nil, err
		}
	}
	fillAssets(out)
	return out, nil
}

// precompressible reports whether an asset type gains from compression.
func precompressible(name string) bool {
	switch path.Ext(name) {
	case ".html", ".js", ".mjs", ".css", ".svg", ".csv", ".json", ".txt", ".wasm", ".map", ".webmanifest":
		return true
	}
	return false
}

// write replaces dir with site and its precompressed siblings.
func write(dir string, site map[string][]byte, useBrotli bool, log io.Writer) error {
	if err := clean(dir); err != nil {
		return err
	}
	names := make([]string, 0, len(site))
	for n := range site {
		names = append(names, n)
	}
	sort.Strings(names)
	var total, totalGz, totalBr int
	for _, n := range names {
		data := site[n]
		if err := put(dir, n, data); err != nil {
			return err
		}
		total += len(data)
		line := fmt.Sprintf("  %-40s %9d", n, len(data))
		if precompressible(n) && len(data) >= 256 {
			gz, err := gzipBytes(data)
			if err != nil {
				return err
			}
			if len(gz) < len(data)*95/100 {
				if err := put(dir, n+".gz", gz); err != nil {
					return err
				}
				totalGz += len(gz)
				line += fmt.Sprintf("  gz %9d", len(gz))
			}
			if useBrotli {
				br, err := brotliBytes(data)
				if err != nil {
					return err
				}
				if len(br) < len(data)*95/100 {
					if err := put(dir, n+".br", br); err != nil {
						return err
					}
					totalBr += len(br)
					line += fmt.Sprintf("  br %9d", len(br))
				}
			}
		}
		fmt.Fprintln(log, line)
	}
	fmt.Fprintf(log, "  %d files, %d bytes (precompressed: gz %d, br %d) in %s\n", len(names), total, totalGz, totalBr, dir)
	if err := os.WriteFile(filepath.Join(dir, ETagsFile), ETags(site), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, marker), nil, 0o644)
}

// clean empties dir if sitebuild wrote it (or it is empty or missing).
func clean(dir string) error {
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return err
	case len(entries) == 0:
	default:
		if _, err := os.Stat(filepath.Join(dir, marker)); err != nil {
			return fmt.Errorf("%s is not empty and was not written by sitebuild; not replacing it", dir)
		}
		if err := os.RemoveAll(dir); err != nil {
			return err
		}
	}
	return os.MkdirAll(dir, 0o755)
}

func put(dir, name string, data []byte) error {
	p := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, data, 0o644)
}

func gzipBytes(data []byte) ([]byte, error) {
	var b bytes.Buffer
	zw, err := gzip.NewWriterLevel(&b, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	if _, err := zw.Write(data); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func brotliBytes(data []byte) ([]byte, error) {
	cmd := exec.Command("brotli", "-q", "11", "-c")
	cmd.Stdin = bytes.NewReader(data)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("brotli: %v: %s", err, errb.String())
	}
	return out.Bytes(), nil
}
