package run

import (
	"errors"
	"fmt"
	"io"
	"runtime"

	"github.com/dpmcmc/dpmcmc/core/dataset"
	"github.com/dpmcmc/dpmcmc/core/model"
)

// dataOptions are the load options of cfg: only the columns the model
// uses are parsed when the model names them.
func dataOptions(cfg *Config) dataset.Options {
	opts := cfg.LoadOptions()
	opts.Outcome = cfg.Model.Outcome
	if len(cfg.Model.Predictors) > 0 {
		cols := append([]string(nil), cfg.Model.Predictors...)
		if cfg.Model.Outcome != "" {
			cols = append([]string{cfg.Model.Outcome}, cols...)
		}
		opts.Columns = cols
	}
	return opts
}

// ErrNotStreamed wraps every error of PrepareStream that happened while
// the data were read or the model built: the caller should then read the
// data again with LoadData and Prepare, which report the error exactly
// (row numbers of the whole file, errors in file order) or run when the
// model cannot be built from chunks.
var ErrNotStreamed = errors.New("run: the data could not be streamed into the model")

// streamChunkRows is the number of rows PrepareStream reads at a time.
const streamChunkRows = 1 << 14

// PrepareStream is LoadData followed by Prepare without ever holding the
// data twice: the rows go from the CSV reader into the model's storage in
// chunks of streamChunkRows rows (dataset.Chunks, model.ChunkBuilder), each
// clipped to the public bounds on the way. Peak memory is the model's
// storage plus one chunk, instead of the loaded table plus the model's
// copy of it. The Prepared run is the one Prepare would give: the model's
// storage is equal bit for bit (so are the draws), as are the clip counts.
//
// Errors met while reading the data or building the model are wrapped in
// ErrNotStreamed (see there); other errors are Prepare's.
func PrepareStream(r io.Reader, cfg *Config) (*Prepared, *dataset.LoadReport, error) {
	if err := cfg.Validate(); err != nil {
		return nil, nil, err
	}
	cfg = withDefaultScale(cfg)
	bounds := cfg.DatasetBounds()
	b := model.NewChunkBuilder(cfg.Model)
	clipped := dataset.ClipCounts{}
	var names []string
	var boundsErr error // the run is refused: not a streaming failure
	rows, sinceGC := 0, 0
	rep, err := dataset.Chunks(r, dataOptions(cfg), streamChunkRows, func(c dataset.Chunk) error {
		if names == nil {
			// At the first chunk, once the header is known: a missing
			// bound is reported as such rather than as the scaling's
			// error, and a misspelt column as not found (the loader's
			// error, before any chunk), not as a missing bound.
			if err := checkBoundsEarly(cfg, c.Names); err != nil {
				boundsErr = err
				return err
			}
		}
		cc, err := c.ApplyBounds(bounds)
		if err != nil {
			return err
		}
		for name, n := range cc {
			t := clipped[name]
			t.Below += n.Below
			t.Above += n.Above
			clipped[name] = t
		}
		names = c.Names
		if err := b.Add(c.Table, c.EstRows); err != nil {
			return err
		}
		// Each chunk's own model is garbage once appended. Collect it
		// every sixteenth of the rows so far (at least every 2 chunks), so
		// that the heap does not grow to twice the model's storage before
		// the collector runs by itself (GOGC=100). A collection finds only
		// a few large pointer-free arrays: about 100 of them for 10⁷ rows
		// take well under a second.
		rows += c.Rows
		if sinceGC += c.Rows; sinceGC >= max(2*streamChunkRows, rows/16) {
			runtime.GC()
			sinceGC = 0
		}
		return nil
	})
	if boundsErr != nil {
		return nil, rep, boundsErr
	}
	if err != nil {
		return nil, rep, fmt.Errorf("%w: %w", ErrNotStreamed, err)
	}
	m, err := b.Model()
	if err != nil {
		return nil, rep, fmt.Errorf("%w: %w", ErrNotStreamed, err)
	}
	p, err := prepareModel(cfg, m, names, clipped)
	// Free the last chunks and the kernel prepareModel built to check the
	// settings (per-row buffers), so that the chains reuse that memory.
	runtime.GC()
	return p, rep, err
}
