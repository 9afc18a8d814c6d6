// Package plot renders experiment.Figure specifications as SVG and PNG with
// gonum.org/v1/plot. Only the command-line tool imports it (never the wasm
// build).
package plot

import (
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"strconv"

	"github.com/dpmcmc/dpmcmc/core/experiment"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

var palette = []color.Color{
	color.RGBA{0x1f, 0x77, 0xb4, 0xff}, color.RGBA{0xd6, 0x27, 0x28, 0xff},
	color.RGBA{0x2c, 0xa0, 0x2c, 0xff}, color.RGBA{0xff, 0x7f, 0x0e, 0xff},
	color.RGBA{0x94, 0x67, 0xbd, 0xff}, color.RGBA{0x8c, 0x56, 0x4b, 0xff},
	color.RGBA{0xe3, 0x77, 0xc2, 0xff}, color.RGBA{0x7f, 0x7f, 0x7f, 0xff},
}

type errPts struct {
	plotter.XYs
	plotter.YErrors
}

// Render writes DIR/NAME.svg and DIR/NAME.png and returns their paths.
func Render(f *experiment.Figure, dir string) ([]string, error) {
	p := plot.New()
	p.Title.Text = f.Title
	p.X.Label.Text = f.XLabel
	p.Y.Label.Text = f.YLabel
	p.Legend.Top = !f.LegendBottom
	p.Legend.Left = f.LegendLeft
	if f.LogX {
		p.X.Scale = plot.LogScale{}
	}
	if f.LogY {
		p.Y.Scale = plot.LogScale{}
	}
	p.X.Tick.Marker = ticker{log: f.LogX}
	if len(f.XTicks) > 0 {
		ts := make([]plot.Tick, len(f.XTicks))
		for i, v := range f.XTicks {
			ts[i] = plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'g', -1, 64)}
		}
		p.X.Tick.Marker = plot.ConstantTicks(ts)
	}
	p.Y.Tick.Marker = ticker{log: f.LogY}
	p.Add(plotter.NewGrid())
	ok := func(x, y float64) bool {
		if math.IsNaN(x) || math.IsNaN(y) || math.IsInf(x, 0) || math.IsInf(y, 0) {
			return false
		}
		return (!f.LogX || x > 0) && (!f.LogY || y > 0)
	}
	for si, s := range f.Series {
		col := palette[si%len(palette)]
		var pts plotter.XYs
		var errs plotter.YErrors
		hasErr := len(s.Lo) == len(s.X) && len(s.Hi) == len(s.X)
		for i := range s.X {
			if !ok(s.X[i], s.Y[i]) {
				continue
			}
			pts = append(pts, plotter.XY{X: s.X[i], Y: s.Y[i]})
			if hasErr {
				lo, hi := s.Y[i]-s.Lo[i], s.Hi[i]-s.Y[i]
				if f.LogY && s.Lo[i] <= 0 {
					lo = s.Y[i] * 0.999
				}
				if math.IsNaN(lo) || lo < 0 {
					lo = 0
				}
				if math.IsNaN(hi) || hi < 0 {
					hi = 0
				}
				errs = append(errs, struct{ Low, High float64 }{lo, hi})
			}
		}
		if len(pts) == 0 {
			continue
		}
		switch {
		case s.Points:
			sc, err := plotter.NewScatter(pts)
			if err != nil {
				return nil, err
			}
			sc.GlyphStyle.Color = col
			sc.GlyphStyle.Radius = vg.Points(3)
			if f.Dense {
				sc.GlyphStyle.Radius = vg.Points(1)
			}
			sc.GlyphStyle.Shape = draw.CircleGlyph{}
			p.Add(sc)
			p.Legend.Add(s.Label, sc)
		default:
			l, err := plotter.NewLine(pts)
			if err != nil {
				return nil, err
			}
			l.LineStyle.Color = col
			l.LineStyle.Width = vg.Points(1.5)
			l.LineStyle.Dashes = plotutil.Dashes(si / len(palette))
			p.Add(l)
			if !s.Line {
				sc, err := plotter.NewScatter(pts)
				if err != nil {
					return nil, err
				}
				sc.GlyphStyle.Color = col
				sc.GlyphStyle.Shape = plotutil.Shape(si)
				p.Add(sc)
				p.Legend.Add(s.Label, l, sc)
			} else if s.Label != "" {
				p.Legend.Add(s.Label, l)
			}
		}
		if hasErr && len(errs) == len(pts) {
			eb, err := plotter.NewYErrorBars(errPts{pts, errs})
			if err == nil {
				eb.LineStyle.Color = col
				p.Add(eb)
			}
		}
	}
	padRange(&p.X.Min, &p.X.Max, f.LogX)
	padRange(&p.Y.Min, &p.Y.Max, f.LogY)
	if f.YMin < f.YMax {
		p.Y.Min, p.Y.Max = f.YMin, f.YMax
	}
	w, h := f.Width, f.Height
	if w == 0 {
		w = 16
	}
	if h == 0 {
		h = 10
	}
	var paths []string
	for _, ext := range []string{"svg", "png"} {
		path := filepath.Join(dir, f.Name+"."+ext)
		if err := p.Save(vg.Length(w)*vg.Centimeter, vg.Length(h)*vg.Centimeter, path); err != nil {
			return paths, fmt.Errorf("plot %s: %w", path, err)
		}
		paths = append(paths, path)
	}
	return paths, nil
}

// ticker labels an axis whatever its range: log ticks (powers of ten) when
// at least two labelled ones fall inside the range, otherwise gonum's
// linear ticks (a log axis spanning less than a decade — e.g. MMD between
// 0.2 and 0.3 — would get no labelled tick from plot.LogTicks).
type ticker struct{ log bool }

func (t ticker) Ticks(min, max float64) []plot.Tick {
	if t.log {
		ts := plot.LogTicks{Prec: -1}.Ticks(min, max)
		if labelled(ts, min, max) >= 2 {
			return ts
		}
	}
	return plot.DefaultTicks{}.Ticks(min, max)
}

func labelled(ts []plot.Tick, min, max float64) int {
	n := 0
	for _, t := range ts {
		if t.Label != "" && t.Value >= min && t.Value <= max {
			n++
		}
	}
	return n
}

// padRange widens a degenerate axis range (one point, or every point at
// the same value), where the tickers have nothing to divide: ±10% of the
// value (×/÷ 1.25 on a log axis), or ±1 around zero.
func padRange(lo, hi *float64, log bool) {
	if math.IsInf(*lo, 0) || math.IsInf(*hi, 0) || math.IsNaN(*lo) || math.IsNaN(*hi) {
		*lo, *hi = 0.1, 1
		return
	}
	if *hi-*lo > 1e-9*math.Max(math.Abs(*lo), math.Abs(*hi)) {
		return
	}
	v := *lo
	switch {
	case log && v > 0:
		*lo, *hi = v/1.25, v*1.25
	case v == 0:
		*lo, *hi = -1, 1
	default:
		d := 0.1 * math.Abs(v)
		*lo, *hi = v-d, v+d
	}
}
