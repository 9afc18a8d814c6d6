package main

import (
	"bytes"
	"strings"
	"testing"
)

// The service worker and the embed loader keep their names, and the
// service worker gets the list of every other output asset.
func TestEntryPointsAndAssetList(t *testing.T) {
	files := testFiles()
	files["sw.js"] = []byte("const ASSETS = " + AssetsMarker + ";\nconst x = './js/main.js';\n")
	files["dp-sampler.js"] = []byte("const u = 'embed.html';\n")
	files["embed.html"] = []byte(`<!doctype html><script type="module" src="js/main.js"></script>`)
	files["js/hashed.js"] = []byte("const a = " + AssetsMarker + ";\n")
	site, err := Build(files, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	sw, ok := site["sw.js"]
	if !ok {
		t.Fatal("sw.js renamed")
	}
	if _, ok := site["dp-sampler.js"]; !ok {
		t.Fatal("dp-sampler.js renamed")
	}
	main := find(t, site, "js/main.")
	if !strings.Contains(string(sw), `"./`+main+`"`) || !strings.Contains(string(sw), `"./index.html"`) ||
		!strings.Contains(string(sw), `"./embed.html"`) || !strings.Contains(string(sw), `"./dp-sampler.js"`) {
		t.Errorf("sw.js asset list incomplete:\n%s", sw)
	}
	if strings.Contains(string(sw), `"./sw.js"`) || strings.Contains(string(sw), AssetsMarker) {
		t.Errorf("sw.js lists itself or kept the marker:\n%s", sw)
	}
	// References in sw.js are rewritten like any other script's.
	if !strings.Contains(string(sw), "'./"+main+"'") {
		t.Errorf("sw.js reference to js/main.js not rewritten:\n%s", sw)
	}
	// A hashed asset keeps the marker (its name could not follow the list).
	if h := find(t, site, "js/hashed."); !bytes.Contains(site[h], []byte(AssetsMarker)) {
		t.Errorf("hashed asset filled: %s", site[h])
	}
}

func TestETagsManifest(t *testing.T) {
	site := map[string][]byte{"index.html": []byte("hello"), "js/a.0123456789ab.js": []byte("x")}
	got := string(ETags(site))
	want := "index.html\t\"2cf24dba5fb0a30e26e83b2a\"\njs/a.0123456789ab.js\t\"2d711642b726b04401627ca9\"\n"
	if got != want {
		t.Errorf("ETags = %q, want %q", got, want)
	}
}
