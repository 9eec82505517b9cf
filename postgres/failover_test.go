package postgres

import (
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/ttldb/ttldb"
)

// exec runs sql on the cluster's database postgres, outside a
// transaction, failing the test on an error.
func (c *cluster) exec(sql string) {
	c.t.Helper()
	conn, err := pgx.Connect(c.t.Context(), fmt.Sprintf("postgres://%s@127.0.0.1:%d/postgres", c.owner, c.port))
	if err != nil {
		c.t.Fatal(err)
	}
	defer func() { _ = conn.Close(c.t.Context()) }()
	if _, err := conn.Exec(c.t.Context(), sql); err != nil {
		c.t.Fatalf("%s: %v", sql, err)
	}
}

func TestFailover(t *testing.T) { // R12, R11, R16
	t.Parallel()
	primary := newCluster(t)
	standby := newStandby(t, primary)
	// Synchronous replication: a synchronous commit on the primary
	// returns once the standby has flushed it, so a failover loses no
	// acknowledged write (the pass's commit is synchronous: failure.go).
	primary.exec(`ALTER SYSTEM SET synchronous_standby_names = '*'`)
	primary.exec(`SELECT pg_reload_conf()`)
	// One URL naming both servers: a connection goes to the one that
	// accepts writes, as a service's would.
	url := fmt.Sprintf("postgres://%s@127.0.0.1:%d,127.0.0.1:%d/postgres?target_session_attrs=read-write", primary.owner, primary.port, standby.port)
	clock := &testClock{}
	clock.set(t0)
	e, err := Open(t.Context(), primary.poolOn(url, "application_name", "failover"), "sessions", "/tenant", &ttldb.Options{Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Close() })
	h := &handle{t: t, e: e, clock: clock}
	w := startWriters(h, 3)
	w.await(30)

	// The primary crashes; the standby is promoted. The same handle goes
	// on, on the new primary.
	w.down()
	primary.crash()
	failsWhileDown(t, h) // the standby refuses writes until it is promoted
	standby.run("pg_ctl", "-D", standby.data(), "-w", "-t", "60", "promote")
	w.upAgain()
	w.await(30)
	w.wantAcked()
}
