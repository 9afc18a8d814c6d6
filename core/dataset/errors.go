package dataset

import (
	"errors"
	"strconv"
	"strings"
)

// Sentinel errors. Every error returned by Load, NewReader and Reader.Next is
// a *ParseError whose Err wraps one of these (or an I/O error from the
// source), so callers can test the kind with errors.Is and still show the
// line and column to the user.
var (
	ErrEmpty           = errors.New("the file is empty (a header line is required)")
	ErrNoRows          = errors.New("no data rows")
	ErrRagged          = errors.New("wrong number of fields")
	ErrNotNumeric      = errors.New("not a number")
	ErrMissing         = errors.New("missing value")
	ErrNonFinite       = errors.New("not a finite number")
	ErrDuplicateColumn = errors.New("duplicate column name")
	ErrEmptyColumnName = errors.New("empty column name")
	ErrUnknownColumn   = errors.New("unknown column")
	ErrCategory        = errors.New("value not in the category mapping")
	ErrQuote           = errors.New("malformed quoted field")
	ErrTooLarge        = errors.New("input too large")
	ErrEncoding        = errors.New("unsupported text encoding")
	ErrOptions         = errors.New("invalid options")
	ErrBadBound        = errors.New("invalid bound")
)

// ParseError locates a problem in the input, like encoding/csv's ParseError.
//
// Line is the 1-based line of the file where the offending field starts (the
// header is line 1 unless blank lines precede it); Column is the 1-based field
// index in the file (not a byte offset) and ColumnName its header name. Row is
// the 1-based row of a loaded Table and is set only by Table.CellError for
// problems found after loading (e.g. an outcome outside a model's support).
// Fields that do not apply are zero.
//
// The message may quote the offending cell. It is meant for the local user
// only (it is never exported).
type ParseError struct {
	Line       int
	Row        int
	Column     int
	ColumnName string
	Err        error
}

func (e *ParseError) Error() string {
	var b strings.Builder
	switch {
	case e.Line > 0:
		b.WriteString("line ")
		b.WriteString(strconv.Itoa(e.Line))
	case e.Row > 0:
		b.WriteString("row ")
		b.WriteString(strconv.Itoa(e.Row))
	}
	if e.Column > 0 {
		if b.Len() > 0 {
			b.WriteString(", ")
		}
		b.WriteString("column ")
		b.WriteString(strconv.Itoa(e.Column))
		if e.ColumnName != "" {
			b.WriteString(" (")
			b.WriteString(strconv.Quote(e.ColumnName))
			b.WriteString(")")
		}
	} else if e.ColumnName != "" {
		if b.Len() > 0 {
			b.WriteString(", ")
		}
		b.WriteString("column ")
		b.WriteString(strconv.Quote(e.ColumnName))
	}
	if b.Len() > 0 {
		b.WriteString(": ")
	}
	if e.Err != nil {
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

func (e *ParseError) Unwrap() error { return e.Err }

// kindError is an error with its own message that still matches a sentinel
// under errors.Is.
type kindError struct {
	kind error
	msg  string
}

func (e *kindError) Error() string { return e.msg }
func (e *kindError) Unwrap() error { return e.kind }

func errorf(kind error, msg string) error { return &kindError{kind: kind, msg: msg} }

// quoteCell quotes a cell for an error message, shortening long ones.
func quoteCell(b []byte) string {
	const max = 40
	if len(b) > max {
		return strconv.Quote(string(b[:max])) + "…"
	}
	return strconv.Quote(string(b))
}

// OutcomeMissingAdvice ends the error for a missing value of the outcome
// (Options.Outcome): a made-up outcome would be fitted as observed.
const OutcomeMissingAdvice = "the outcome cannot be given a value for its missing cells: remove the rows whose outcome is missing before loading (in non-private runs only, dpmcmc's --drop-missing drops them)"

// MissingAdvice ends the error for a missing value: what the user can do.
const MissingAdvice = "remove or fill it before loading (a missing outcome: remove its row); for a regression's predictor, " +
	"you can instead replace its missing cells by a public value (dpmcmc: --impute COL=V; the page asks for the value), " +
	"which keeps every row and is allowed in private runs; or, in non-private runs only, drop rows with missing values (dpmcmc: --drop-missing)"
