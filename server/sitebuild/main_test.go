package main

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func testFiles() map[string][]byte {
	return map[string][]byte{
		"index.html": []byte(`<!doctype html><link rel="stylesheet" href="css/app.css"><link rel="icon" href="data:,">` +
			`<a href="#top">top</a><a href="https://example.org/">x</a><script type="module" src="js/main.js"></script>`),
		"js/main.js":    []byte(`import { a } from "./a.js"; const w = new URL('./worker.js', import.meta.url); a(w);`),
		"js/a.js":       []byte(`import "./b.js"; export const a = (x) => x; const s = "./not-an-asset.js";`),
		"js/b.js":       []byte(`export const b = 1; const p = await import('../vendor/lib.js');`),
		"js/worker.js":  []byte(`import "./b.js";`),
		"vendor/lib.js": []byte(`export default 0;`),
		"css/app.css":   []byte(`body { background: url(../img/bg.svg); } @import "more.css";`),
		"css/more.css":  []byte(`p { color: red; }`),
		"img/bg.svg":    []byte(`<svg xmlns="http://www.w3.org/2000/svg"/>`),
		"robots.txt":    []byte("User-agent: *\n"),
	}
}

var hashRE = regexp.MustCompile(`\.[0-9a-f]{12}\.`)

func find(t *testing.T, site map[string][]byte, prefix string) string {
	t.Helper()
	for n := range site {
		if strings.HasPrefix(n, prefix) && hashRE.MatchString(n) {
			return n
		}
	}
	t.Fatalf("no hashed asset %s.*", prefix)
	return ""
}

func TestBuild(t *testing.T) {
	var warn bytes.Buffer
	site, err := Build(testFiles(), &warn)
	if err != nil {
		t.Fatal(err)
	}
	if len(site) != len(testFiles()) {
		t.Errorf("got %d assets, want %d", len(site), len(testFiles()))
	}
	if _, ok := site["index.html"]; !ok {
		t.Fatal("index.html renamed")
	}
	if _, ok := site["robots.txt"]; !ok {
		t.Fatal("robots.txt renamed")
	}
	// Every hashed name is the hash of its (rewritten) content.
	for n, data := range site {
		if hashRE.MatchString(n) {
			orig := hashRE.ReplaceAllString(n, ".")
			if HashedName(orig, data) != n {
				t.Errorf("%s: name does not match its content hash", n)
			}
		}
	}
	main := find(t, site, "js/main.")
	a, b, worker := find(t, site, "js/a."), find(t, site, "js/b."), find(t, site, "js/worker.")
	lib := find(t, site, "vendor/lib.")
	css, more, svg := find(t, site, "css/app."), find(t, site, "css/more."), find(t, site, "img/bg.")
	base := filepath.Base
	for _, c := range []struct{ in, want string }{
		{"index.html", `href="css/` + base(css) + `"`},
		{"index.html", `src="js/` + base(main) + `"`},
		{"index.html", `href="data:,"`},
		{"index.html", `href="#top"`},
		{main, `from "./` + base(a) + `"`},
		{main, `new URL('./` + base(worker) + `'`},
		{a, `import "./` + base(b) + `"`},
		{a, `"./not-an-asset.js"`},
		{b, `import('../vendor/` + base(lib) + `')`},
		{css, `url(../img/` + base(svg) + `)`},
		{css, `@import "` + base(more) + `"`},
	} {
		if !bytes.Contains(site[c.in], []byte(c.want)) {
			t.Errorf("%s lacks %s:\n%s", c.in, c.want, site[c.in])
		}
	}
	if !strings.Contains(warn.String(), "not-an-asset.js") {
		t.Errorf("no warning about an unresolved JS reference: %q", warn.String())
	}

	// A change in a leaf renames everything that depends on it.
	files := testFiles()
	files["js/b.js"] = append(files["js/b.js"], ' ')
	site2, err := Build(files, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{main, a, b, worker} {
		if _, ok := site2[n]; ok {
			t.Errorf("%s kept its name after js/b.js changed", n)
		}
	}
	for _, n := range []string{css, svg, lib} {
		if _, ok := site2[n]; !ok {
			t.Errorf("%s renamed though it does not depend on js/b.js", n)
		}
	}
	// Deterministic.
	site3, _ := Build(testFiles(), io.Discard)
	for n, d := range site {
		if !bytes.Equal(site3[n], d) {
			t.Errorf("%s differs between two builds", n)
		}
	}
}

func TestBuildErrors(t *testing.T) {
	for name, files := range map[string]map[string][]byte{
		"cycle": {
			"a.js": []byte(`import "./b.js";`),
			"b.js": []byte(`import "./a.js";`),
		},
		"missing html ref": {"index.html": []byte(`<script src="js/nope.js"></script>`)},
		"missing css ref":  {"a.css": []byte(`body{background:url(nope.png)}`)},
		"inline script":    {"index.html": []byte(`<script>alert(1)</script>`)},
		"inline style":     {"index.html": []byte(`<style>p{}</style>`)},
		"style attribute":  {"index.html": []byte(`<p style="color:red">x</p>`)},
		"event handler":    {"index.html": []byte(`<body onload="go()">`)},
	} {
		if _, err := Build(files, io.Discard); err == nil {
			t.Errorf("%s: no error", name)
		} else {
			t.Logf("%s: %v", name, err)
		}
	}
}

func TestWasmScript(t *testing.T) {
	wasm := []byte("\x00asm\x01\x00\x00\x00 some bytes")
	s := string(WasmScript(wasm))
	m := regexp.MustCompile(`(?m)^globalThis\.` + WasmGlobal + ` = "([A-Za-z0-9+/=]*)";$`).FindStringSubmatch(s)
	if m == nil {
		t.Fatalf("unexpected script:\n%s", s)
	}
	got, err := base64.StdEncoding.DecodeString(m[1])
	if err != nil || !bytes.Equal(got, wasm) {
		t.Fatalf("decoded %q, %v", got, err)
	}
}

func TestRun(t *testing.T) {
	src, out := t.TempDir(), filepath.Join(t.TempDir(), "site")
	for n, d := range testFiles() {
		p := filepath.Join(src, filepath.FromSlash(n))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, d, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(src, ".hidden"), []byte("x"), 0o644)
	wasmFile := filepath.Join(t.TempDir(), "app.wasm")
	os.WriteFile(wasmFile, append([]byte("\x00asm\x01\x00\x00\x00"), bytes.Repeat([]byte("go"), 500)...), 0o644)
	extra := filepath.Join(t.TempDir(), "extra.js")
	os.WriteFile(extra, []byte(strings.Repeat("globalThis.Go = 1;\n", 40)), 0o644)

	for i := 0; i < 2; i++ { // the second run replaces the first
		err := run(src, out, []string{"js/extra.js=" + extra}, []string{"js/app.wasm.js=" + wasmFile}, "off", io.Discard)
		if err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(filepath.Join(out, ".hidden")); err == nil {
		t.Error("hidden file copied")
	}
	matches, _ := filepath.Glob(filepath.Join(out, "js", "app.wasm.*.js"))
	if len(matches) != 1 {
		t.Fatalf("app.wasm assets: %v", matches)
	}
	plain, _ := os.ReadFile(matches[0])
	gz, err := os.ReadFile(matches[0] + ".gz")
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		t.Fatal(err)
	}
	unz, _ := io.ReadAll(zr)
	if !bytes.Equal(unz, plain) {
		t.Error(".gz does not decompress to the asset")
	}
	if m, _ := filepath.Glob(filepath.Join(out, "js", "extra.*.js")); len(m) != 1 {
		t.Errorf("extra asset: %v", m)
	}

	// Refuse to replace a directory sitebuild did not write.
	foreign := t.TempDir()
	os.WriteFile(filepath.Join(foreign, "keep.txt"), []byte("mine"), 0o644)
	if err := run(src, foreign, nil, nil, "off", io.Discard); err == nil {
		t.Error("replaced a foreign directory")
	}
	if err := run(src, out, nil, []string{"js/app.wasm.js=" + extra}, "off", io.Discard); err == nil {
		t.Error("accepted a non-wasm file as -wasm")
	}
}
