package benchrun

import (
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
)

// ParseLine reads one line of go test -bench output,
//
//	BenchmarkWrite/ttldb-2   123456   2291 ns/op   512 B/op   4 allocs/op
//	BenchmarkReadScale/ttldb/g=8-2   123456   1290 ns/op   5012 ns/read   775000 reads/s
//
// into the benchmark's name without its Benchmark prefix and GOMAXPROCS
// suffix (Write/ttldb, ReadScale/ttldb/g=8) and its metrics by unit; ok is
// false for any other line.
func ParseLine(line string) (name string, metrics map[string]float64, ok bool) {
	f := strings.Fields(line)
	if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") || len(f)%2 != 0 {
		return "", nil, false
	}
	if _, err := strconv.Atoi(f[1]); err != nil {
		return "", nil, false
	}
	name = strings.TrimPrefix(f[0], "Benchmark")
	if i := strings.LastIndexByte(name, '-'); i > 0 && !strings.Contains(name[i:], "/") {
		if _, err := strconv.Atoi(name[i+1:]); err == nil {
			name = name[:i] // the GOMAXPROCS suffix
		}
	}
	metrics = map[string]float64{}
	for i := 2; i+1 < len(f); i += 2 {
		v, err := strconv.ParseFloat(f[i], 64)
		if err != nil {
			return "", nil, false
		}
		metrics[f[i+1]] = v
	}
	return name, metrics, true
}

// Median returns the median of v (the mean of the middle two for an even
// count), ok false for none. v is not changed.
func Median(v []float64) (m float64, ok bool) {
	if len(v) == 0 {
		return 0, false
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2], true
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2, true
}

// CPU is the machine's processor as /proc/cpuinfo names it, or the
// architecture Go runs on where it cannot be read.
func CPU() string {
	for _, l := range strings.Split(ReadFile("/proc/cpuinfo"), "\n") {
		if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return runtime.GOOS + "/" + runtime.GOARCH
}

// ReadFile returns the contents of the named file, "" when it cannot be
// read.
func ReadFile(name string) string {
	b, err := os.ReadFile(name)
	if err != nil {
		return ""
	}
	return string(b)
}
