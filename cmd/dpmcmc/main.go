// Command dpmcmc samples differentially private posteriors from a CSV file,
// accounts privacy budgets, summarises draws and serves the browser app.
//
// Each subcommand lives in its own file and registers itself in init.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
)

// command is one subcommand. run gets the arguments after the subcommand
// name; it returns an error to print as one line on stderr (exit status 1).
type command struct {
	summary string
	run     func(args []string, stdout, stderr io.Writer) error
}

var commands = map[string]command{}

func register(name, summary string, run func(args []string, stdout, stderr io.Writer) error) {
	if _, dup := commands[name]; dup {
		panic("dpmcmc: duplicate subcommand " + name)
	}
	commands[name] = command{summary, run}
}

// errUsage marks an error after which the subcommand already printed its usage.
var errUsage = errors.New("usage")

// errInterrupted ends a run stopped by Ctrl-C once what ran is written and
// charged: exit status 130 (128 + SIGINT, the shell's convention), so that
// a script does not take a partial run for a finished one.
var errInterrupted = errors.New("interrupted: the draws file and the privacy report hold what ran (\"cancelled\": true); the run did not finish")

func main() { os.Exit(runMain(os.Args[1:], os.Stdout, os.Stderr)) }

func runMain(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		if len(args) > 1 {
			if c, ok := commands[args[1]]; ok {
				// Asked-for help is the output: on stdout, so that it pages
				// (dpmcmc help sample | less).
				return exitCode(c.run([]string{"-h"}, stdout, stdout), stderr)
			}
			fmt.Fprintf(stderr, "dpmcmc: no help for %q: it is not a command (run 'dpmcmc help')\n", args[1])
			return 2
		}
		usage(stdout)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	c, ok := commands[args[0]]
	if ok && asksHelp(args[1:]) {
		stderr = stdout // the usage is the output (dpmcmc sample -h | less)
	}
	if !ok {
		fmt.Fprintf(stderr, "dpmcmc: unknown command %q (run 'dpmcmc help')\n", args[0])
		return 2
	}
	return exitCode(c.run(args[1:], stdout, stderr), stderr)
}

// asksHelp reports whether a command's flags ask for its usage: -h,
// -help or --help as the first of them. Later, "-h" may be a flag's value
// (--out -h), and the run's own messages must then stay on stderr.
func asksHelp(args []string) bool {
	if len(args) == 0 {
		return false
	}
	switch args[0] {
	case "-h", "-help", "--help", "--h":
		return true
	}
	return false
}

func exitCode(err error, stderr io.Writer) int {
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, errUsage):
		return 2
	case errors.Is(err, errInterrupted):
		fmt.Fprintf(stderr, "dpmcmc: %v\n", err)
		return 130
	default:
		fmt.Fprintf(stderr, "dpmcmc: %v\n", err)
		return 1
	}
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "dpmcmc: differentially private Bayesian inference")
	fmt.Fprintln(w, "\nUsage: dpmcmc <command> [flags]\n\nCommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nRun 'dpmcmc help <command>' or 'dpmcmc <command> -h' for a command's flags.")
}

// newFlagSet returns a flag set that writes its usage to stderr and returns
// errors instead of exiting.
func newFlagSet(name, synopsis string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: dpmcmc %s %s\n\nFlags:\n", name, synopsis)
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses args and maps a parse failure to errUsage
// (parseQuietly printed the reason).
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := parseQuietly(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(fs.Output(), "dpmcmc %s: unexpected argument %q\n", fs.Name(), fs.Arg(0))
		return errUsage
	}
	return nil
}

// parseQuietly is fs.Parse(args) that, on a bad flag, prints one line (the
// flag package's reason, the closest defined flag when the name looks
// mistyped, and where the flags are listed) instead of the whole flag list,
// which scrolled the reason off the screen, and returns errUsage. Asked-for
// help (-h) still prints the usage and returns flag.ErrHelp.
func parseQuietly(fs *flag.FlagSet, args []string) error {
	out, usage := fs.Output(), fs.Usage
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	err := fs.Parse(args)
	fs.SetOutput(out)
	fs.Usage = usage
	switch {
	case err == nil:
		return nil
	case errors.Is(err, flag.ErrHelp):
		usage()
		return err
	}
	hint := ""
	if name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: -"); ok {
		if near := closestFlag(fs, name); near != "" {
			hint = fmt.Sprintf(" (did you mean --%s?)", near)
		}
	}
	fmt.Fprintf(out, "dpmcmc %s: %v%s; 'dpmcmc %s -h' lists the flags\n", fs.Name(), err, hint, fs.Name())
	return errUsage
}

// closestFlag is the defined flag of fs nearest to name (a mistyped flag):
// within edit distance 2 (3 for names of 8 letters or more: --categories),
// or one that name starts or that starts name (--bounds, --eps); a name of
// one or two letters only names the one flag it starts, if there is one
// (-d is --delta, --dim or --draws: no hint); "" when none is that close.
func closestFlag(fs *flag.FlagSet, name string) string {
	name = strings.ToLower(strings.TrimLeft(name, "-"))
	if len(name) < 3 {
		var starts []string
		fs.VisitAll(func(f *flag.Flag) {
			if strings.HasPrefix(f.Name, name) && f.Name != name {
				starts = append(starts, f.Name)
			}
		})
		if len(starts) == 1 {
			return starts[0]
		}
		return ""
	}
	best, bestD := "", 3
	if len(name) >= 8 {
		bestD = 4
	}
	fs.VisitAll(func(f *flag.Flag) {
		d := editDistance(name, f.Name)
		if (strings.HasPrefix(f.Name, name) || strings.HasPrefix(name, f.Name)) && len(f.Name) >= 3 {
			d = min(d, 1)
		}
		if d < bestD {
			best, bestD = f.Name, d
		}
	})
	return best
}

// editDistance is the Levenshtein distance between a and b (bytes).
func editDistance(a, b string) int {
	prev, cur := make([]int, len(b)+1), make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			sub := prev[j-1]
			if a[i-1] != b[j-1] {
				sub++
			}
			cur[j] = min(sub, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// repeatedFlags names the flags given twice with two values (the
// repeatable --bound, --impute and --model-opt aside): the flag package
// lets the last one win without a word, and a second --epsilon is as
// likely a mistake as an override. The last one still wins (a script may
// append overrides to a base command); a command that runs prints these
// as notes. Only the flags before "--" count; a non-boolean flag's value
// ("--epsilon 3") is skipped, and unknown flags are left to the parser.
func repeatedFlags(fs *flag.FlagSet, args []string) []string {
	var notes []string
	seen := map[string]string{}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		if len(a) < 2 || a[0] != '-' {
			continue
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		f := fs.Lookup(name)
		if f == nil {
			continue
		}
		isBool := false
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
			isBool = true
		}
		if !hasValue && !isBool && i+1 < len(args) {
			i++
			value = args[i]
		}
		if _, repeatable := f.Value.(*listFlag); repeatable {
			continue
		}
		value = orTrue(value, isBool)
		if prev, ok := seen[name]; ok && !sameFlagValue(prev, value) {
			notes = append(notes, fmt.Sprintf("--%s is given twice (%s, then %s): the last one, %s, is used", name, prev, value, value))
		}
		seen[name] = value
	}
	return notes
}

// orTrue is a flag's value as typed, "true" for a bare boolean flag.
func orTrue(v string, isBool bool) string {
	if v == "" && isBool {
		return "true"
	}
	return v
}

// sameFlagValue reports whether two typed values of a flag mean the same:
// equal text, equal numbers (1 and 1.0, 04 and 4) or equal booleans (1 and
// true).
func sameFlagValue(a, b string) bool {
	if a == b {
		return true
	}
	x, errx := strconv.ParseFloat(a, 64)
	y, erry := strconv.ParseFloat(b, 64)
	if errx == nil && erry == nil {
		return x == y
	}
	p, errp := strconv.ParseBool(a)
	q, errq := strconv.ParseBool(b)
	return errp == nil && errq == nil && p == q
}
