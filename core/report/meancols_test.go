package report

import "testing"

func TestMeanColumnsNote(t *testing.T) {
	if got, want := MeanColumnsNote("Gaussian", []string{"theta1", "theta2"}, []string{"age", "bmi"}), "Parameters: theta1 the mean of age, theta2 the mean of bmi."; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	for _, c := range []struct {
		model         string
		names, column []string
	}{
		{"banana", []string{"theta1", "theta2"}, []string{"x1", "x2"}},
		{"gaussian", []string{"theta1", "theta2"}, []string{"age"}},
		{"gaussian", nil, nil},
	} {
		if got := MeanColumnsNote(c.model, c.names, c.column); got != "" {
			t.Errorf("%v: %q, want none", c, got)
		}
	}
}
