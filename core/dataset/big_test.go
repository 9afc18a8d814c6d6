package dataset

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestBigFile generates a ~200 MB 10-column CSV in a temporary file and loads
// it, logging the load time, throughput and peak memory. It is slow and
// needs disk space, so it runs only with DPMCMC_BIG=1 (never in CI):
//
//	DPMCMC_BIG=1 go test -run TestBigFile -v ./core/dataset/
//
// DPMCMC_BIG_MB sets another size (in 10^6 bytes), DPMCMC_BIG_ROWS a row
// count instead. Peak memory is the process's peak
// resident set (VmHWM, reset before the load) where /proc is available, and
// the Go runtime's peak heap otherwise.
func TestBigFile(t *testing.T) {
	if testing.Short() || os.Getenv("DPMCMC_BIG") != "1" {
		t.Skip("set DPMCMC_BIG=1 to run (slow, writes a big temporary file)")
	}
	mb := 200
	if s := os.Getenv("DPMCMC_BIG_MB"); s != "" {
		var err error
		if mb, err = strconv.Atoi(s); err != nil {
			t.Fatal(err)
		}
	}
	rows := mb * 1_000_000 / 84 // about 84 bytes a row at 7 significant digits
	if s := os.Getenv("DPMCMC_BIG_ROWS"); s != "" {
		var err error
		if rows, err = strconv.Atoi(s); err != nil {
			t.Fatal(err)
		}
	}
	const cols = 10
	path := filepath.Join(t.TempDir(), "big.csv")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	genCSV(w, rows, cols, 7, 42)
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	fi, _ := os.Stat(path)
	size := fi.Size()

	for _, name := range []string{"Load", "LoadUnknownSize"} {
		// An io.Reader without Stat hides the size (as a pipe would).
		wrap := func(f *os.File) io.Reader {
			if name == "LoadUnknownSize" {
				return struct{ io.Reader }{f}
			}
			return f
		}
		t.Run(name, func(t *testing.T) {
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			resetPeak()
			start, cpu0 := time.Now(), cpuSeconds()
			tab, rep, err := Load(wrap(f), Options{})
			el := time.Since(start)
			if err != nil {
				t.Fatal(err)
			}
			peak, how := peakMemory()
			dataBytes := int64(len(tab.Data)) * 8
			cpu := cpuSeconds() - cpu0
			t.Logf("file %.1f MB, %d rows x %d cols: loaded in %v (%.0f MB/s), CPU time %.2fs (%.0f MB/cpu-s)",
				float64(size)/1e6, rep.Rows, tab.Cols(), el.Round(time.Millisecond), float64(size)/1e6/el.Seconds(), cpu, float64(size)/1e6/cpu)
			t.Logf("numeric data %.1f MB; peak memory (%s) %.1f MB = %.2f x the data", float64(dataBytes)/1e6, how, float64(peak)/1e6, float64(peak)/float64(dataBytes))
			runtime.KeepAlive(tab)
		})
	}
	t.Run("Stream", func(t *testing.T) {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		resetPeak()
		start := time.Now()
		rd, err := NewReader(f, Options{})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for {
			_, err := rd.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			n++
		}
		el := time.Since(start)
		peak, how := peakMemory()
		t.Logf("streamed %d rows in %v (%.0f MB/s); peak memory (%s) %.1f MB", n, el.Round(time.Millisecond), float64(size)/1e6/el.Seconds(), how, float64(peak)/1e6)
	})
}

// resetPeak collects garbage and resets the kernel's peak-RSS counter.
func resetPeak() {
	runtime.GC()
	debug.FreeOSMemory()
	os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) // Linux: resets VmHWM
}

// peakMemory returns the peak resident set size (VmHWM) if available, else
// the Go heap's current system memory.
func peakMemory() (int64, string) {
	if b, err := os.ReadFile("/proc/self/status"); err == nil {
		for line := range bytes.Lines(b) {
			if rest, ok := bytes.CutPrefix(line, []byte("VmHWM:")); ok {
				kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(string(rest)), " kB"), 10, 64)
				if err == nil {
					return kb << 10, "VmHWM"
				}
			}
		}
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.Sys), "runtime Sys"
}
