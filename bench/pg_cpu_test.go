package bench

import (
	"context"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// BenchmarkPGCPU measures what issue 29's two ratios are made of: the CPU
// time a write and a Get of the pg store take, the client's (this
// process's, getrusage) and the server's (every process of the server's
// cluster that pg_stat_activity lists: backends, the WAL writer, the
// checkpointer, autovacuum's launcher; /proc/PID/stat, so Linux and a
// server on this machine only), beside the plain pgx upsert and select of
// the same rows (BenchmarkPG's 10,000 documents). Writes are by pgWriters
// goroutines, Gets by one. CPU time moves less than wall time with the
// shared machine's load; on 2 cores with 16 writers the ratio of rates is
// about the ratio of CPU. It skips without TTLDB_BENCH_PG or /proc. From
// bench/:
//
//	TTLDB_PG_FSYNC=on ../.ci/pg sh -c 'TTLDB_BENCH_PG=$TTLDB_TEST_PG go test -run "^$" -bench PGCPU -benchtime 1x -count 3'
func BenchmarkPGCPU(b *testing.B) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		b.Skip("no /proc: the server's CPU time cannot be read here")
	}
	c, pool := openPGBeside(b)
	ctx := context.Background()
	ids, pks := CallerKeys(pgItems), pgPartitions()
	docs := newGroupDocs()
	pkOf := func(i int) string { return string(appendKey(nil, "g-", i/pgPart)) }
	const writes, gets = 3200, 6000
	var cpu [8]time.Duration // pg and plain: write client, write server, get client, get server
	for b.Loop() {
		seed := uint64(1)
		for k, write := range []func(i int, doc []byte) error{
			func(_ int, doc []byte) error { _, err := c.UpsertJSON(bg, doc); return err },
			func(i int, doc []byte) error {
				_, err := pool.Exec(ctx, plainUpsertSQL, ids[i], pkOf(i), string(doc))
				return err
			},
		} {
			cl, srv := cpuSpent(b, pool, func() { pgWriteAll(b, docs, seed, writes, write) })
			cpu[4*k], cpu[4*k+1] = cpu[4*k]+cl/writes, cpu[4*k+1]+srv/writes
		}
		var body string
		for k, get := range []func(i int) error{
			func(i int) error { _, err := c.Get(bg, pks[i/pgPart], ids[i]); return err },
			func(i int) error { return pool.QueryRow(ctx, plainGetSQL, ids[i]).Scan(&body) },
		} {
			r := newRNG(seed)
			cl, srv := cpuSpent(b, pool, func() {
				for range gets {
					i := r.intn(pgItems)
					if err := get(i); err != nil {
						b.Fatalf("read of item %d: %v", i, err)
					}
				}
			})
			cpu[4*k+2], cpu[4*k+3] = cpu[4*k+2]+cl/gets, cpu[4*k+3]+srv/gets
		}
		if b.Failed() {
			return
		}
	}
	n := float64(b.N)
	us := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / n / 1000 }
	b.ReportMetric(us(cpu[0]), "pg-client-µs/write")
	b.ReportMetric(us(cpu[1]), "pg-server-µs/write")
	b.ReportMetric(us(cpu[4]), "plain-client-µs/write")
	b.ReportMetric(us(cpu[5]), "plain-server-µs/write")
	b.ReportMetric(float64(cpu[4]+cpu[5])/float64(cpu[0]+cpu[1]), "write-cpu-ratio")
	b.ReportMetric(us(cpu[2]), "pg-client-µs/get")
	b.ReportMetric(us(cpu[3]), "pg-server-µs/get")
	b.ReportMetric(us(cpu[6]), "plain-client-µs/get")
	b.ReportMetric(us(cpu[7]), "plain-server-µs/get")
	b.ReportMetric(float64(cpu[6]+cpu[7])/float64(cpu[2]+cpu[3]), "get-cpu-ratio")
}

// cpuSpent runs f and returns the CPU time this process and the server's
// processes spent meanwhile. The server's are those pg_stat_activity
// lists before f runs and after: one that starts during f (a pool's new
// connection) counts whole, one that ends during f is not counted.
func cpuSpent(b *testing.B, pool *pgxpool.Pool, f func()) (client, server time.Duration) {
	b.Helper()
	before := make(map[int]time.Duration)
	for _, pid := range serverPIDs(b, pool) {
		before[pid] = procCPU(pid)
	}
	c0 := selfCPU()
	f()
	client = selfCPU() - c0
	for _, pid := range serverPIDs(b, pool) {
		if t := procCPU(pid); t >= before[pid] {
			server += t - before[pid]
		}
	}
	return client, server
}

// serverPIDs returns the processes of the server's cluster that
// pg_stat_activity lists.
func serverPIDs(b *testing.B, pool *pgxpool.Pool) []int {
	b.Helper()
	rows, err := pool.Query(context.Background(), `SELECT pid FROM pg_stat_activity`)
	if err != nil {
		b.Fatalf("the server's processes: %v", err)
	}
	var pids []int
	for rows.Next() {
		var pid int32
		if err := rows.Scan(&pid); err != nil {
			b.Fatal(err)
		}
		pids = append(pids, int(pid))
	}
	if rows.Close(); rows.Err() != nil {
		b.Fatalf("the server's processes: %v", rows.Err())
	}
	return pids
}

// selfCPU is this process's CPU time, user and system.
func selfCPU() time.Duration {
	var r syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &r); err != nil {
		return 0
	}
	return time.Duration(r.Utime.Nano() + r.Stime.Nano())
}

// procCPU is process pid's CPU time, user and system, from /proc (0 when
// it cannot be read: the process ended, or not on Linux), in the kernel's
// clock ticks of 10 ms (USER_HZ, 100 on Linux).
func procCPU(pid int) time.Duration {
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	s := string(raw)
	i := strings.LastIndexByte(s, ')') // the command may hold spaces
	if i < 0 || i+2 > len(s) {
		return 0
	}
	f := strings.Fields(s[i+2:]) // from the state, field 3: utime is field 14, stime 15
	if len(f) < 13 {
		return 0
	}
	u, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0
	}
	return time.Duration(u+st) * 10 * time.Millisecond
}
