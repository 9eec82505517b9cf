package postgres

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
)

// pgBin holds the PostgreSQL 15 programs, as ../.ci/pg finds them.
const pgBin = "/usr/lib/postgresql/15/bin"

// cluster is a PostgreSQL server of one test's own, which it restarts and
// crashes: made as ../.ci/pg makes its server (initdb and pg_ctl in a new
// directory, listening on 127.0.0.1 and a socket in that directory), as
// the user postgres when the test runs as root (initdb refuses root).
type cluster struct {
	t     *testing.T
	dir   string
	port  int
	owner string
	// fileLimit, when set, is the largest file the server may write, in
	// bytes, at its next start (RLIMIT_FSIZE, which PostgreSQL meets as
	// EFBIG, as it meets a full disk as ENOSPC).
	fileLimit int64
}

// newCluster makes and starts a cluster for t, stopped and removed when t
// ends. It skips t, saying so, when no server is configured (serverEnv:
// the PostgreSQL tests run only when asked) or the programs are missing.
func newCluster(t *testing.T) *cluster {
	t.Helper()
	if os.Getenv(serverEnv) == "" {
		t.Skipf("%s is unset: the PostgreSQL tests do not run; run ../.ci/pg go test ./... (from postgres/)", serverEnv)
	}
	if _, err := os.Stat(filepath.Join(pgBin, "pg_ctl")); err != nil {
		t.Skipf("%s/pg_ctl is missing (%v): this test starts a server of its own; install postgresql-15", pgBin, err)
	}
	c := makeDir(t)
	c.run("initdb", "-D", c.data(), "-U", c.owner, "--auth=trust", "-E", "UTF8", "--locale=C.UTF-8")
	c.start()
	return c
}

// newStandby makes and starts a standby of the cluster primary, streaming
// its WAL (pg_basebackup -R), for t alone.
func newStandby(t *testing.T, primary *cluster) *cluster {
	t.Helper()
	c := makeDir(t)
	c.run("pg_basebackup", "-h", "127.0.0.1", "-p", fmt.Sprint(primary.port), "-U", c.owner, "-D", c.data(), "-R", "-X", "stream")
	c.start()
	return c
}

// makeDir makes a cluster's directory, owned by the cluster's owner, and
// stops its server and removes it when t ends.
func makeDir(t *testing.T) *cluster {
	t.Helper()
	// In /tmp, as ../.ci/pg: a socket's path is at most 107 bytes, and
	// the user postgres must reach the directory.
	dir, err := os.MkdirTemp("/tmp", "ttldb-crash.")
	if err != nil {
		t.Fatal(err)
	}
	c := &cluster{t: t, dir: dir}
	t.Cleanup(func() {
		_ = c.cmd("pg_ctl", "-D", c.data(), "-m", "immediate", "-w", "stop").Run()
		_ = os.RemoveAll(dir)
	})
	u, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	c.owner = u.Username
	if u.Uid == "0" {
		c.owner = "postgres"
		pg, err := user.Lookup("postgres")
		if err != nil {
			t.Skipf("running as root, and no user postgres to own the cluster: %v", err)
		}
		var uid, gid int
		_, _ = fmt.Sscan(pg.Uid, &uid)
		_, _ = fmt.Sscan(pg.Gid, &gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

// stop stops the server cleanly.
func (c *cluster) stop() {
	c.t.Helper()
	c.run("pg_ctl", "-D", c.data(), "-m", "fast", "-w", "stop")
}

// data returns the cluster's data directory.
func (c *cluster) data() string { return filepath.Join(c.dir, "data") }

// cmd returns the command of the PostgreSQL program prog with args, run
// as the cluster's owner.
func (c *cluster) cmd(prog string, args ...string) *exec.Cmd {
	path := prog
	if !filepath.IsAbs(prog) && prog != "prlimit" {
		path = filepath.Join(pgBin, prog)
	}
	if c.owner == "postgres" && os.Getuid() == 0 {
		return exec.Command("runuser", append([]string{"-u", "postgres", "--", path}, args...)...)
	}
	return exec.Command(path, args...)
}

// run runs prog with args, failing the test on an error.
func (c *cluster) run(prog string, args ...string) {
	c.t.Helper()
	if out, err := c.cmd(prog, args...).CombinedOutput(); err != nil {
		log, _ := os.ReadFile(filepath.Join(c.dir, "server.log"))
		c.t.Fatalf("%s %v: %v\n%s\nserver.log:\n%s", prog, args, err, out, log)
	}
}

// start starts the server, on the port of its first start, and waits
// until it accepts connections (pg_ctl -w): it has recovered.
func (c *cluster) start() {
	c.t.Helper()
	if c.port == 0 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			c.t.Fatal(err)
		}
		c.port = l.Addr().(*net.TCPAddr).Port
		_ = l.Close()
	}
	// As ../.ci/pg, fsync off: a crash here is the server's processes
	// killed, never the machine's, so what was written to the files
	// survives it. synchronous_commit stays on.
	opts := fmt.Sprintf("-c listen_addresses=127.0.0.1 -p %d -k %s -c fsync=off -c full_page_writes=off", c.port, c.dir)
	args := []string{"-D", c.data(), "-l", filepath.Join(c.dir, "server.log"), "-w", "-t", "60", "-o", opts, "start"}
	if c.fileLimit > 0 {
		c.run("prlimit", append([]string{fmt.Sprintf("--fsize=%d:%d", c.fileLimit, c.fileLimit), "--", filepath.Join(pgBin, "pg_ctl")}, args...)...)
		return
	}
	c.run("pg_ctl", args...)
}

// restart stops the server cleanly (its clients' connections ended) and
// starts it again.
func (c *cluster) restart() {
	c.t.Helper()
	c.stop()
	c.start()
}

// crash kills the server's processes (pg_ctl's immediate stop: no
// checkpoint, recovery from the WAL at the next start).
func (c *cluster) crash() {
	c.t.Helper()
	c.run("pg_ctl", "-D", c.data(), "-m", "immediate", "-w", "stop")
}

// pool returns a new pool on the cluster's database postgres, with the
// run-time parameters params (pairs), closed when the test ends.
func (c *cluster) pool(params ...string) *pgxpool.Pool {
	c.t.Helper()
	return c.poolOn(fmt.Sprintf("postgres://%s@127.0.0.1:%d/postgres", c.owner, c.port), params...)
}

// poolOn returns a new pool on url, with the run-time parameters params
// (pairs), closed when the test ends.
func (c *cluster) poolOn(url string, params ...string) *pgxpool.Pool {
	c.t.Helper()
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		c.t.Fatal(err)
	}
	for i := 0; i+1 < len(params); i += 2 {
		cfg.ConnConfig.RuntimeParams[params[i]] = params[i+1]
	}
	cfg.MaxConns = 4
	p, err := pgxpool.NewWithConfig(c.t.Context(), cfg)
	if err != nil {
		c.t.Fatal(err)
	}
	c.t.Cleanup(p.Close)
	return p
}

// signal sends sig to the server's postmaster and to each of its child
// processes, found by their parent's id: the processes of this cluster
// alone.
func (c *cluster) signal(sig syscall.Signal) {
	c.t.Helper()
	b, err := os.ReadFile(filepath.Join(c.data(), "postmaster.pid"))
	if err != nil {
		c.t.Fatal(err)
	}
	var pm int
	if _, err := fmt.Sscan(string(b), &pm); err != nil {
		c.t.Fatalf("postmaster.pid: %v", err)
	}
	pids := []int{pm}
	procs, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, p := range procs {
		stat, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces, so from the last ')'.
		s := string(stat)
		var pid, ppid int
		var state string
		if i := strings.LastIndexByte(s, ')'); i > 0 {
			_, _ = fmt.Sscan(s[:strings.IndexByte(s, ' ')], &pid)
			if _, err := fmt.Sscan(s[i+1:], &state, &ppid); err == nil && ppid == pm {
				pids = append(pids, pid)
			}
		}
	}
	for _, pid := range pids {
		_ = syscall.Kill(pid, sig)
	}
}

// freeze stops the server's processes (SIGSTOP): connections are accepted
// by the kernel and never answered, as when a server hangs or the network
// drops everything. thaw lets them go on.
func (c *cluster) freeze() {
	c.t.Helper()
	c.signal(syscall.SIGSTOP)
	c.t.Cleanup(c.thaw) // before the stop of newCluster's cleanup
}

func (c *cluster) thaw() { c.signal(syscall.SIGCONT) }
