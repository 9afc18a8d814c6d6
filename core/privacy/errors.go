package privacy

import "fmt"

// fmtErr returns an error wrapping errBad.
func fmtErr(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{errBad}, args...)...)
}

// ErrInvalid is returned (wrapped) for every invalid argument, so callers can
// test errors.Is(err, privacy.ErrInvalid).
var ErrInvalid = errBad
