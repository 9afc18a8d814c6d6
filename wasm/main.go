//go:build js && wasm

// Command wasm is the browser entry point of dpmcmc (GOOS=js GOARCH=wasm).
//
// It only marshals: it installs one object, globalThis.dpmcmc, whose methods
// convert JavaScript values to Go values, call the functions of api.go and
// results.go (which call into core/), and convert the results back; one of
// them, renderResults, writes its results into the page's DOM (render.go,
// honnef.co/go/js/dom/v2). No algorithm lives here.
// Results are JSON strings (parsed by the page) or typed arrays; failures are
// returned as {"error": {message, line, column, columnName}}, never thrown.
//
// Loading protocol (see site/js/wasm.js): the host defines
// globalThis.__dpmcmcReady as a function before go.run(instance); once the
// API object is installed, main calls it with the API object and then blocks
// forever so that the exported functions stay callable. The same protocol
// works in a page, in a Web Worker and under Node.
//
// API (all arguments positional):
//
//	version                               the build's version string
//	selfTest()                            1+…+1000 computed in Go
//	models(), algorithms()                JSON lists for the controls
//	recommend(n, d, private, model?, meanBounded?) the default algorithm's name (the CLI's --algorithm auto for the declared model)
//	inspect(file, optsJSON, onProgress?)  JSON: columns, types, rows, preview, error
//	newChain(file, configJSON, c, release?) handle {info, advance(k), done(), total(), abort(), free()} or {error};
//	                                      abort(): null, or why the chain stopped early {message, algorithm, chain, iteration, total, step}
//	                                      info.release: chain 0's shared release (noise-aware), to pass to chains 1, 2, …
//	renderResults(configJSON, namesJSON, chains, runInfoJSON) writes the results section into the page's DOM (render.go, dom/v2); JSON {draws, report} or {error}
//	budget(configJSON, n, d, itersJSON, running) JSON {fraction, text}: the ε spent by the iterations
//	                                      reported so far (a lower bound while running), or {error}
//	exportDraws(configJSON, namesJSON, chains)          tidy draws CSV text or {error}
//	exportStan(configJSON, namesJSON, chains, c, n, cancelled, release?) Stan CSV text (with the privacy report of a private run;
//	                                      release: info.release of a shared-release run, checked against the run's plan) or {error}
//	plan(file, configJSON)                JSON {plan, config (resolved)} as the chains will run, or {error}
//	report(configJSON, n, d, itersJSON, cancelled, release?) privacy report JSON or {error} (renderResults and budget supersede it on the page)
//
// chains is an array of {positions: Float64Array (iterations × dim, warmup
// first), iterations: number}.
//
// file is a Uint8Array or ArrayBuffer (copied into Go once), or a Blob (a
// File) where FileReaderSync exists (Web Workers): the Blob is then read in
// chunks of 1 MiB as it is parsed, never held whole in memory, and
// onProgress(bytesRead, size) is called after each chunk.
package main

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"runtime"
	"syscall/js"

	"github.com/dpmcmc/dpmcmc/core/run"
)

// Version is set at build time with -ldflags "-X main.Version=...".
var Version = "dev"

// readyHook is the global the host sets to learn that the API is installed.
const readyHook = "__dpmcmcReady"

func main() {
	api := install(js.Global())
	if hook := js.Global().Get(readyHook); hook.Type() == js.TypeFunction {
		hook.Invoke(api)
	}
	select {} // keep the exported functions alive
}

// install builds the API object, sets it as global.dpmcmc and returns it.
func install(global js.Value) js.Value {
	api := js.Global().Get("Object").New()
	api.Set("version", Version)
	fn := func(name string, f func(args []js.Value) any) {
		api.Set(name, js.FuncOf(func(this js.Value, args []js.Value) any { return f(args) }))
	}
	fn("selfTest", func([]js.Value) any { return selfTestSum() })
	fn("models", func([]js.Value) any { return modelsJSON() })
	fn("algorithms", func([]js.Value) any { return mustJSON(algorithms()) })
	fn("recommend", func(a []js.Value) any {
		modelName := ""
		if len(a) > 3 && a[3].Type() == js.TypeString {
			modelName = a[3].String()
		}
		// meanBounded: the gaussian or banana model with a public bound on
		// every data column (the embed's demos), run.MeanStatisticBounded.
		return recommend(a[0].Int(), a[1].Int(), a[2].Truthy(), modelName, len(a) > 4 && a[4].Truthy())
	})
	fn("inspect", func(a []js.Value) any {
		var o inspectOptions
		if len(a) > 1 && a[1].Type() == js.TypeString {
			if err := json.Unmarshal([]byte(a[1].String()), &o); err != nil {
				return errorJSON(err)
			}
		}
		var progress js.Value
		if len(a) > 2 && a[2].Type() == js.TypeFunction {
			progress = a[2]
		}
		res := mustJSON(inspectSource(sourceFromJS(a[0], progress), o))
		// The table is garbage now: collect it before the next load (a
		// plan or a chain) allocates its own, so that the engine's memory
		// stays near one table's size.
		runtime.GC()
		return res
	})
	fn("newChain", func(a []js.Value) any {
		release := ""
		if len(a) > 3 && a[3].Type() == js.TypeString {
			release = a[3].String()
		}
		ch, info, err := newChain(sourceFromJS(a[0], js.Undefined()), a[1].String(), a[2].Int(), release)
		runtime.GC() // the loaded table, once the model holds its rows
		if err != nil {
			return js.Global().Get("JSON").Call("parse", errorJSON(err))
		}
		return chainHandle(ch, info)
	})
	fn("renderResults", func(a []js.Value) any {
		cfg, names, chains, err := runArgs(a)
		if err != nil {
			return errorJSON(err)
		}
		info, err := parseRunInfo(a[3].String())
		if err != nil {
			return errorJSON(err)
		}
		v, err := results(cfg, names, chains, info)
		if err != nil {
			return errorJSON(err)
		}
		render(document{js.Global().Get("document")}, v)
		var rep any
		if v.ReportJSON != "" {
			rep = v.ReportJSON
		}
		return mustJSON(map[string]any{"draws": v.Draws, "report": rep})
	})
	fn("budget", func(a []js.Value) any {
		cfg, its, err := configAndIterations(a)
		if err != nil {
			return errorJSON(err)
		}
		b, err := budget(cfg, a[1].Int(), a[2].Int(), its, len(a) > 4 && a[4].Truthy())
		if err != nil {
			return errorJSON(err)
		}
		return mustJSON(b)
	})
	fn("exportDraws", func(a []js.Value) any {
		cfg, names, chains, err := runArgs(a)
		if err != nil {
			return errorJSON(err)
		}
		s, err := exportDraws(cfg, names, chains)
		if err != nil {
			return errorJSON(err)
		}
		return s
	})
	fn("exportStan", func(a []js.Value) any {
		cfg, names, chains, err := runArgs(a)
		if err != nil {
			return errorJSON(err)
		}
		s, err := exportStan(cfg, names, chains, a[3].Int(), a[4].Int(), a[5].Truthy(), optString(a, 6))
		if err != nil {
			return errorJSON(err)
		}
		return s
	})
	fn("plan", func(a []js.Value) any {
		p, err := plan(sourceFromJS(a[0], js.Undefined()), a[1].String())
		runtime.GC() // as for inspect
		if err != nil {
			return errorJSON(err)
		}
		return mustJSON(p)
	})
	fn("report", func(a []js.Value) any {
		cfg, its, err := configAndIterations(a)
		if err != nil {
			return errorJSON(err)
		}
		r, err := reportJSON(cfg, a[1].Int(), a[2].Int(), its, a[4].Truthy(), optString(a, 5))
		if err != nil {
			return errorJSON(err)
		}
		return r
	})
	global.Set("dpmcmc", api)
	return api
}

// chainHandle wraps a chain for a worker: advance(k) runs up to k
// iterations and returns {draws: Float64Array (JS-owned, transferable),
// iteration, total, accepted, done}; local() returns the local diagnostics
// {accepted, clipped, rowTerms, divergent (after warmup), divergentWarmup}.
func chainHandle(ch *run.Chain, info chainInfo) js.Value {
	h := js.Global().Get("Object").New()
	h.Set("info", js.Global().Get("JSON").Call("parse", mustJSON(info)))
	var funcs []js.Func
	add := func(name string, f func(args []js.Value) any) {
		fn := js.FuncOf(func(this js.Value, args []js.Value) any { return f(args) })
		funcs = append(funcs, fn)
		h.Set(name, fn)
	}
	add("advance", func(a []js.Value) any {
		pos := ch.Advance(a[0].Int())
		out := js.Global().Get("Object").New()
		out.Set("draws", floatsToJS(pos))
		out.Set("iteration", ch.Done())
		out.Set("total", ch.Total())
		out.Set("accepted", ch.Result().Accepted)
		out.Set("done", ch.Finished())
		return out
	})
	// local: the chain's local diagnostics (not private, never exported).
	add("local", func([]js.Value) any {
		r := ch.Result()
		return js.Global().Get("JSON").Call("parse", mustJSON(map[string]any{
			"accepted": r.Accepted, "clipped": r.Clipped, "rowTerms": r.Rows, "divergent": r.Divergent, "divergentWarmup": r.DivergentWarmup}))
	})
	// error: why the chain stopped before its end (a non-finite state:
	// chainAbort), or null.
	add("abort", func([]js.Value) any {
		a := abortOf(ch)
		if a == nil {
			return js.Null()
		}
		return js.Global().Get("JSON").Call("parse", mustJSON(a))
	})
	add("done", func([]js.Value) any { return ch.Done() })
	add("total", func([]js.Value) any { return ch.Total() })
	add("free", func([]js.Value) any {
		for _, f := range funcs {
			f.Release()
		}
		return nil
	})
	return h
}

// runArgs decodes (configJSON, namesJSON, chains).
// configAndIterations reads the arguments (config JSON, n, d, iterations
// per chain as JSON, …) of budget and report.
// optString is the optional string argument a[i]: "" when it is absent,
// undefined or null.
func optString(a []js.Value, i int) string {
	if i >= len(a) || a[i].IsUndefined() || a[i].IsNull() {
		return ""
	}
	return a[i].String()
}

func configAndIterations(a []js.Value) (*run.Config, []int, error) {
	cfg, err := run.ParseConfig([]byte(a[0].String()))
	if err != nil {
		return nil, nil, err
	}
	var its []int
	if err := json.Unmarshal([]byte(a[3].String()), &its); err != nil {
		return nil, nil, err
	}
	return cfg, its, nil
}

func runArgs(a []js.Value) (*run.Config, []string, []chainData, error) {
	cfg, err := run.ParseConfig([]byte(a[0].String()))
	if err != nil {
		return nil, nil, nil, err
	}
	var names []string
	if err := json.Unmarshal([]byte(a[1].String()), &names); err != nil {
		return nil, nil, nil, err
	}
	arr := a[2]
	chains := make([]chainData, arr.Length())
	for i := range chains {
		c := arr.Index(i)
		chains[i] = chainData{Positions: floatsFromJS(c.Get("positions")), Iterations: c.Get("iterations").Int()}
	}
	return cfg, names, chains, nil
}

func errorJSON(err error) string { return mustJSON(map[string]any{"error": toAPIError(err)}) }

// sourceFromJS is the source of a file argument: a Blob read in chunks when
// FileReaderSync exists, else bytes copied into Go.
func sourceFromJS(v js.Value, progress js.Value) source {
	frs := js.Global().Get("FileReaderSync")
	if frs.Type() == js.TypeFunction && v.InstanceOf(js.Global().Get("Blob")) {
		return &blobSource{blob: v, size: v.Get("size").Int(), reader: frs.New(), progress: progress}
	}
	return bytesSource(bytesFromJS(v))
}

// blobChunk is the size of one read of a blobSource.
const blobChunk = 1 << 20

// blobSource reads a Blob synchronously (FileReaderSync) in chunks.
type blobSource struct {
	blob     js.Value
	size     int
	reader   js.Value // a FileReaderSync
	progress js.Value // onProgress(bytesRead, size) or undefined
	buf      []byte   // shared by the readers (one is read at a time)
}

func (s *blobSource) Size() int { return s.size }

func (s *blobSource) Open() io.Reader {
	if s.buf == nil {
		s.buf = make([]byte, blobChunk)
	}
	return &blobReader{s: s}
}

// blobReader reads its source from the start.
type blobReader struct {
	s        *blobSource
	off      int    // bytes of the blob read into Go so far
	pending  []byte // read but not yet returned
	uint8Arr js.Value
}

// Len is the number of bytes not yet returned (as bytes.Reader's): it lets
// dataset.Load size the table once.
func (r *blobReader) Len() int { return r.s.size - r.off + len(r.pending) }

func (r *blobReader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if len(r.pending) == 0 {
		if r.off >= r.s.size {
			return 0, io.EOF
		}
		end := min(r.off+blobChunk, r.s.size)
		ab := r.s.reader.Call("readAsArrayBuffer", r.s.blob.Call("slice", r.off, end))
		if r.uint8Arr.IsUndefined() {
			r.uint8Arr = js.Global().Get("Uint8Array")
		}
		n := js.CopyBytesToGo(r.s.buf, r.uint8Arr.New(ab))
		// Detach the chunk's buffer: its memory is released now rather than
		// at the worker's next garbage collection (which a long parse in
		// one call may not reach before tens of chunks pile up).
		if ab.Get("transfer").Type() == js.TypeFunction {
			ab.Call("transfer", 0)
		}
		if n != end-r.off {
			return 0, fmt.Errorf("reading the file: got %d bytes at offset %d, want %d", n, r.off, end-r.off)
		}
		r.pending = r.s.buf[:n]
		r.off = end
		if r.s.progress.Type() == js.TypeFunction {
			r.s.progress.Invoke(r.off, r.s.size)
		}
	}
	n := copy(p, r.pending)
	r.pending = r.pending[n:]
	return n, nil
}

// bytesFromJS copies a Uint8Array or an ArrayBuffer into Go.
func bytesFromJS(v js.Value) []byte {
	if !v.InstanceOf(js.Global().Get("Uint8Array")) {
		v = js.Global().Get("Uint8Array").New(v)
	}
	b := make([]byte, v.Get("byteLength").Int())
	js.CopyBytesToGo(b, v)
	return b
}

// floatsFromJS copies a Float64Array into Go with one bulk copy.
func floatsFromJS(v js.Value) []float64 {
	u8 := js.Global().Get("Uint8Array").New(v.Get("buffer"), v.Get("byteOffset"), v.Get("byteLength"))
	b := make([]byte, u8.Get("byteLength").Int())
	js.CopyBytesToGo(b, u8)
	f := make([]float64, len(b)/8)
	for i := range f {
		f[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
	}
	return f
}

// floatsToJS copies f into a new JS-owned Float64Array (whose buffer the
// caller may transfer).
func floatsToJS(f []float64) js.Value {
	b := make([]byte, 8*len(f))
	for i, x := range f {
		binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(x))
	}
	u8 := js.Global().Get("Uint8Array").New(len(b))
	js.CopyBytesToJS(u8, b)
	return js.Global().Get("Float64Array").New(u8.Get("buffer"))
}
