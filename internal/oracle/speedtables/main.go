// Command speedtables reads the output of internal/oracle's side-by-side
// benchmarks (go test -bench, any -count) on its standard input and
// prints the tables of docs/speed.md: for each figure the median over the
// runs, and the range where there were several. speed.sh runs them.
package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

func main() {
	runs, err := read(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "speedtables:", err)
		os.Exit(1)
	}
	write(os.Stdout, runs)
}

// runs holds each benchmark's metrics, by unit, one value a run.
type runs map[string]map[string][]float64

var suffix = regexp.MustCompile(`-\d+$`)

// read collects the metrics of every benchmark line of r.
func read(r io.Reader) (runs, error) {
	out := runs{}
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
			continue
		}
		name := suffix.ReplaceAllString(strings.TrimPrefix(f[0], "Benchmark"), "")
		if out[name] == nil {
			out[name] = map[string][]float64{}
		}
		for i := 2; i+1 < len(f); i += 2 { // f[1] is the iteration count
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				return nil, fmt.Errorf("%s: %q is not a number", f[0], f[i])
			}
			out[name][f[i+1]] = append(out[name][f[i+1]], v)
		}
	}
	return out, sc.Err()
}

// cell is the median of vs, and their range when there are several.
func cell(vs []float64, unit func(float64) string) string {
	if len(vs) == 0 {
		return "—"
	}
	s := slices.Sorted(slices.Values(vs))
	m := s[len(s)/2]
	if len(s)%2 == 0 {
		m = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	if len(s) == 1 {
		return unit(m)
	}
	return fmt.Sprintf("%s (%s–%s)", unit(m), unit(s[0]), unit(s[len(s)-1]))
}

func times(v float64) string { return fmt.Sprintf("%.2f×", v) }

func micro(v float64) string {
	if v >= 1e6 {
		return fmt.Sprintf("%.1f ms", v/1e6)
	}
	return fmt.Sprintf("%.0f µs", v/1e3)
}

var peers = []string{"gojsonschema", "santhosh-tekuri", "google", "kaptinlin"}

func write(w io.Writer, r runs) {
	fmt.Fprintln(w, "Judging an answer, enforce's time over theirs (below 1: enforce is faster):")
	fmt.Fprintln(w)
	cols := append(slices.Clone(peers), "json.Valid", "json.Unmarshal")
	fmt.Fprintf(w, "| answer | enforce | %s |\n|%s\n", strings.Join(cols, " | "), strings.Repeat(" --- |", len(cols)+2))
	for _, verdict := range []string{"passing", "failing"} {
		for _, size := range []string{"1KiB", "64KiB", "1MiB"} {
			m := r["JudgeSideBySide/"+verdict+"/"+size]
			if m == nil {
				continue
			}
			row := []string{verdict + " " + size, cell(m["enforce-ns/op"], micro)}
			for _, c := range cols {
				row = append(row, cell(m["enforce/"+c], times))
			}
			fmt.Fprintf(w, "| %s |\n", strings.Join(row, " | "))
		}
	}
	if m := r["CompileSideBySide"]; m != nil {
		fmt.Fprintln(w)
		fmt.Fprintln(w, "Compiling the order contract, enforce's time over theirs; first: compile, then the first verdict (the passing 1 KiB answer):")
		fmt.Fprintln(w)
		fmt.Fprintf(w, "| | enforce | %s | first: enforce / gojsonschema |\n|%s\n", strings.Join(peers, " | "), strings.Repeat(" --- |", len(peers)+3))
		row := []string{"compile", cell(m["enforce-ns/op"], micro)}
		for _, c := range peers {
			row = append(row, cell(m["enforce/"+c], times))
		}
		row = append(row, cell(m["enforce-first/gojsonschema-first"], times))
		fmt.Fprintf(w, "| %s |\n", strings.Join(row, " | "))
	}
	for _, c := range []struct{ bench, name string }{
		{"modeloutputs", "the real model outputs"},
		{"jsonschemabench", "JSONSchemaBench"},
	} {
		m := r["CompileCorpus/"+c.bench]
		if m == nil {
			continue
		}
		fmt.Fprintln(w)
		fmt.Fprintf(w, "Compiling each distinct schema of %s that every validator compiles, time per schema:\n\n", c.name)
		fmt.Fprintln(w, "| validator | median | p99 | enforce's median over its | enforce's p99 over its |\n| --- | --- | --- | --- | --- |")
		fmt.Fprintf(w, "| enforce | %s | %s | | |\n", cell(m["enforce-median-ns"], micro), cell(m["enforce-p99-ns"], micro))
		for _, p := range peers {
			fmt.Fprintf(w, "| %s | %s | %s | %s | %s |\n", p, cell(m[p+"-median-ns"], micro), cell(m[p+"-p99-ns"], micro), cell(m["enforce/"+p+"-median"], times), cell(m["enforce/"+p+"-p99"], times))
		}
	}
}
