//go:build js && wasm

package main

// render writes a resultsView into the page's results section with
// honnef.co/go/js/dom/v2. It runs in the engine instance on the page's main
// thread (the workers have no document). Every data-derived string (column
// names, messages) goes in as a text node (SetTextContent), never as
// markup; attributes carry only numbers and constants.
//
// Elements are held as dom/v2's *BasicElement and written with its typed
// methods (SetTextContent, SetAttribute, RemoveAttribute, Class); they are
// created and appended through the underlying js.Value. Two parts of dom/v2
// are avoided on purpose, for the engine's size (measured, docs/APP.md):
// its Document methods (CreateElement, QuerySelector) wrap every element
// with a type switch over all ~70 HTML element types, whose method sets the
// linker must then keep (+1.4 MB of wasm); and passing an element as a
// dom.Node interface (AppendChild) keeps the type descriptors of dom/v2's
// whole interface graph (+186 KB). As used here, dom/v2 costs ≈ 46 KB of
// wasm.

import (
	"strconv"
	"syscall/js"
	"unicode/utf8"

	"honnef.co/go/js/dom/v2"

	"github.com/dpmcmc/dpmcmc/core/report"
)

const svgNS = "http://www.w3.org/2000/svg"

// document is the page's document (the JS object).
type document struct{ js.Value }

func wrap(v js.Value) *dom.BasicElement {
	return &dom.BasicElement{BasicNode: &dom.BasicNode{Value: v}}
}

// byTestID is the element with the given data-testid (ids are constants).
func byTestID(doc document, id string) *dom.BasicElement {
	return wrap(doc.Call("querySelector", `[data-testid="`+id+`"]`))
}

// clear removes every child of e.
func clear(e *dom.BasicElement) { e.SetTextContent("") }

// elem creates an HTML element with the given class (none if "") and text.
func elem(doc document, tag, class, text string) *dom.BasicElement {
	e := wrap(doc.Call("createElement", tag))
	if class != "" {
		e.SetAttribute("class", class)
	}
	if text != "" {
		e.SetTextContent(text)
	}
	return e
}

func setHidden(e *dom.BasicElement, hidden bool) {
	if hidden {
		e.SetAttribute("hidden", "")
	} else {
		e.RemoveAttribute("hidden")
	}
}

// render fills the results section's elements from v.
func render(doc document, v *resultsView) {
	st := byTestID(doc, "privacy-statement")
	st.SetTextContent(v.Statement)
	if v.Private && !v.WeakEpsilon {
		st.Class().Remove("warn")
	} else {
		st.Class().Add("warn")
	}
	b := byTestID(doc, "budget-spent")
	b.SetTextContent(v.Budget)
	setHidden(b, v.Budget == "")

	verdict := byTestID(doc, "verdict")
	verdict.SetTextContent(v.Verdict)
	switch {
	case !v.Summarized:
		verdict.SetAttribute("class", "verdict bad")
	case v.Converged && v.LittleLearned:
		verdict.SetAttribute("class", "verdict warn")
	case v.Converged:
		verdict.SetAttribute("class", "verdict good")
	default:
		verdict.SetAttribute("class", "verdict bad")
	}
	sh := byTestID(doc, "scale-hint")
	sh.SetTextContent(v.ScaleHint)
	setHidden(sh, v.ScaleHint == "")
	pn := byTestID(doc, "prior-note")
	pn.SetTextContent(v.PriorNote)
	setHidden(pn, !v.Summarized || v.PriorNote == "")
	bx := byTestID(doc, "box-note")
	bx.SetTextContent(v.BoxNote)
	setHidden(bx, !v.Summarized || v.BoxNote == "")
	pp := byTestID(doc, "prior-pull-note")
	pp.SetTextContent(v.PriorPullNote)
	setHidden(pp, !v.Summarized || v.PriorPullNote == "")
	in := byTestID(doc, "intercept-note")
	in.SetTextContent(v.InterceptNote)
	setHidden(in, !v.Summarized || v.InterceptNote == "")
	tn := byTestID(doc, "tail-note")
	tn.SetTextContent(v.TailNote)
	setHidden(tn, !v.Summarized || v.TailNote == "")
	dn := byTestID(doc, "direction-note")
	dn.SetTextContent(v.DirectionNote)
	setHidden(dn, !v.Summarized || v.DirectionNote == "")
	cn := byTestID(doc, "calibration-note")
	cn.SetTextContent(v.CalibrationNote)
	setHidden(cn, !v.Summarized || v.CalibrationNote == "")
	table := byTestID(doc, "summary-table")
	clear(table)
	forest := byTestID(doc, "forest-plot")
	clear(forest)
	setHidden(forest, !v.Summarized || len(v.Forest.Rows) == 0)
	if v.Summarized {
		renderTable(doc, table, v)
		if len(v.Forest.Rows) > 0 {
			renderForest(doc, forest, v.Forest, v.Converged)
		}
	}
	local := byTestID(doc, "local-diagnostics")
	clear(local)
	setHidden(local, len(v.Local) == 0)
	if len(v.Local) > 0 {
		appendChild(local, elem(doc, "strong", "", report.LocalHeading+":"))
		list := wrap(doc.Call("createElement", "ul"))
		for _, line := range v.Local {
			appendChild(list, elem(doc, "li", "", line))
		}
		appendChild(local, list)
	}
}

func renderTable(doc document, table *dom.BasicElement, v *resultsView) {
	// Chains that did not converge give numbers as precise-looking as a
	// posterior's: the table is greyed and its caption says so first.
	if v.Converged {
		table.Class().Remove("unconverged")
		appendChild(table, elem(doc, "caption", "", v.Caption))
	} else {
		table.Class().Add("unconverged")
		appendChild(table, elem(doc, "caption", "warn", NotConvergedTable+" "+v.Caption))
	}
	head := wrap(doc.Call("createElement", "thead"))
	tr := wrap(doc.Call("createElement", "tr"))
	for _, c := range v.Table.Columns {
		th := elem(doc, "th", "", c.Label)
		th.SetAttribute("scope", "col")
		th.SetAttribute("data-key", c.Key)
		appendChild(tr, th)
	}
	appendChild(head, tr)
	appendChild(table, head)
	body := wrap(doc.Call("createElement", "tbody"))
	for i, row := range v.Table.Rows {
		tr := wrap(doc.Call("createElement", "tr"))
		for j, cell := range row {
			class := "num"
			switch {
			case j == 0:
				class = "name"
			case v.Table.Columns[j].Key == "rhat" && !v.RhatOK[i]:
				class = "num flag"
			}
			td := elem(doc, "td", class, cell)
			td.SetAttribute("data-key", v.Table.Columns[j].Key) // phones hide some columns (app.css)
			appendChild(tr, td)
		}
		appendChild(body, tr)
	}
	appendChild(table, body)
}

// Forest plot geometry (SVG user units; the SVG scales to its box).
const (
	forestWidth  = 720.0
	forestName   = 130.0 // name column
	forestLabel  = 170.0 // interval label column
	forestRow    = 26.0
	forestTop    = 12.0
	forestBottom = 44.0 // axis, ticks and caption
	forestPad    = 12.0
	// forestLabelChar is the width of one character of a label, at most
	// (the labels' font, css/app.css .forest text).
	forestLabelChar = 7.5
)

func f2(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }

func svg(doc document, tag string, attrs ...string) *dom.BasicElement {
	e := wrap(doc.Call("createElementNS", svgNS, tag))
	for i := 0; i+1 < len(attrs); i += 2 {
		e.SetAttribute(attrs[i], attrs[i+1])
	}
	return e
}

// renderForest draws f as an inline SVG: one row per coefficient (median
// as a square, 90% interval as a line), the reference line (no effect),
// a log axis for ratios, and the interval spelled on the right.
func renderForest(doc document, box *dom.BasicElement, f report.Forest, converged bool) {
	n := float64(len(f.Rows))
	h := forestTop + n*forestRow + forestBottom
	// The label column widens for long labels ("1.11e+08 (2.82e-76–7.41e+110)"),
	// the plot keeps its width.
	labelW := forestLabel
	for _, r := range f.Rows {
		labelW = max(labelW, forestPad+forestLabelChar*float64(utf8.RuneCountInString(r.Label)))
	}
	width := forestWidth - forestLabel + labelW
	x0, x1 := forestName+forestPad, forestWidth-forestLabel-forestPad
	xOf := func(v float64) float64 { return x0 + f.Pos(v)*(x1-x0) }
	yEnd := forestTop + n*forestRow
	class := "forest"
	if !converged {
		class += " unconverged"
	}
	s := svg(doc, "svg", "viewBox", "0 0 "+f2(width)+" "+f2(h), "role", "img", "class", class)
	title := svg(doc, "title")
	title.SetTextContent("Forest plot: " + f.Caption)
	appendChild(s, title)
	// Grid and ticks.
	for _, t := range f.Ticks {
		x := f2(xOf(t))
		appendChild(s, svg(doc, "line", "x1", x, "x2", x, "y1", f2(forestTop), "y2", f2(yEnd), "class", "gridline"))
		lab := svg(doc, "text", "x", x, "y", f2(yEnd+16), "text-anchor", "middle", "class", "tick")
		lab.SetTextContent(report.Tick(t))
		appendChild(s, lab)
	}
	if f.HasRef {
		x := f2(xOf(f.Ref))
		appendChild(s, svg(doc, "line", "x1", x, "x2", x, "y1", f2(forestTop-4), "y2", f2(yEnd), "class", "ref"))
	}
	appendChild(s, svg(doc, "line", "x1", f2(x0), "x2", f2(x1), "y1", f2(yEnd), "y2", f2(yEnd), "class", "axis"))
	caption := svg(doc, "text", "x", f2((x0+x1)/2), "y", f2(yEnd+36), "text-anchor", "middle", "class", "axis-caption")
	caption.SetTextContent(f.Caption)
	appendChild(s, caption)
	for i, r := range f.Rows {
		y := forestTop + (float64(i)+0.5)*forestRow
		g := svg(doc, "g", "class", "frow")
		name := svg(doc, "text", "x", f2(forestName), "y", f2(y+4), "text-anchor", "end", "class", "fname")
		name.SetTextContent(r.Name)
		appendChild(g, name)
		if r.Defined {
			lo, hi := max(xOf(r.Lo), x0), min(xOf(r.Hi), x1)
			appendChild(g, svg(doc, "line", "x1", f2(lo), "x2", f2(hi), "y1", f2(y), "y2", f2(y), "class", "ci"))
			m := xOf(r.Mid)
			appendChild(g, svg(doc, "rect", "x", f2(m-4), "y", f2(y-4), "width", "8", "height", "8", "class", "mid"))
		}
		label := svg(doc, "text", "x", f2(x1+2*forestPad), "y", f2(y+4), "class", "flabel")
		label.SetTextContent(r.Label)
		appendChild(g, label)
		appendChild(s, g)
	}
	figCaption := "Forest plot: " + f.Scale + "s with 90% intervals"
	if f.Log || f.PerStep {
		figCaption = "Forest plot: " + f.Scale + "s per step of each predictor (a round number from its public bound, 1 without one) with 90% intervals"
	}
	if f.HasRef {
		// The table's interval and the direction line are 95%: an interval
		// here that excludes the reference may still include it there.
		figCaption += " (the table and the direction line use 95% intervals)"
	}
	if !converged {
		// Stuck chains give narrow intervals around where they were.
		figCaption = NotConvergedForest + " " + figCaption
	}
	head := elem(doc, "figcaption", "", figCaption)
	if !converged {
		head.SetAttribute("class", "warn")
	}
	// Phones: the plot keeps its width in a box that scrolls sideways.
	appendChild(head, elem(doc, "span", "phone-only", "Scroll the plot sideways for its numbers (the table above has them too)."))
	appendChild(box, head)
	appendChild(box, s)
}

// NotConvergedTable starts the summary table's caption when the chains did
// not converge.
const NotConvergedTable = "Not converged (see the verdict above): do not report these numbers; chains that have not mixed describe where they were, not the posterior."

// NotConvergedForest starts the forest plot's caption when the chains did
// not converge.
const NotConvergedForest = "The chains did not converge: these intervals show where the chains were, not the posterior; do not read effects from them."

// appendChild appends child to parent (not dom/v2's AppendChild: see the
// comment at the top).
func appendChild(parent, child *dom.BasicElement) { parent.Call("appendChild", child.Value) }
