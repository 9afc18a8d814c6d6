//go:build dpmcmc_testkey

package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/base32"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/dpmcmc/dpmcmc/core/rng"
)

// keyForms returns the ways a 32-byte key could leak into text: raw bytes,
// hex (both cases), base64 (standard, URL, unpadded), base32, Go's %v and
// %x of the array, the bytes as decimal lists, and the little- and
// big-endian uint64 words in decimal and hex.
func keyForms(k [32]byte) map[string]string {
	f := map[string]string{
		"raw":          string(k[:]),
		"hex":          hex.EncodeToString(k[:]),
		"HEX":          strings.ToUpper(hex.EncodeToString(k[:])),
		"base64":       base64.StdEncoding.EncodeToString(k[:]),
		"base64url":    base64.URLEncoding.EncodeToString(k[:]),
		"base64raw":    base64.RawStdEncoding.EncodeToString(k[:]),
		"base32":       base32.StdEncoding.EncodeToString(k[:]),
		"%v":           fmt.Sprintf("%v", k),
		"%d":           fmt.Sprintf("%d", k),
		"json array":   strings.ReplaceAll(fmt.Sprint(k[:]), " ", ","),
		"comma+space":  strings.ReplaceAll(strings.Trim(fmt.Sprint(k[:]), "[]"), " ", ", "),
		"space-joined": strings.Trim(fmt.Sprint(k[:]), "[]"),
	}
	for w := range 4 {
		for name, v := range map[string]uint64{"le": binary.LittleEndian.Uint64(k[8*w:]), "be": binary.BigEndian.Uint64(k[8*w:])} {
			if v < 1<<20 { // small words (e.g. all zero) are not distinctive
				continue
			}
			f[fmt.Sprintf("word%d %s dec", w, name)] = strconv.FormatUint(v, 10)
			f[fmt.Sprintf("word%d %s hex", w, name)] = strconv.FormatUint(v, 16)
		}
	}
	return f
}

// chainKey is the ChaCha8 key of chain c's noise stream (rng.ForChain).
func chainKey(key rng.Key, c int) [32]byte {
	k := key.Bytes()
	h := sha256.New()
	h.Write(k[:])
	h.Write([]byte("dpmcmc/noise"))
	var buf [8]byte
	binary.LittleEndian.PutUint64(buf[:], uint64(c))
	h.Write(buf[:])
	var out [32]byte
	copy(out[:], h.Sum(nil))
	return out
}

// The privacy-noise key never appears in any output of a private run: the
// draws (tidy and Stan CSV, with warmup), the privacy report, stdout and
// stderr. Built with the dpmcmc_testkey tag, the key is the fixed
// rng.TestKey, so the outputs can be searched for it (and for the per-chain
// keys derived from it) in every textual encoding.
func TestNoiseKeyNeverInOutputs(t *testing.T) {
	key := rng.NewKey()
	if !key.Equal(rng.TestKey) {
		t.Fatal("the test-key build does not use rng.TestKey")
	}
	forms := keyForms(key.Bytes())
	for c := range 4 {
		for name, v := range keyForms(chainKey(key, c)) {
			forms[fmt.Sprintf("chain %d key %s", c, name)] = v
		}
	}
	dir := t.TempDir()
	data := writeCohort(t, dir, 200, 4)
	for _, alg := range []string{"dp-penalty", "dp-hmc", "dp-mala", "ops"} {
		for _, format := range []string{"draws", "stan"} {
			out := filepath.Join(dir, alg+"-"+format+".csv")
			args := []string{"sample", "--data", data, "--model", "logistic", "--outcome", "y",
				"--bound", "age=18:90", "--bound", "bmi=15:50", "--algorithm", alg, "--epsilon", "1", "--delta", "1e-5",
				"--chains", "2", "--warmup", "20", "--draws", "20", "--seed", "3", "--out", out, "--format", format, "--save-warmup"}
			switch alg {
			case "ops":
				args = append(args, "--box", "5", "--inner-iterations", "20")
			case "dp-mala":
				args = append(args, "--step", "0.001", "--grad-clip", "5")
			}
			var so, se bytes.Buffer
			if code := runMain(args, &so, &se); code != 0 {
				t.Fatalf("%s %s: exit %d: %s", alg, format, code, se.String())
			}
			texts := map[string][]byte{"stdout": so.Bytes(), "stderr": se.Bytes()}
			files, _ := filepath.Glob(strings.TrimSuffix(out, ".csv") + "*")
			if len(files) < 2 {
				t.Fatalf("%s %s: outputs %v", alg, format, files)
			}
			for _, f := range files {
				b, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				texts[filepath.Base(f)] = b
			}
			for where, b := range texts {
				for name, form := range forms {
					if bytes.Contains(b, []byte(form)) {
						t.Errorf("%s: the noise key (%s form %q) appears in %s", alg, name, form, where)
					}
				}
			}
		}
	}
}
