package report

import (
	"fmt"
	"strings"
)

// MeanColumnsNote says which data column each parameter of the gaussian
// model is the mean of: its parameters are named theta1, theta2, … in the
// order of its data columns (the draws' column names are a contract, so
// they keep those names and this line maps them). "" for another model or
// when the counts differ.
func MeanColumnsNote(model string, names, columns []string) string {
	if strings.ToLower(strings.TrimSpace(model)) != "gaussian" || len(names) == 0 || len(names) != len(columns) {
		return ""
	}
	parts := make([]string, len(names))
	for k := range names {
		parts[k] = fmt.Sprintf("%s the mean of %s", names[k], columns[k])
	}
	return "Parameters: " + strings.Join(parts, ", ") + "."
}
